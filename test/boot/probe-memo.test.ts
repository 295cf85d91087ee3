import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { after, describe, test } from "node:test";
import type { MarkedPlace } from "../../src/agent/sandbox/marked-paths.js";
import { PROBE_MEMO_BYTES } from "../../src/agent/sandbox/probe-memo.js";
import type { ProbeMemoKey, ProgramIdentity } from "../../src/agent/sandbox/probe-memo-key.js";
import { type Sandbox, TestChild } from "../../src/conformance/harness.js";
import { homeSnapshot } from "../../src/conformance/home-snapshot.js";
import { type FakeBwrapWorld, fakeBwrapWorld } from "../helpers/fake-bwrap.js";
import { until } from "../helpers/fakes.js";

/**
 * The probe memo (src/agent/sandbox/probe-memo.ts, docs/tools.md "Found out once per child"),
 * against the real child: a start that ran the sandbox leaves what it found in sandbox-probe.json
 * of the user's private cache folder (`<TMPDIR>/mc-agent-<uid>`; each world has a TMPDIR of its
 * own), never in MC_HOME; the next start with the same key answers an initialize
 * negotiating `turn` from it, while the real run, made all the same, decides what a `sandboxed`
 * turn gets and corrects the memo. The fake bwrap below starts or fails as a file says, without
 * itself changing: so a memo that is used shows as an answer the real run did not give.
 */

const TURN_CAPS = ["turn", "session.create", "session.open", "model.catalog"];
const boxes: Sandbox[] = [];
after(() => {
  for (const box of boxes) box.cleanup();
});

type World = FakeBwrapWorld;

const world = (prefix: string): World => fakeBwrapWorld(prefix, boxes);

function initFrame(): string {
  const params = {
    protocol_version: 1,
    client: { name: "probe-memo-test", version: "1.0.0" },
    required_capabilities: TURN_CAPS,
  };
  return `${JSON.stringify({ id: "i1", method: "initialize", params })}\n`;
}

interface Started {
  line: string;
  sandbox: string | null;
  /** Whether the starter answered (the full child builds the initialize's schema). */
  byStarter: boolean;
}

/** One child: the turn initialize's answer; `more` runs against it before it is closed. */
async function start(
  w: World,
  options: {
    fast?: boolean;
    cwd?: string;
    home?: string;
    more?: (child: TestChild) => Promise<void>;
  } = {},
): Promise<Started> {
  const child = new TestChild({
    cwd: options.cwd ?? w.box.workspace,
    home: options.home ?? w.box.home,
    testMethods: true,
    env: { ...w.env, ...(options.fast === false ? { MC_AGENT_FAST_START: "0" } : {}) },
  });
  try {
    await child.sendBytes(Buffer.from(initFrame()));
    await child.waitFor((f) => f.id === "i1");
    const line = child.rawLines[0] as string;
    const schemas = await child.request("test.schemas", {});
    const built = (schemas.result as { built: string[] }).built;
    await options.more?.(child);
    return {
      line,
      sandbox: JSON.parse(line).result.extensions.turn.sandbox,
      byStarter: !built.includes("lifecycle.InitializeParams"),
    };
  } finally {
    await child.close();
  }
}

function memoText(w: World): string | null {
  try {
    return readFileSync(w.memo, "utf8");
  } catch {
    return null;
  }
}

/** The sandbox each entry's runs found, in the memo's order. */
function memoFindings(w: World): unknown[] {
  const text = memoText(w);
  if (text === null) return [];
  return (JSON.parse(text) as { entries: { sandbox: unknown }[] }).entries.map((e) => e.sandbox);
}

/** Per entry, in the memo's order: whether its runs bind a `.git` of the workspace. */
function memoGits(w: World): boolean[] {
  const text = memoText(w);
  if (text === null) return [];
  const { entries } = JSON.parse(text) as { entries: { key: { runs: { args: string[] }[] } }[] };
  return entries.map((e) => (e.key.runs[0]?.args ?? []).some((arg) => arg.endsWith("/.git")));
}

/** Waits until the memo's latest entry says `kind` (the child writes it after its real run). */
async function memoSays(w: World, kind: string | null): Promise<void> {
  await until(() => JSON.stringify(memoFindings(w)[0]) === JSON.stringify([kind]), "the memo");
}

/** A start without a memo, answered by the starter (which waits for the first frame). */
async function coldStart(w: World, cwd?: string): Promise<Started> {
  const started = await start(w, cwd ? { cwd } : {});
  assert.ok(started.byStarter, "a start answered by the starter");
  return started;
}

/** A memo of the latest start whose real run started (primed by one start). */
async function primed(prefix: string): Promise<World> {
  const w = world(prefix);
  const cold = await coldStart(w);
  assert.equal(cold.sandbox, "bubblewrap");
  // Written right after the answer (the test waits for it).
  await memoSays(w, "bubblewrap");
  return w;
}

describe("the probe memo, against the real child", () => {
  test("a start leaves it; the next answers from it; the real run still decides and corrects it", async () => {
    const w = await primed("mc-memo-warm-");
    assert.equal(lstatSync(w.memo).mode & 0o777, 0o600);
    // The sandbox no longer starts, bwrap itself unchanged: only a memo can say it does.
    w.starts(false);
    const warm = await start(w, {
      more: async (child) => {
        const created = await child.request("session.create", {});
        assert.ok(created.result, JSON.stringify(created.error));
        const turn = await child.request("turn.start", { input: "hi", permissions: "sandboxed" });
        assert.equal(turn.error?.code, "sandbox_unavailable", JSON.stringify(turn));
      },
    });
    assert.equal(warm.sandbox, "bubblewrap", "answered from the memo");
    assert.ok(warm.byStarter);
    await memoSays(w, null);
    assert.equal(memoFindings(w).length, 1, "the entry is replaced, not added");
    const after = await start(w);
    assert.equal(after.sandbox, null);
    assert.ok(after.byStarter);
  });

  test("a child shut down before its real run ended still corrects the memo", async () => {
    const w = await primed("mc-memo-slow-");
    w.starts(false);
    // The real run ends half a second after the child was asked to stop (within cleanup_ms).
    w.takes(0.5);
    const warm = await start(w);
    assert.equal(warm.sandbox, "bubblewrap", "answered from the memo");
    // The child has exited: its shutdown waited for the run, which corrected the memo.
    assert.deepEqual(memoFindings(w)[0], [null]);
  });

  test("a memo that is right gives the full child's answer byte for byte", async () => {
    const w = await primed("mc-memo-bytes-");
    const fast = await start(w);
    const full = await start(w, { fast: false });
    assert.ok(fast.byStarter);
    assert.equal(full.byStarter, false);
    assert.equal(fast.line, full.line);
  });

  test("a memo of a sandbox that starts is not used when bwrap changed or the runs differ", async () => {
    const changes: [string, (w: World) => void][] = [
      ["bwrap's mtime", (w) => utimesSync(w.bwrap, new Date(), new Date(Date.now() - 60_000))],
      [
        "bwrap replaced by a copy (another inode)",
        (w) => {
          writeFileSync(`${w.bwrap}.new`, readFileSync(w.bwrap));
          chmodSync(`${w.bwrap}.new`, 0o755);
          renameSync(`${w.bwrap}.new`, w.bwrap);
        },
      ],
      ["a .git in the workspace (its arguments)", (w) => mkdirSync(join(w.box.workspace, ".git"))],
      ["another bwrap on PATH", (w) => anotherBwrap(w)],
    ];
    for (const [what, change] of changes) {
      const w = await primed("mc-memo-change-");
      w.starts(false);
      change(w);
      const warm = await start(w);
      assert.equal(warm.sandbox, null, what);
    }
  });

  test("a memo whose host facts differ is not used (a reboot, another namespace, user, sysctl)", async () => {
    const w = await primed("mc-memo-host-");
    const good = memoText(w) as string;
    w.starts(false);
    const edits: [string, (key: ProbeMemoKey) => void][] = [
      ["boot", (key) => (key.host.boot_id = "00000000-0000-0000-0000-000000000000")],
      ["user namespace", (key) => (key.host.user_namespace = "user:[1]")],
      ["uid", (key) => (key.host.uid = (key.host.uid ?? 0) + 1)],
      ["gid", (key) => (key.host.gid = (key.host.gid ?? 0) + 1)],
      ["a sysctl", (key) => (key.host.sysctls["/proc/sys/user/max_user_namespaces"] = "0")],
      ["seccomp", (key) => (key.host.confinement = ["Seccomp:\t2"])],
      ["the kernel", (key) => (key.host.os_release = "0.0.0")],
      ["mount namespace", (key) => (key.host.mount_namespace = "mnt:[1]")],
      [
        "the workspace's mount",
        (key) => (key.marked[0] = { ...(key.marked[0] as MarkedPlace), mount: "1 1 0:1 / / rw" }),
      ],
      [
        "the mounts holding the workspace",
        (key) => (key.marked[0] = { ...(key.marked[0] as MarkedPlace), under: ["/"] }),
      ],
      ["the platform", (key) => (key.platform = "darwin")],
      [
        "bwrap's size",
        (key) => (key.programs[0] = { ...(key.programs[0] as ProgramIdentity), size: "1" }),
      ],
      [
        "the runs",
        (key) => (key.runs[0] = { ...(key.runs[0] as ProbeMemoKey["runs"][0]), args: ["--other"] }),
      ],
    ];
    for (const [what, edit] of edits) {
      const memo = JSON.parse(good) as { entries: { key: ProbeMemoKey }[] };
      edit(memo.entries[0]?.key as ProbeMemoKey);
      writeFileSync(w.memo, JSON.stringify(memo));
      const warm = await start(w);
      assert.equal(warm.sandbox, null, what);
    }
    // The same file unedited is used: the edits alone made the misses.
    writeFileSync(w.memo, good);
    assert.equal((await start(w)).sandbox, "bubblewrap");
  });

  test("a memo file that is not one is ignored, never a crash, and nothing else changes", async () => {
    const w = await primed("mc-memo-bad-");
    const good = memoText(w) as string;
    const elsewhere = join(w.box.root, "elsewhere.json");
    writeFileSync(elsewhere, good);
    w.starts(false);
    const path = w.memo;
    const padded = (bytes: number) => good.trimEnd() + " ".repeat(bytes - good.trimEnd().length);
    const bad: [string, () => void][] = [
      ["not JSON", () => writeFileSync(path, "{not json")],
      ["cut short", () => writeFileSync(path, good.slice(0, good.length / 2))],
      ["empty", () => writeFileSync(path, "")],
      ["JSON null", () => writeFileSync(path, "null")],
      ["another format", () => writeFileSync(path, good.replace("mc-sandbox-probe-memo", "x"))],
      ["another version", () => writeFileSync(path, good.replace('"version":1', '"version":2'))],
      ["an unknown sandbox", () => writeFileSync(path, good.replace('"bubblewrap"]', '"docker"]'))],
      ["one past the bound", () => writeFileSync(path, padded(PROBE_MEMO_BYTES + 1))],
      ["a symlink to a memo", () => symlinkSync(elsewhere, path)],
      ["a folder", () => mkdirSync(path)],
      ["a FIFO", () => execFileSync("mkfifo", [path])],
    ];
    for (const [what, make] of bad) {
      rmSync(path, { recursive: true, force: true });
      make();
      const before = snapshot(w.box.root, path);
      const warm = await start(w);
      assert.equal(warm.sandbox, null, what);
      assert.ok(warm.byStarter, what);
      assert.deepEqual(snapshot(w.box.root, path), before, what);
    }
    assert.equal(readFileSync(elsewhere, "utf8"), good, "a symlink's target is never written");
    // At the bound it is read.
    rmSync(path, { recursive: true, force: true });
    writeFileSync(path, padded(PROBE_MEMO_BYTES));
    assert.equal((await start(w)).sandbox, "bubblewrap", "a memo of exactly the bound");
  });

  test("a workspace and MC_HOME not seen before are answered from the entry of ones like them", async () => {
    const w = await primed("mc-memo-alike-");
    // Another workspace and another MC_HOME beside the first ones: the same mount, held by the
    // same mounts of the run, the same arguments but for their paths.
    const workspace = join(w.box.root, "workspace-2");
    const home = join(w.box.root, "home-2");
    mkdirSync(workspace);
    mkdirSync(home);
    w.starts(false);
    const alike = await start(w, { cwd: workspace, home });
    assert.equal(alike.sandbox, "bubblewrap", "answered from the first workspace's entry");
    assert.ok(alike.byStarter);
    await memoSays(w, null);
    assert.equal(memoFindings(w).length, 1, "one entry for both: their key is the same");
    const text = memoText(w) as string;
    for (const path of [w.box.workspace, w.box.home, workspace, home])
      assert.ok(!text.includes(path), "the memo names neither workspace nor MC_HOME");
    assert.equal((await start(w, { cwd: workspace, home })).sandbox, null, "corrected");
  });

  test("a memo keeps one entry per kind of workspace, the latest first", async () => {
    const w = await primed("mc-memo-entries-");
    // A .git makes other arguments: another kind of workspace, another entry.
    const other = join(w.box.root, "workspace-2");
    mkdirSync(join(other, ".git"), { recursive: true });
    await coldStart(w, other);
    await until(() => memoFindings(w).length === 2, "the second entry");
    w.starts(false);
    assert.equal((await start(w)).sandbox, "bubblewrap", "the first workspace's entry kept");
  });

  test("an entry used again goes first: the kept entries are the latest used", async () => {
    const w = await primed("mc-memo-used-");
    const other = join(w.box.root, "workspace-2");
    mkdirSync(join(other, ".git"), { recursive: true });
    await coldStart(w, other);
    await until(() => memoGits(w)[0] === true, "the second workspace's entry first");
    assert.equal((await start(w)).sandbox, "bubblewrap");
    // Answered from the memo; its real run, agreeing, puts the entry first again.
    await until(() => memoGits(w)[0] === false, "the first workspace's entry first");
    assert.deepEqual(memoGits(w), [false, true]);
  });

  test("no MC_HOME folder: none is made", async () => {
    const w = world("mc-memo-nohome-");
    rmSync(w.box.home, { recursive: true });
    assert.equal((await coldStart(w)).sandbox, "bubblewrap");
    assert.equal(existsSync(w.box.home), false);
    assert.ok(existsSync(w.memo), "the memo is written all the same");
  });

  test("MC_HOME is left as it was by a turn initialize, with a memo written, used or corrected", async () => {
    const w = world("mc-memo-home-");
    const before = homeSnapshot(w.box.home);
    await coldStart(w);
    assert.ok(existsSync(w.memo));
    await start(w);
    w.starts(false);
    await start(w);
    await memoSays(w, null);
    assert.equal(homeSnapshot(w.box.home), before);
  });
});

/** A second fake bwrap, the same script, in a folder put first on PATH. */
function anotherBwrap(w: World): void {
  const dir = join(w.box.root, "fake-bin-2");
  mkdirSync(dir);
  writeFileSync(join(dir, "bwrap"), readFileSync(w.bwrap));
  chmodSync(join(dir, "bwrap"), 0o755);
  w.env.PATH = `${dir}:${w.env.PATH}`;
}

/** Every entry under `root` but the memo's own path and temp files: path, kind, size, mtime. */
function snapshot(root: string, memo: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (path === memo || name.startsWith(".sandbox-probe.json.")) continue;
      // The code caches beside the memo are the child's to write at any start.
      if (name === "code-cache" || name === "compile-cache") continue;
      const stat = lstatSync(path);
      // A folder's own times change as the memo is renamed into it: its entries are compared.
      if (stat.isDirectory()) {
        out.push(`${relative(root, path)}/ ${stat.mode}`);
        walk(path);
      } else out.push(`${relative(root, path)} ${stat.mode} ${stat.size} ${stat.mtimeMs}`);
    }
  };
  walk(root);
  return out.sort();
}

import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { type Sandbox, sandbox, startReady, type TestChild } from "../helpers/child.js";
import { within } from "../helpers/fakes.js";
import { discoverAll, listAll, SESSION_CAPS } from "../helpers/sessions.js";

/**
 * session.manage black-box: rename, archive, unarchive, archived, delete and usage against a
 * real child and a real store in a temp folder; refusals change nothing; a kill -9 at every step
 * of delete and archive never leaves half a session.
 */
const CAPS = [...SESSION_CAPS, "session.manage"];
const TS = "2026-11-29T10:00:00.000Z";

let box: Sandbox | undefined;
let children: TestChild[] = [];
afterEach(async () => {
  for (const child of children) await child.close().catch(() => {});
  children = [];
  box?.cleanup();
  box = undefined;
});

async function start(target: Sandbox, env: Record<string, string> = {}): Promise<TestChild> {
  const child = await startReady(target, CAPS, { testMethods: true, env });
  children.push(child);
  return child;
}

const sessionsOf = (home: string) => join(home, "sessions");
const archiveOf = (home: string) => join(home, "sessions", "archive");

/** A saved history of `turns` turns (each with a usage and a cost), written by hand. */
function writeSession(
  target: Sandbox,
  id: string,
  turns = 2,
  options: { cost?: (n: number) => number | null; checkpoints?: string[] } = {},
): string {
  const cwd = target.workspace;
  const lines = [JSON.stringify({ type: "session_meta", ts: TS, cwd, id })];
  for (let n = 1; n <= turns; n += 1) {
    const base = { ts: TS, cwd, turn_id: `t-${n}` };
    const usage = {
      input_tokens: 100 * n,
      output_tokens: 10 * n,
      cached_input_tokens: n,
      reasoning_tokens: 0,
    };
    const cost = options.cost ? options.cost(n) : 0.5;
    const checkpoint = options.checkpoints?.[n - 1];
    lines.push(
      JSON.stringify({ type: "user_message", ...base, text: `question ${n} of ${id}` }),
      JSON.stringify({
        type: "turn_end",
        ...base,
        status: "completed",
        stop_reason: "end_turn",
        usage,
        ...(cost === undefined ? {} : { cost_usd: cost }),
        ...(checkpoint ? { checkpoints: { before: checkpoint, after: null } } : {}),
      }),
    );
  }
  mkdirSync(sessionsOf(target.home), { recursive: true, mode: 0o700 });
  const text = `${lines.join("\n")}\n`;
  writeFileSync(join(sessionsOf(target.home), `${id}.jsonl`), text);
  return text;
}

/** Every file under MC_HOME with its content's digest: "nothing changed" compares two of these. */
function storeDigest(home: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.set(path, createHash("sha256").update(readFileSync(path)).digest("hex"));
    }
  };
  walk(home);
  return out;
}

async function archivedIds(child: TestChild): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await child.call("session.archived", cursor === undefined ? {} : { cursor });
    ids.push(...page.sessions.map((s) => s.id));
    if (page.cursor === null) return ids;
    cursor = page.cursor;
  }
}

describe("session.rename", () => {
  test("the new title shows in list, discover and open; the last title wins", async () => {
    box = sandbox();
    writeSession(box, "s1");
    const child = await start(box);
    const renamed = await child.call("session.rename", { id: "s1", title: "First name" });
    assert.equal(renamed.session.title, "First name");
    await child.call("session.rename", { id: "s1", title: "Flaky test hunt" });
    const { pages } = await listAll(child);
    assert.equal(pages[0]?.sessions.find((s) => s.id === "s1")?.title, "Flaky test hunt");
    const discovered = await discoverAll(child);
    assert.equal(
      discovered.pages.flatMap((p) => p.sessions).find((s) => s.id === "s1")?.title,
      "Flaky test hunt",
    );
    const opened = await child.call("session.open", { id: "s1" });
    assert.equal(opened.session.title, "Flaky test hunt");
    const last = readFileSync(join(sessionsOf(box.home), "s1.jsonl"), "utf8")
      .trimEnd()
      .split("\n")
      .at(-1);
    const record = JSON.parse(last as string);
    assert.deepEqual(
      [record.type, record.title, record.cwd],
      ["title", "Flaky test hunt", box.workspace],
    );
    assert.equal(record.ts, renamed.session.updated_at === record.ts ? record.ts : record.ts);
  });

  test("a title of 200 characters is taken; 201, a second line, a blank or a control character is invalid_params and changes nothing", async () => {
    box = sandbox();
    writeSession(box, "s1");
    const child = await start(box);
    const before = storeDigest(box.home);
    for (const title of ["é".repeat(201), "two\nlines", "   ", "", "tab\there", "nul\u0000"]) {
      assert.equal(
        await child.errorCode("session.rename", { id: "s1", title }),
        "invalid_params",
        JSON.stringify(title),
      );
    }
    assert.deepEqual(storeDigest(box.home), before);
    const ok = await child.call("session.rename", { id: "s1", title: "é".repeat(200) });
    assert.equal(ok.session.title, "é".repeat(200));
  });
});

describe("session.archive / session.unarchive / session.archived", () => {
  test("archive hides the session from list and discover, shows it in archived and history; open is session_missing; unarchive restores it byte for byte", async () => {
    box = sandbox();
    const text = writeSession(box, "s1");
    writeSession(box, "s2");
    writeFileSync(join(sessionsOf(box.home), "s1.sub-1.jsonl"), "{}\n");
    const child = await start(box);
    await child.call("session.open", { id: "s1" });
    assert.deepEqual(await child.call("session.archive", { id: "s1" }), {
      id: "s1",
      archived: true,
    });
    assert.equal(
      (await child.call("status", {})).attachment,
      null,
      "the archived session is detached",
    );
    assert.deepEqual((await listAll(child)).ids, ["s2"]);
    assert.deepEqual((await discoverAll(child)).ids, ["s2"]);
    assert.deepEqual(await archivedIds(child), ["s1"]);
    assert.ok(
      existsSync(join(archiveOf(box.home), "s1.sub-1.jsonl")),
      "the derived history moved along",
    );
    assert.equal(await child.errorCode("session.open", { id: "s1" }), "session_missing");
    const history = await child.call("session.history", { id: "s1" });
    assert.equal(history.events.length, 5);
    const usage = await child.call("session.usage", { id: "s1" });
    assert.equal(usage.archived, true);
    assert.deepEqual(await child.call("session.unarchive", { id: "s1" }), {
      id: "s1",
      archived: false,
    });
    assert.equal(readFileSync(join(sessionsOf(box.home), "s1.jsonl"), "utf8"), text);
    assert.ok(existsSync(join(sessionsOf(box.home), "s1.sub-1.jsonl")));
    assert.deepEqual((await listAll(child)).ids.sort(), ["s1", "s2"]);
    assert.deepEqual(await archivedIds(child), []);
  });

  test("a name taken on the way back is session_exists and moves nothing; archiving twice is session_missing", async () => {
    box = sandbox();
    writeSession(box, "s1");
    const child = await start(box);
    await child.call("session.archive", { id: "s1" });
    assert.equal(await child.errorCode("session.archive", { id: "s1" }), "session_missing");
    writeSession(box, "s1", 1);
    const before = storeDigest(box.home);
    assert.equal(await child.errorCode("session.unarchive", { id: "s1" }), "session_exists");
    assert.equal(await child.errorCode("session.archive", { id: "s1" }), "session_exists");
    assert.deepEqual(storeDigest(box.home), before);
  });

  test("another workspace's session is cwd_mismatch for every method, and never in archived", async () => {
    box = sandbox();
    writeSession(box, "mine");
    const other = join(box.root, "other");
    mkdirSync(other);
    const line = JSON.stringify({ type: "session_meta", ts: TS, cwd: other, id: "theirs" });
    writeFileSync(join(sessionsOf(box.home), "theirs.jsonl"), `${line}\n`);
    const child = await start(box);
    const before = storeDigest(box.home);
    for (const [method, params] of [
      ["session.rename", { id: "theirs", title: "x" }],
      ["session.archive", { id: "theirs" }],
      ["session.delete", { id: "theirs" }],
      ["session.usage", { id: "theirs" }],
    ] as const)
      assert.equal(await child.errorCode(method, params), "cwd_mismatch", method);
    assert.deepEqual(storeDigest(box.home), before);
    await child.call("session.archive", { id: "mine" });
    // Theirs archived by hand: still never listed here.
    execFileSync("mv", [join(sessionsOf(box.home), "theirs.jsonl"), archiveOf(box.home)]);
    assert.deepEqual(await archivedIds(child), ["mine"]);
  });
});

describe("session.delete", () => {
  test("removes the history, its derived histories, a stale lock, its verdict and its checkpoints; others stay", async () => {
    box = sandbox();
    const checkpoint = `c-${"a".repeat(32)}`;
    const kept = `c-${"b".repeat(32)}`;
    writeSession(box, "s1", 1, { checkpoints: [checkpoint] });
    writeSession(box, "s2", 1, { checkpoints: [kept] });
    writeFileSync(join(sessionsOf(box.home), "s1.sub-1.jsonl"), "{}\n");
    writeFileSync(join(sessionsOf(box.home), "s1.lock"), "not a lock\n");
    execFileSync("touch", ["-d", "2020-01-01", join(sessionsOf(box.home), "s1.lock")]);
    const repo = shadowRepoWith(box, [checkpoint, kept]);
    const cacheDir = join(box.root, "cache");
    const child = await start(box, { MC_AGENT_CACHE_DIR: cacheDir });
    await child.call("session.open", { id: "s1" });
    assert.deepEqual(await child.call("session.delete", { id: "s1" }), { id: "s1", deleted: true });
    assert.equal((await child.call("status", {})).attachment, null);
    assert.deepEqual(readdirSync(sessionsOf(box.home)).sort(), ["s2.jsonl"]);
    assert.deepEqual(refsOf(repo), [`refs/mc/checkpoints/${kept}`]);
    assert.equal(await child.errorCode("session.open", { id: "s1" }), "session_missing");
    assert.equal(await child.errorCode("session.delete", { id: "s1" }), "session_missing");
  });

  test("an archived session can be deleted", async () => {
    box = sandbox();
    writeSession(box, "s1");
    const child = await start(box);
    await child.call("session.archive", { id: "s1" });
    await child.call("session.delete", { id: "s1" });
    assert.deepEqual(readdirSync(archiveOf(box.home)), []);
    assert.deepEqual(await archivedIds(child), []);
  });
});

describe("refusals while the session is in use", () => {
  test("a turn of another process (its live writer lock): every mutation is session_locked, nothing changed", async () => {
    box = sandbox();
    writeSession(box, "s1");
    const child = await start(box);
    const holder = spawn("sleep", ["60"], { stdio: "ignore" });
    const gone = new Promise((resolve) => holder.on("exit", resolve));
    try {
      const lock = { pid: holder.pid, renewed_at: new Date().toISOString() };
      writeFileSync(join(sessionsOf(box.home), "s1.lock"), `${JSON.stringify(lock)}\n`);
      const before = storeDigest(box.home);
      for (const [method, params] of [
        ["session.rename", { id: "s1", title: "x" }],
        ["session.archive", { id: "s1" }],
        ["session.delete", { id: "s1" }],
      ] as const)
        assert.equal(await child.errorCode(method, params), "session_locked", method);
      assert.deepEqual(storeDigest(box.home), before);
    } finally {
      holder.kill("SIGKILL");
      await within(gone, 10_000, "the holder to exit");
    }
  });

  test("work on this child's session worker: every mutation is busy, nothing changed", async () => {
    box = sandbox();
    writeSession(box, "s1");
    const child = await start(box);
    const sleeping = child.request("test.sleep_worker", { ms: 60_000 }, "sleeper");
    const before = storeDigest(box.home);
    for (const [method, params] of [
      ["session.rename", { id: "s1", title: "x" }],
      ["session.archive", { id: "s1" }],
      ["session.unarchive", { id: "s1" }],
      ["session.delete", { id: "s1" }],
    ] as const)
      assert.equal(await child.errorCode(method, params), "busy", method);
    assert.deepEqual(storeDigest(box.home), before);
    await child.call("shutdown", {});
    await sleeping.catch(() => {});
  });
});

describe("kill -9 at every step", () => {
  const DELETE_STEPS = ["locked", "committed", "derived", "checkpoints", "verdict", "tombstone"];
  for (const step of DELETE_STEPS)
    test(`session.delete killed at ${step}: the whole session or none of it; the next delete finishes the rest`, async () => {
      box = sandbox();
      const checkpoint = `c-${"c".repeat(32)}`;
      const text = writeSession(box, "s1", 2, { checkpoints: [checkpoint] });
      writeSession(box, "s2");
      writeSession(box, "s3");
      writeFileSync(join(sessionsOf(box.home), "s1.sub-1.jsonl"), "{}\n");
      const repo = shadowRepoWith(box, [checkpoint]);
      const doomed = await start(box, { MC_AGENT_TEST_MANAGE_KILL: `session.delete:${step}` });
      doomed.send({ id: "del", method: "session.delete", params: { id: "s1" } });
      const exit = await doomed.exited;
      assert.equal(exit.signal, "SIGKILL");
      const child = await start(box);
      const listed = (await listAll(child)).ids.sort();
      const whole = listed.includes("s1");
      if (whole) {
        assert.equal(step, "locked", "only a kill before the commit leaves the session");
        assert.equal(readFileSync(join(sessionsOf(box.home), "s1.jsonl"), "utf8"), text);
        assert.equal((await child.call("session.history", { id: "s1" })).events.length, 5);
        assert.ok(existsSync(join(sessionsOf(box.home), "s1.sub-1.jsonl")));
        assert.equal(refsOf(repo).length, 1);
      } else {
        assert.equal(await child.errorCode("session.open", { id: "s1" }), "session_missing");
        assert.equal(await child.errorCode("session.history", { id: "s1" }), "session_missing");
        assert.deepEqual((await discoverAll(child)).ids.sort(), ["s2", "s3"]);
      }
      assert.deepEqual(await archivedIds(child), []);
      // The next delete (of another session) finishes what the killed one left.
      await child.call("session.delete", { id: "s3" });
      const left = readdirSync(sessionsOf(box.home)).sort();
      // A whole session keeps its dead writer's lock (a busy hint) until a writer takes it over.
      const whole_ = ["s1.jsonl", "s1.lock", "s1.sub-1.jsonl", "s2.jsonl"];
      assert.deepEqual(left, whole ? whole_ : ["s2.jsonl"]);
      if (whole) {
        await child.call("session.rename", { id: "s1", title: "Taken over" });
        assert.ok(!existsSync(join(sessionsOf(box.home), "s1.lock")), "the stale lock is gone");
      }
      assert.equal(refsOf(repo).length, whole ? 1 : 0);
    });

  for (const step of ["locked", "committed", "derived"])
    test(`session.archive killed at ${step}: the session is wholly active or wholly archived`, async () => {
      box = sandbox();
      const text = writeSession(box, "s1");
      writeFileSync(join(sessionsOf(box.home), "s1.sub-1.jsonl"), "{}\n");
      const doomed = await start(box, { MC_AGENT_TEST_MANAGE_KILL: `session.archive:${step}` });
      doomed.send({ id: "arc", method: "session.archive", params: { id: "s1" } });
      assert.equal((await doomed.exited).signal, "SIGKILL");
      const child = await start(box);
      const active = (await listAll(child)).ids.includes("s1");
      const archived = (await archivedIds(child)).includes("s1");
      assert.notEqual(active, archived, "exactly one of the two");
      assert.equal(active, step === "locked");
      const folder = active ? sessionsOf(box.home) : archiveOf(box.home);
      assert.equal(readFileSync(join(folder, "s1.jsonl"), "utf8"), text);
      assert.equal((await child.call("session.history", { id: "s1" })).events.length, 5);
      // Whatever was left behind, the next move takes it along.
      await child.call(active ? "session.archive" : "session.unarchive", { id: "s1" });
      const there = active ? archiveOf(box.home) : sessionsOf(box.home);
      assert.ok(existsSync(join(there, "s1.sub-1.jsonl")), "the derived history followed");
    });
});

describe("session.usage", () => {
  test("sums every turn; a turn of unknown cost is counted apart and the total is partial", async () => {
    box = sandbox();
    writeSession(box, "s1", 3, { cost: (n) => (n === 2 ? null : 0.1 * n) });
    writeSession(box, "s2", 2, { cost: () => 0.25 });
    const child = await start(box);
    const partial = await child.call("session.usage", { id: "s1" });
    assert.deepEqual(partial, {
      id: "s1",
      turns: 3,
      usage: { input_tokens: 600, output_tokens: 60, cached_input_tokens: 6, reasoning_tokens: 0 },
      cost_usd: 0.4,
      unknown_cost_turns: 1,
      partial: true,
      archived: false,
    });
    const whole = await child.call("session.usage", { id: "s2" });
    assert.equal(whole.cost_usd, 0.5);
    assert.equal(whole.partial, false);
  });
});

/** A shadow checkpoint repository of the workspace holding these refs (as a turn makes them). */
function shadowRepoWith(target: Sandbox, ids: string[]): string {
  const key = createHash("sha256").update(target.workspace).digest("hex").slice(0, 32);
  const dir = join(target.home, "checkpoints", key);
  mkdirSync(dir, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync("git", ["--git-dir", dir, ...args], {
      env: {
        PATH: process.env.PATH,
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@t",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@t",
      },
    })
      .toString()
      .trim();
  git("init", "-q", "--bare");
  const tree = git("mktree");
  for (const id of ids)
    git("update-ref", `refs/mc/checkpoints/${id}`, git("commit-tree", tree, "-m", id));
  return dir;
}

function refsOf(dir: string): string[] {
  return execFileSync("git", ["--git-dir", dir, "for-each-ref", "--format=%(refname)"])
    .toString()
    .trim()
    .split("\n")
    .filter(Boolean);
}

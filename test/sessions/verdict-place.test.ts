import assert from "node:assert/strict";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { homeSnapshot } from "../../src/conformance/home-snapshot.js";
import { writeHistoryOfSize, writeSmallHistory } from "../../src/conformance/session-store.js";
import { verdictPlace } from "../../src/sessions/verdicts/verdict-root.js";
import { type Sandbox, sandbox, type TestChild } from "../helpers/child.js";
import { discoverAll, inSandbox, listAll, startSessions } from "../helpers/sessions.js";

/**
 * Where the verdict cache lives (docs/store.md, "The verdict cache"): outside MC_HOME, so that
 * listings create, repair and delete nothing in it (the base contract, §1). Real children, a
 * real temp cache root; margin 0 and synchronous writes (test switches) so that a case's
 * small, fresh histories get verdicts at once.
 */
const FAST = { MC_AGENT_TEST_VERDICT_MARGIN_MS: "0", MC_AGENT_TEST_VERDICT_SYNC: "1" };

async function listings(child: TestChild): Promise<string[]> {
  const listed = await listAll(child);
  const found = await discoverAll(child);
  assert.equal(found.error, null);
  assert.deepEqual([...found.ids].sort(), [...listed.ids].sort());
  return listed.ids;
}

/** Bytes the child's read calls returned so far (the kernel's count, /proc/<pid>/io). */
function bytesRead(child: TestChild): number {
  const io = readFileSync(`/proc/${child.pid}/io`, "utf8");
  return Number(/^rchar: (\d+)$/m.exec(io)?.[1]);
}

function filesUnder(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, encoding: "utf8" }).sort();
}

function start(box: Sandbox, children: TestChild[], env: Record<string, string>) {
  return startSessions(box, { testMethods: true, env: { ...FAST, ...env } }).then(async (c) => {
    children.push(c);
    // Answered by the whole child: the starter answers the initialize before the rest has
    // loaded (docs/local-agent-protocol.md, "Fast start"), and the bundle's bytes are no listing's.
    await c.call("status", {});
    return c;
  });
}

describe("verdict cache place", () => {
  it("with MC_AGENT_CACHE_DIR set, MC_HOME stays byte- and metadata-identical through listings while the cache is written and then used", () =>
    inSandbox(async (box, children) => {
      const root = join(box.root, "user-cache");
      for (const id of ["a", "b", "c"]) writeHistoryOfSize(box, id, 1024 * 1024);
      const before = homeSnapshot(box.home);
      const first = await start(box, children, { MC_AGENT_CACHE_DIR: root });
      const ids = await listings(first);
      assert.deepEqual([...ids].sort(), ["a", "b", "c"]);
      const place = verdictPlace({ MC_AGENT_CACHE_DIR: root }, box.home);
      assert.ok(place);
      assert.deepEqual(readdirSync(place.folder).sort(), [".home", "a.json", "b.json", "c.json"]);
      // A later child takes the verdicts (the history's signature is unchanged).
      const second = await start(box, children, { MC_AGENT_CACHE_DIR: root });
      const start2 = bytesRead(second);
      assert.deepEqual(await listings(second), ids);
      const read = bytesRead(second) - start2;
      assert.ok(read < 256 * 1024, `the cached listings read ${read} bytes, not 3 MiB twice`);
      assert.equal(homeSnapshot(box.home), before, "nothing under MC_HOME changed");
      assert.deepEqual(readdirSync(root), [place.folder.slice(root.length + 1)]);
    }));

  it("the root falls back to $XDG_CACHE_HOME/mc-agent, then $HOME/.cache/mc-agent; a root inside MC_HOME turns the cache off", () =>
    inSandbox(async (box, children) => {
      writeSmallHistory(box, "a");
      const xdg = join(box.root, "xdg");
      const user = join(box.root, "user");
      mkdirSync(user);
      await listings(await start(box, children, { XDG_CACHE_HOME: xdg, HOME: user }));
      assert.equal(
        filesUnder(join(xdg, "mc-agent")).length,
        3,
        "folder, marker and verdict under XDG",
      );
      assert.deepEqual(filesUnder(user), []);
      await listings(await start(box, children, { HOME: user, XDG_CACHE_HOME: "relative" }));
      assert.equal(filesUnder(join(user, ".cache", "mc-agent")).length, 3, "under HOME");
      // The harness's own default: HOME is MC_HOME; ~/.cache would be inside it.
      const before = homeSnapshot(box.home);
      await listings(await start(box, children, {}));
      assert.equal(homeSnapshot(box.home), before);
    }));

  it("a cache root that is a symlink or writable by others is refused: same rows, nothing written there", () =>
    inSandbox(async (box, children) => {
      writeSmallHistory(box, "a");
      const real = join(box.root, "real-root");
      mkdirSync(real, { mode: 0o700 });
      const linked = join(box.root, "linked-root");
      symlinkSync(real, linked);
      assert.deepEqual(await listings(await start(box, children, { MC_AGENT_CACHE_DIR: linked })), [
        "a",
      ]);
      assert.deepEqual(filesUnder(real), [], "nothing through the symlink");
      const open = join(box.root, "open-root");
      mkdirSync(open);
      chmodSync(open, 0o777);
      const child = await start(box, children, { MC_AGENT_CACHE_DIR: open });
      assert.deepEqual(await listings(child), ["a"]);
      assert.deepEqual(await listings(child), ["a"]);
      assert.deepEqual(filesUnder(open), [], "nothing in a world-writable root");
    }));
});

describe("verdict cache folders of gone homes", () => {
  it("a prune removes the folder of a home that was deleted or replaced, keeps live homes' folders and anything not the cache's", () =>
    inSandbox(async (box, children) => {
      const root = join(box.root, "user-cache");
      const env = { MC_AGENT_CACHE_DIR: root };
      const homes = ["gone", "replaced", "kept", "foreign-file"].map((name) => {
        const home = join(box.root, `home-${name}`);
        mkdirSync(join(home, "sessions"), { recursive: true });
        return home;
      });
      // Each home gets its folder and marker from a child of its own.
      for (const home of homes) {
        const other = { ...box, home };
        writeHistoryOfSize(other, "a", 16 * 1024);
        await listings(await start(other, children, env));
      }
      const folders = homes.map((home) => verdictPlace(env, home)?.folder ?? "");
      const [goneFolder, replacedFolder, keptFolder, foreignFolder] = folders as [
        string,
        string,
        string,
        string,
      ];
      const [goneHome, replacedHome, , foreignHome] = homes as [string, string, string, string];
      for (const folder of folders) assert.ok(existsSync(join(folder, ".home")), "marker written");
      writeFileSync(join(foreignFolder, "notes.txt"), "the user's own file");
      rmSync(goneHome, { recursive: true });
      renameSync(replacedHome, `${replacedHome}.old`);
      mkdirSync(join(replacedHome, "sessions"), { recursive: true });
      rmSync(foreignHome, { recursive: true });
      // A folder whose marker names another folder's identity proves nothing: it stays.
      const copied = join(root, `sessions-${"0".repeat(32)}`);
      mkdirSync(copied, { mode: 0o700 });
      copyFileSync(join(goneFolder, ".home"), join(copied, ".home"));
      writeSmallHistory(box, "b");
      await listings(await start(box, children, env));
      assert.equal(existsSync(goneFolder), false, "deleted home's folder removed");
      assert.equal(existsSync(replacedFolder), false, "replaced home's folder removed");
      assert.deepEqual(readdirSync(keptFolder).sort(), [".home", "a.json"], "live home kept");
      assert.ok(existsSync(join(foreignFolder, "notes.txt")), "a folder with other files stays");
      assert.ok(existsSync(join(copied, ".home")), "a mismatched marker stays");
      rmSync(`${replacedHome}.old`, { recursive: true });
    }));
});

describe("verdictPlace", () => {
  it("resolves the root in order, ignores relative paths, and gives each home identity its own folder", () => {
    const box = sandbox();
    try {
      const base = join(box.root, "c");
      const explicit = verdictPlace({ MC_AGENT_CACHE_DIR: base, XDG_CACHE_HOME: "/x" }, box.home);
      assert.equal(explicit?.root, base);
      assert.ok(explicit?.folder.startsWith(join(base, "sessions-")));
      assert.equal(verdictPlace({ XDG_CACHE_HOME: base }, box.home)?.root, join(base, "mc-agent"));
      const viaHome = verdictPlace({ XDG_CACHE_HOME: "rel", HOME: base }, box.home);
      assert.equal(viaHome?.root, join(base, ".cache", "mc-agent"));
      assert.equal(verdictPlace({ MC_AGENT_CACHE_DIR: "rel", HOME: base }, box.home), null);
      assert.equal(verdictPlace({}, box.home), null, "no HOME, no XDG: off");
      assert.equal(verdictPlace({ HOME: box.home }, box.home), null, "inside MC_HOME: off");
      assert.equal(verdictPlace({ MC_AGENT_CACHE_DIR: base }, join(box.root, "none")), null);
      // Another home, and a home replaced at the same path (new inode): other folders.
      const other = verdictPlace({ MC_AGENT_CACHE_DIR: base }, box.workspace);
      assert.notEqual(other?.folder, explicit?.folder);
      renameSync(box.home, `${box.home}.old`);
      mkdirSync(box.home);
      const replaced = verdictPlace({ MC_AGENT_CACHE_DIR: base }, box.home);
      assert.notEqual(replaced?.folder, explicit?.folder);
      rmSync(`${box.home}.old`, { recursive: true });
    } finally {
      box.cleanup();
    }
  });
});

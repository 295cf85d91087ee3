/**
 * MC_HOME and the user's cache root inside the workspace (the layout of a workspace that is
 * `$HOME`, MC_HOME `~/.mc`; issue 35, item 1), through the real child: no checkpoint records
 * either of them (their size stays bounded turn after turn), a revert is not `workspace_changed`
 * because they changed, and a forced revert of the session's first turn restores the files and
 * leaves another session's history, every checkpoint ref and the shadow repository intact.
 * Meanwhile the child reaps every git call it ran (no zombie under it after five turns).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { answer, call, text } from "../fixtures/chat-completions-server.js";
import { sandbox, TestChild } from "../helpers/child.js";
import { treeDigest } from "../helpers/tree-digest.js";
import { zombiesAfter } from "../helpers/zombies.js";
import { type Loose, recordsOf, runApproving } from "./tool-turns.js";
import { REVERT_CAPS, type TurnWorld, turnWorld } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function writingTurn(w: TurnWorld, n: number): Promise<string> {
  w.server.reply(
    answer({
      calls: [
        call("write_file", { path: `made-${n}.txt`, content: `turn ${n}\n` }, `w${n}`),
        call("edit_file", { path: "a.txt", old_text: `v${n - 1}`, new_text: `v${n}` }, `e${n}`),
      ],
    }),
    text("Done."),
  );
  const run = await runApproving(w.child, `turn ${n}`, "full_access", []);
  assert.equal(run.result.status, "completed");
  return run.result.turn_id;
}

/** The shadow repository's folder (the only one under MC_HOME/checkpoints). */
function shadowOf(home: string): string {
  const root = join(home, "checkpoints");
  const dirs = readdirSync(root).filter((name) => /^[0-9a-f]{32}$/.test(name));
  assert.equal(dirs.length, 1);
  return join(root, dirs[0] as string);
}

function git(shadow: string, ...args: string[]): string {
  return execFileSync("git", ["--git-dir", shadow, ...args], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  });
}

function refsOf(shadow: string): string[] {
  return git(shadow, "for-each-ref", "--format=%(refname)", "refs/mc/checkpoints/")
    .split("\n")
    .filter(Boolean)
    .sort();
}

/** Every path a checkpoint recorded. */
function recorded(shadow: string, ref: string): string[] {
  return git(shadow, "ls-tree", "-r", "--name-only", ref).split("\n").filter(Boolean);
}

function sha(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

test("MC_HOME and the cache root inside the workspace are never checkpointed nor reverted", async () => {
  const outer = sandbox("mc-store-in-ws-");
  const ws = outer.workspace;
  const home = join(ws, ".mc");
  const cacheRoot = join(ws, ".cache", "mc-agent");
  mkdirSync(home, { mode: 0o700 });
  mkdirSync(cacheRoot, { recursive: true });
  writeFileSync(join(ws, "a.txt"), "v0\n");
  writeFileSync(join(cacheRoot, "cached.bin"), "cache 0\n");
  const box = { ...outer, home };
  world = await turnWorld({
    box,
    capabilities: REVERT_CAPS,
    env: { MC_AGENT_CACHE_DIR: cacheRoot },
  });
  const initial = treeDigest(ws, [".mc", ".cache"]);

  // Another session's history, which no revert of this session may touch.
  const other: Loose = await world.child.call("session.create", {});
  await writingTurn(world, 1);
  const otherHistory = join(home, "sessions", `${other.session.id}.jsonl`);
  const otherDigest = sha(otherHistory);
  // That turn changed a.txt: the session under test starts from here.
  const start = treeDigest(ws, [".mc", ".cache"]);
  assert.notDeepEqual(start, initial);

  const { session } = await world.child.call("session.create", {});
  const shadow = shadowOf(home);
  const turns: string[] = [];
  const objects: number[] = [];
  for (let n = 2; n <= 6; n++) {
    turns.push(await writingTurn(world, n));
    // The cache changes between turns, as a store does (never a workspace change).
    writeFileSync(join(cacheRoot, "cached.bin"), `cache ${n}\n`);
    objects.push(Number(/^count: (\d+)$/m.exec(git(shadow, "count-objects", "-v"))?.[1]));
  }
  // Every git call of those checkpoints was reaped (issue 35, item 9): no zombie is left.
  assert.deepEqual(await zombiesAfter(world.child.pid as number), []);
  for (const ref of refsOf(shadow))
    for (const path of recorded(shadow, ref))
      assert.ok(!path.startsWith(".mc/") && !path.startsWith(".cache/"), `${ref} has ${path}`);
  // Each turn adds its own few objects (two files, trees, two commits), never the store's.
  for (let at = 1; at < objects.length; at++)
    assert.ok(
      (objects[at] as number) - (objects[at - 1] as number) <= 16,
      `objects per turn: ${objects.join(", ")}`,
    );

  // The last turn, not forced: the store changed meanwhile, the workspace did not.
  const last = await world.child.request(
    "turn.revert",
    { session_id: session.id, turn_id: turns.at(-1) },
    undefined,
    60_000,
  );
  assert.equal(last.result?.state, "reverted", JSON.stringify(last.error));
  assert.equal(last.result.workspace_changed, false);
  for (const file of last.result.files as Loose[])
    assert.ok(!file.path.startsWith(".mc/") && !file.path.startsWith(".cache/"), file.path);

  // Forced, to the session's first turn: the files are as they were, the store intact.
  const refs = refsOf(shadow);
  const forced = await world.child.request(
    "turn.revert",
    { session_id: session.id, turn_id: turns[0], force: true },
    undefined,
    60_000,
  );
  assert.equal(forced.result?.state, "reverted", JSON.stringify(forced.error));
  assert.deepEqual(treeDigest(ws, [".mc", ".cache"]), start);
  assert.equal(sha(otherHistory), otherDigest);
  assert.equal(readFileSync(join(cacheRoot, "cached.bin"), "utf8"), "cache 6\n");
  assert.deepEqual(refsOf(shadow), refs);
  assert.ok(existsSync(join(shadow, "index")), "the shadow index is there");
  assert.deepEqual(readdirSync(join(shadow, "reverts")), [], "no journal left");
  git(shadow, "fsck", "--no-progress", "--connectivity-only");
  const records = await recordsOf(world.child, session.id);
  assert.equal(records.filter((r: Loose) => r.type === "revert").length, 2);
});

test("a workspace inside MC_HOME gets no checkpoints (workspace_in_store), and turns still run", async () => {
  const outer = sandbox("mc-ws-in-store-");
  const ws = join(outer.home, "projects", "p");
  mkdirSync(ws, { recursive: true });
  world = await turnWorld({ box: { ...outer, workspace: ws }, capabilities: REVERT_CAPS });
  // The same child again, to read its initialize result.
  await world.child.close();
  world.child = new TestChild({
    cwd: ws,
    home: outer.home,
    testMethods: true,
    env: { DEMO_KEY: "sk-test-secret-key" },
  });
  const init: Loose = await world.child.initialize(REVERT_CAPS);
  assert.deepEqual(init.result.extensions.turn.checkpoints, {
    available: false,
    reason: "workspace_in_store",
  });
  await world.child.call("session.create", {});
  world.server.reply(
    answer({ calls: [call("write_file", { path: "x.txt", content: "x\n" }, "w1")] }),
    text("Done."),
  );
  const run = await runApproving(world.child, "write", "full_access", []);
  assert.equal(run.result.status, "completed");
  const started: Loose = run.events.find((e) => e.event.type === "turn_started")?.event;
  assert.equal(started.checkpoint, null);
  assert.ok(!existsSync(join(outer.home, "checkpoints")), "no shadow repository was made");
});

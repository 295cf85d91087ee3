/**
 * turn.revert through the real child: a turn's shell (`sed -i`, `rm`, `mkdir`, `chmod +x`,
 * `ln -s`) and file tools reverted byte for byte, modes and links included, in a git
 * workspace and a plain folder, the workspace's own `.git` untouched; two turns reverted to the
 * first; `workspace_changed` after an outside edit, then `force`; the dry run's diffs and pages;
 * refused while a turn runs; no git on PATH: turns run without checkpoints.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { answer, call, held, text } from "../fixtures/chat-completions-server.js";
import { treeSnapshot } from "../helpers/tree.js";
import { treeDigest } from "../helpers/tree-digest.js";
import { bodiesOf, type Loose, recordsOf, runApproving } from "./tool-turns.js";
import { REVERT_CAPS, startTurn, type TurnWorld, turnWorld } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function seed(ws: string, gitRepo: boolean) {
  writeFileSync(join(ws, "a.txt"), "one\ntwo\nthree\n");
  writeFileSync(join(ws, "data.txt"), "precious\n");
  writeFileSync(join(ws, "script.sh"), "#!/bin/sh\necho hi\n");
  mkdirSync(join(ws, "dir"));
  writeFileSync(join(ws, "dir/keep.txt"), "alpha\nbeta\n");
  writeFileSync(join(ws, ".gitignore"), "*.log\n");
  if (gitRepo) {
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: ws });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-qm", "seed");
  }
}

const MESS =
  "sed -i 's/two/TWO/' a.txt && rm data.txt && mkdir -p made/inner && chmod +x script.sh && ln -s a.txt link";

/** One full_access turn: the shell mess, a write and an edit. */
async function messyTurn(w: TurnWorld, input = "make a mess") {
  w.server.reply(
    answer({
      calls: [
        call("shell", { command: MESS }, "c1"),
        call("write_file", { path: "new/file.txt", content: "created\n" }, "c2"),
        call("edit_file", { path: "dir/keep.txt", old_text: "beta", new_text: "BETA" }, "c3"),
      ],
    }),
    text("Done."),
  );
  const run = await runApproving(w.child, input, "full_access", []);
  assert.equal(run.result.status, "completed");
  return run;
}

async function revert(w: TurnWorld, params: Record<string, unknown>): Promise<Loose> {
  return w.child.request("turn.revert", params, undefined, 60_000);
}

for (const gitRepo of [true, false]) {
  test(`a turn's shell and tool changes are reverted byte for byte (${gitRepo ? "git workspace" : "plain folder"})`, async () => {
    world = await turnWorld({ capabilities: REVERT_CAPS });
    const ws = world.box.workspace;
    seed(ws, gitRepo);
    const before = treeDigest(ws, [".git"]);
    const dotGit = gitRepo ? [treeSnapshot(join(ws, ".git")), treeDigest(join(ws, ".git"))] : [];
    const { session } = await world.child.call("session.create", {});
    const run = await messyTurn(world);
    const started: Loose = bodiesOf(run.events, "turn_started")[0];
    assert.match(started.checkpoint.id, /^c-[0-9a-f]{32}$/);
    assert.deepEqual(bodiesOf(run.events, "checkpoint_failed"), []);
    const records = await recordsOf(world.child, session.id);
    const end = records.find((r: Loose) => r.type === "turn_end");
    assert.equal(end.checkpoints.before, started.checkpoint.id);
    assert.match(end.checkpoints.after, /^c-/);
    assert.notDeepEqual(treeDigest(ws, [".git"]), before);

    const dry = await revert(world, {
      session_id: session.id,
      turn_id: run.result.turn_id,
      dry_run: true,
    });
    assert.equal(dry.result.state, "dry_run");
    assert.equal(dry.result.workspace_changed, false);
    const byPath = new Map(dry.result.files.map((f: Loose) => [f.path, f]));
    assert.equal((byPath.get("a.txt") as Loose).change, "restored");
    assert.match((byPath.get("a.txt") as Loose).diff, /-TWO\n\+two\n/);
    assert.equal((byPath.get("data.txt") as Loose).change, "recreated");
    assert.equal((byPath.get("new/file.txt") as Loose).change, "removed");
    assert.equal((byPath.get("link") as Loose).change, "removed");
    assert.match((byPath.get("script.sh") as Loose).diff, /old mode 100755\nnew mode 100644/);
    // The dry run changed nothing.
    assert.notDeepEqual(treeDigest(ws, [".git"]), before);

    const done = await revert(world, { session_id: session.id, turn_id: run.result.turn_id });
    assert.equal(done.result?.state, "reverted", JSON.stringify(done.error));
    assert.equal(done.result.turns_reverted, 1);
    assert.deepEqual(treeDigest(ws, [".git"]), before);
    if (gitRepo)
      assert.deepEqual([treeSnapshot(join(ws, ".git")), treeDigest(join(ws, ".git"))], dotGit);
    const after = await recordsOf(world.child, session.id);
    const record = after.at(-1);
    assert.equal(record.type, "revert");
    assert.equal(record.turn_id, run.result.turn_id);
    // The reverted turn stays in the history, and leaves the next turn's context.
    assert.ok(after.some((r: Loose) => r.type === "user_message" && r.text === "make a mess"));
    world.server.reply(text("Fresh start."));
    const next = await runApproving(world.child, "next question", "ask", []);
    assert.equal(next.result.status, "completed");
    const seen = JSON.stringify(world.server.requests.at(-1)?.body.messages);
    assert.ok(!seen.includes("make a mess"), seen);
    assert.ok(seen.includes("next question"));
    // Reverting it again: it is no longer a turn of the session's context.
    const again = await revert(world, { session_id: session.id, turn_id: run.result.turn_id });
    assert.equal(again.error?.code, "turn_missing");
  });
}

test("two turns reverted to the first; workspace_changed after an outside edit, then force", async () => {
  world = await turnWorld({ capabilities: REVERT_CAPS });
  const ws = world.box.workspace;
  seed(ws, false);
  const before = treeDigest(ws);
  const { session } = await world.child.call("session.create", {});
  const first = await messyTurn(world, "first");
  world.server.reply(
    answer({ calls: [call("write_file", { path: "a.txt", content: "rewritten\n" }, "d1")] }),
    text("Again."),
  );
  const second = await runApproving(world.child, "second", "full_access", []);
  assert.equal(second.result.status, "completed");
  writeFileSync(join(ws, "outside.txt"), "the user's own edit\n");

  const refused = await revert(world, { session_id: session.id, turn_id: first.result.turn_id });
  assert.equal(refused.error?.code, "workspace_changed");
  assert.ok(!refused.error.message.includes("outside.txt"));
  const dry = await revert(world, {
    session_id: session.id,
    turn_id: first.result.turn_id,
    dry_run: true,
  });
  assert.equal(dry.result.workspace_changed, true);
  assert.equal(dry.result.turns_reverted, 2);
  const outside = dry.result.files.find((f: Loose) => f.path === "outside.txt");
  assert.deepEqual([outside.change, outside.changed_outside], ["removed", true]);

  const forced = await revert(world, {
    session_id: session.id,
    turn_id: first.result.turn_id,
    force: true,
  });
  assert.equal(forced.result?.state, "reverted", JSON.stringify(forced.error));
  assert.equal(forced.result.turns_reverted, 2);
  assert.deepEqual(treeDigest(ws), before);
});

test("a dry run pages its diffs within page_bytes, with a cursor", async () => {
  world = await turnWorld({ capabilities: REVERT_CAPS });
  const ws = world.box.workspace;
  const line = (n: number) => `line ${n} ${"x".repeat(60)}\n`;
  for (let i = 0; i < 40; i++)
    writeFileSync(
      join(ws, `f${String(i).padStart(2, "0")}.txt`),
      Array.from({ length: 30 }, (_, n) => line(n)).join(""),
    );
  const { session } = await world.child.call("session.create", {});
  world.server.reply(
    answer({
      calls: [
        call("shell", { command: "for f in f*.txt; do sed -i 's/line/LINE/' $f; done" }, "s1"),
      ],
    }),
    text("Changed."),
  );
  const run = await runApproving(world.child, "shout", "full_access", []);
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page: Loose = await revert(world, {
      session_id: session.id,
      turn_id: run.result.turn_id,
      dry_run: true,
      ...(cursor ? { cursor } : {}),
    });
    assert.ok(page.result, JSON.stringify(page.error));
    const frame = JSON.stringify({ id: "x", result: page.result });
    assert.ok(Buffer.byteLength(frame) <= 32_768, `page of ${Buffer.byteLength(frame)} bytes`);
    for (const f of page.result.files) {
      assert.equal(f.change, "restored");
      assert.match(f.diff, /-LINE 0 /);
      seen.push(f.path);
    }
    cursor = page.result.cursor;
    pages++;
  } while (cursor !== null);
  assert.ok(pages > 1, "the diffs needed more than one page");
  assert.equal(seen.length, 40);
  assert.equal(new Set(seen).size, 40);
  // A cursor is of the workspace it was made from.
  const first: Loose = await revert(world, {
    session_id: session.id,
    turn_id: run.result.turn_id,
    dry_run: true,
  });
  writeFileSync(join(ws, "f00.txt"), "changed again\n");
  const stale = await revert(world, {
    session_id: session.id,
    turn_id: run.result.turn_id,
    dry_run: true,
    cursor: first.result.cursor,
  });
  assert.equal(stale.error?.code, "stale_revision");
});

test("a revert is refused while a turn runs (busy)", async () => {
  world = await turnWorld({ capabilities: REVERT_CAPS });
  const { session } = await world.child.call("session.create", {});
  world.server.reply(text("First."));
  const first = await runApproving(world.child, "first", "full_access", []);
  let release = () => {};
  const door = new Promise<void>((resolve) => {
    release = resolve;
  });
  world.server.reply(held(text("Slow reply"), 1, door));
  const turn = startTurn(world.child, "second", "full_access");
  await turn.event("turn_started");
  const refused = await revert(world, { session_id: session.id, turn_id: first.result.turn_id });
  assert.equal(refused.error?.code, "busy");
  release();
  await turn.response;
});

test("without git on PATH turns still run, with no checkpoint", async () => {
  world = await turnWorld({ capabilities: REVERT_CAPS, env: { PATH: "/nonexistent-bin" } });
  const { session } = await world.child.call("session.create", {});
  world.server.reply(text("No git here."));
  const run = await runApproving(world.child, "hello", "full_access", []);
  assert.equal(run.result.status, "completed");
  assert.equal((bodiesOf(run.events, "turn_started")[0] as Loose).checkpoint, null);
  const records = await recordsOf(world.child, session.id);
  assert.equal(records.find((r: Loose) => r.type === "turn_end").checkpoints, undefined);
  const refused = await revert(world, { session_id: session.id, turn_id: run.result.turn_id });
  assert.equal(refused.error?.code, "checkpoint_missing");
});

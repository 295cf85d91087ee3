/**
 * turn.revert with what git cannot record, through the real child (issue 35, items 10 and 11):
 * a FIFO where a recorded file or folder was is replaced by the revert (never
 * `internal_error`), with or without `force`; a turn that writes `*` to `.gitignore` and edits,
 * deletes and creates files is reverted whole, `.gitignore` included, twice in a row.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { answer, call, text } from "../fixtures/chat-completions-server.js";
import { treeDigest } from "../helpers/tree-digest.js";
import { bodiesOf, type Loose, runApproving } from "./tool-turns.js";
import { REVERT_CAPS, type TurnWorld, turnWorld } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function shellTurn(w: TurnWorld, command: string): Promise<string> {
  w.server.reply(answer({ calls: [call("shell", { command }, "s1")] }), text("Done."));
  const run = await runApproving(w.child, command, "full_access", []);
  assert.equal(run.result.status, "completed");
  assert.deepEqual(bodiesOf(run.events, "checkpoint_failed"), []);
  return run.result.turn_id;
}

function revert(w: TurnWorld, params: Record<string, unknown>): Promise<Loose> {
  return w.child.request("turn.revert", params, undefined, 60_000);
}

test("a FIFO where a recorded file or folder was is replaced by the revert, forced or not", async () => {
  world = await turnWorld({ capabilities: REVERT_CAPS });
  const ws = world.box.workspace;
  writeFileSync(join(ws, "a.txt"), "original\n");
  mkdirSync(join(ws, "dir"));
  writeFileSync(join(ws, "dir", "x.txt"), "inside\n");
  const before = treeDigest(ws);
  const { session } = await world.child.call("session.create", {});
  const first = await shellTurn(world, "rm a.txt && mkfifo a.txt && rm -r dir && mkfifo dir");
  const done = await revert(world, { session_id: session.id, turn_id: first });
  assert.equal(done.result?.state, "reverted", JSON.stringify(done.error));
  assert.deepEqual(treeDigest(ws), before);

  // A FIFO put there outside the session's turns: workspace_changed, then force replaces it.
  const second = await shellTurn(world, "echo changed > a.txt");
  rmSync(join(ws, "a.txt"));
  execFileSync("mkfifo", [join(ws, "a.txt")]);
  const refused = await revert(world, { session_id: session.id, turn_id: second });
  assert.equal(refused.error?.code, "workspace_changed", JSON.stringify(refused));
  const forced = await revert(world, { session_id: session.id, turn_id: second, force: true });
  assert.equal(forced.result?.state, "reverted", JSON.stringify(forced.error));
  assert.deepEqual(treeDigest(ws), before);
});

test("a turn that writes `*` to .gitignore is reverted whole, .gitignore included, twice", async () => {
  world = await turnWorld({ capabilities: REVERT_CAPS });
  const ws = world.box.workspace;
  writeFileSync(join(ws, "keep.txt"), "keep\n");
  writeFileSync(join(ws, "edit.txt"), "original\n");
  writeFileSync(join(ws, "gone.txt"), "will be deleted\n");
  const before = treeDigest(ws);
  const { session } = await world.child.call("session.create", {});
  const MESS =
    "echo '*' > .gitignore && echo edited > edit.txt && rm gone.txt && echo new > new.txt";
  for (const round of [1, 2]) {
    const turn = await shellTurn(world, MESS);
    assert.equal(readFileSync(join(ws, ".gitignore"), "utf8"), "*\n");
    const done = await revert(world, { session_id: session.id, turn_id: turn, force: true });
    assert.equal(done.result?.state, "reverted", `round ${round}: ${JSON.stringify(done.error)}`);
    assert.ok(!existsSync(join(ws, ".gitignore")), `round ${round}: .gitignore removed`);
    assert.deepEqual(treeDigest(ws), before, `round ${round}`);
    const byPath = new Map(done.result.files.map((f: Loose) => [f.path, f.change]));
    assert.deepEqual(
      Object.fromEntries([...byPath].sort()),
      {
        ".gitignore": "removed",
        "edit.txt": "restored",
        "gone.txt": "recreated",
        "new.txt": "removed",
      },
      `round ${round}`,
    );
  }
});

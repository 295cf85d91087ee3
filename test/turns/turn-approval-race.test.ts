/**
 * A path swapped while its approval waits (issue 17, defect 2), through the real child: the
 * approval shows a path inside the workspace; while it waits, a folder on that path becomes a
 * symlink out of the workspace or into `.git/`; the user allows once. Confinement runs again at
 * execution, so nothing is written outside or under `.git/`, the call is a failed tool result
 * the model is told about, and the turn goes on.
 */
import assert from "node:assert/strict";
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { answer, type CallSpec, text } from "../fixtures/chat-completions-server.js";
import { bodiesOf, resultText } from "./tool-turns.js";
import { finishTurn, startTurn, type TurnWorld, turnWorld } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const CALL_ID = "c_race";

/**
 * A turn under `ask` whose model makes `call`; `swap` runs while its approval waits, then the
 * user allows once. Returns the approval, the call's tool_done and what the model was told.
 */
async function raceTurn(w: TurnWorld, call: Omit<CallSpec, "id">, swap: () => void) {
  await w.child.call("session.create", {});
  w.server.reply(answer({ calls: [{ ...call, id: CALL_ID }] }), text("Noted."));
  const turn = startTurn(w.child, "write it", "ask");
  const asked = await turn.event("approval_requested", undefined, 60_000);
  swap();
  const reply = await w.child.request("turn.approve", {
    approval_id: asked.event.approval_id,
    decision: "allow_once",
  });
  assert.equal((reply.result as { state: string }).state, "applied");
  const { result, events } = await finishTurn(w.child, turn);
  assert.equal(result.status, "completed", "a refused call does not fail the turn");
  assert.equal(result.stop_reason, "end_turn");
  assert.equal(bodiesOf(events, "message_done").at(-1)?.text, "Noted.", "the turn went on");
  const dones = bodiesOf(events, "tool_done");
  assert.equal(dones.length, 1);
  assert.equal(dones[0].status, "failed");
  return { asked: asked.event, told: resultText(w.server.requests[1], CALL_ID) };
}

/** Replaces the folder `ws/name` by a symlink to `target` (the user's swap). */
function swapForLink(ws: string, name: string, target: string): void {
  rmSync(join(ws, name), { recursive: true });
  symlinkSync(target, join(ws, name));
}

/** The names under `folder`, recursively, sorted (`a/b.txt`). */
function tree(folder: string): string[] {
  return (readdirSync(folder, { recursive: true }) as string[]).sort();
}

describe("turns: a path swapped while its approval waits", () => {
  test("a new file's folder swapped for a symlink out: nothing is written outside", async () => {
    world = await turnWorld();
    const { root, workspace: ws } = world.box;
    const outside = join(root, "outside");
    mkdirSync(outside);
    mkdirSync(join(ws, "sub"));
    const { asked, told } = await raceTurn(
      world,
      { name: "write_file", input: { path: "sub/new.txt", content: "escaped\n" } },
      () => swapForLink(ws, "sub", outside),
    );
    assert.equal(asked.title, "Create sub/new.txt");
    assert.equal(asked.path, "sub/new.txt");
    assert.deepEqual(tree(outside), [], "nothing written outside, no temp file either");
    assert.equal(told, "sub/new.txt resolves outside the workspace");
    assert.ok(!told.includes(root), "no host path is told");
  });

  test("a folder swapped for a symlink to .git: no hook is created", async () => {
    world = await turnWorld();
    const ws = world.box.workspace;
    mkdirSync(join(ws, ".git", "hooks"), { recursive: true });
    writeFileSync(join(ws, ".git", "HEAD"), "ref: refs/heads/main\n");
    mkdirSync(join(ws, "sub", "hooks"), { recursive: true });
    const { asked, told } = await raceTurn(
      world,
      { name: "write_file", input: { path: "sub/hooks/pre-commit", content: "#!/bin/sh\n" } },
      () => swapForLink(ws, "sub", join(ws, ".git")),
    );
    assert.equal(asked.title, "Create sub/hooks/pre-commit");
    assert.deepEqual(tree(join(ws, ".git")), ["HEAD", "hooks"], ".git is untouched");
    assert.equal(told, "sub/hooks/pre-commit: writes under .git/ and .mc/ are refused");
  });

  test("a missing parent that becomes a symlink out while waiting: nothing is written outside", async () => {
    world = await turnWorld();
    const { root, workspace: ws } = world.box;
    const outside = join(root, "outside");
    mkdirSync(join(outside, "b"), { recursive: true });
    const { asked, told } = await raceTurn(
      world,
      { name: "write_file", input: { path: "a/b/new.txt", content: "escaped\n" } },
      () => symlinkSync(outside, join(ws, "a")),
    );
    assert.equal(asked.title, "Create a/b/new.txt");
    assert.deepEqual(tree(outside), ["b"]);
    assert.equal(told, "a/b/new.txt resolves outside the workspace");
  });

  test("a replaced file's folder swapped for a symlink to a copy outside: the copy is kept", async () => {
    world = await turnWorld();
    const { root, workspace: ws } = world.box;
    const outside = join(root, "outside");
    mkdirSync(outside);
    mkdirSync(join(ws, "sub"));
    // The same content outside: the "changed while waiting" check alone cannot tell them apart.
    writeFileSync(join(ws, "sub", "f.txt"), "same\n");
    writeFileSync(join(outside, "f.txt"), "same\n");
    const { asked, told } = await raceTurn(
      world,
      { name: "write_file", input: { path: "sub/f.txt", content: "escaped\n" } },
      () => swapForLink(ws, "sub", outside),
    );
    assert.equal(asked.title, "Write sub/f.txt");
    assert.equal(readFileSync(join(outside, "f.txt"), "utf8"), "same\n");
    assert.deepEqual(tree(outside), ["f.txt"]);
    assert.equal(told, "sub/f.txt resolves outside the workspace");
  });

  test("edit_file whose folder is swapped for a symlink to a copy outside: the copy is kept", async () => {
    world = await turnWorld();
    const { root, workspace: ws } = world.box;
    const outside = join(root, "outside");
    mkdirSync(outside);
    mkdirSync(join(ws, "sub"));
    writeFileSync(join(ws, "sub", "e.txt"), "keep me\n");
    writeFileSync(join(outside, "e.txt"), "keep me\n");
    const { asked, told } = await raceTurn(
      world,
      { name: "edit_file", input: { path: "sub/e.txt", old_text: "keep", new_text: "lost" } },
      () => swapForLink(ws, "sub", outside),
    );
    assert.equal(asked.title, "Edit sub/e.txt");
    assert.equal(readFileSync(join(outside, "e.txt"), "utf8"), "keep me\n");
    assert.deepEqual(tree(outside), ["e.txt"]);
    assert.equal(told, "sub/e.txt resolves outside the workspace");
  });

  test("a folder moved away and replaced by a symlink to another inside folder: refused, not redirected", async () => {
    world = await turnWorld();
    const ws = world.box.workspace;
    mkdirSync(join(ws, "sub"));
    mkdirSync(join(ws, "other"));
    const { told } = await raceTurn(
      world,
      { name: "write_file", input: { path: "sub/new.txt", content: "x\n" } },
      () => {
        renameSync(join(ws, "sub"), join(ws, "moved"));
        symlinkSync(join(ws, "other"), join(ws, "sub"));
      },
    );
    // The approval named sub/new.txt; it now resolves to other/new.txt, which nobody approved.
    assert.equal(told, "sub/new.txt changed since this edit was prepared; read it again");
    assert.deepEqual(tree(join(ws, "other")), []);
    assert.deepEqual(tree(join(ws, "moved")), []);
  });
});

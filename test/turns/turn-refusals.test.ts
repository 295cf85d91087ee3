import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  closeSync,
  mkdirSync,
  openSync,
  rmdirSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { afterEach, describe, test } from "node:test";
import { text, toolCall } from "../fixtures/chat-completions-server.js";
import { treeSnapshot } from "../helpers/tree.js";
import { cacheFile } from "../models/fixtures.js";
import {
  answersTo,
  assertInterrupted,
  historyPath,
  interruptTurn,
  isLock,
  lockPath,
  recordsOf,
  savedSession,
  stalledTurn,
  storeDigest,
  within,
} from "./turn-control-fixtures.js";
import { runTurn, startTurn, type TurnWorld, turnWorld } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** turn.start is refused with `code`, and neither MC_HOME nor the workspace changed. */
async function refusedUnchanged(
  w: TurnWorld,
  code: string,
  params: unknown = { input: "Do something" },
): Promise<void> {
  const before = storeDigest(w.box);
  const entries = [treeSnapshot(w.box.home), treeSnapshot(w.box.workspace)];
  const calls = w.server.requests.length;
  assert.equal(await w.child.errorCode("turn.start", params), code);
  assert.deepEqual(storeDigest(w.box), before, `${code}: nothing is written`);
  // Not even a lock made and removed again: folders keep their mtimes.
  assert.deepEqual(
    [treeSnapshot(w.box.home), treeSnapshot(w.box.workspace)],
    entries,
    `${code}: no entry is created or removed`,
  );
  assert.equal(w.server.requests.length, calls, "the model is never called");
}

/** Rewrites the saved history line by line. */
function rewriteHistory(w: TurnWorld, id: string, edit: (lines: string[]) => string[]): void {
  const lines = recordsOf(w.box, id).map((r) => JSON.stringify(r));
  writeFileSync(historyPath(w.box, id), `${edit(lines).join("\n")}\n`);
}

describe("turns: refusals before anything is written", () => {
  test("attachment_required: no session created or opened", async () => {
    world = await turnWorld();
    await refusedUnchanged(world, "attachment_required");
  });

  test("model_unavailable: no selection", async () => {
    world = await turnWorld({ model: null });
    const status = await world.child.request("status", {});
    assert.equal((status.result as { selection: { model: unknown } }).selection.model, null);
    await world.child.call("session.create", {});
    await refusedUnchanged(world, "model_unavailable");
  });

  test("model_unavailable: the selected model's cache was removed after start", async () => {
    world = await turnWorld();
    await world.child.call("session.create", {});
    rmSync(cacheFile(world.box, "demo"));
    await refusedUnchanged(world, "model_unavailable");
  });

  test("authentication_unavailable: a keyed custom provider whose key variable is unset", async () => {
    world = await turnWorld({ child: { env: { DEMO_KEY: undefined } } });
    await world.child.call("session.create", {});
    await refusedUnchanged(world, "authentication_unavailable");
  });

  test("session_locked: another live process holds the writer lock; a dead one is taken over", async () => {
    world = await turnWorld();
    const id = await savedSession(world);
    const holder = spawn("sleep", ["60"], { stdio: "ignore" });
    const gone = new Promise((resolve) => holder.on("exit", resolve));
    try {
      const lock = { pid: holder.pid, renewed_at: new Date().toISOString() };
      writeFileSync(lockPath(world.box, id), `${JSON.stringify(lock)}\n`);
      await refusedUnchanged(world, "session_locked");
    } finally {
      holder.kill("SIGKILL");
      await within(gone, "the holder to exit");
    }
    // The same lock, now of a dead process, is taken over by the next turn and removed after.
    world.server.reply(text("Taken over."));
    const { result } = await runTurn(world.child, "Go on");
    assert.equal(result.status, "completed");
    assert.ok(!storeDigest(world.box).has(lockPath(world.box, id)), "the lock is removed");
  });

  test("session_locked comes before session_invalid, and a foreign entry as the lock is locked", async () => {
    world = await turnWorld();
    const id = await savedSession(world);
    rewriteHistory(world, id, (lines) => [lines[0] as string, "{not json", ...lines.slice(1)]);
    mkdirSync(lockPath(world.box, id));
    await refusedUnchanged(world, "session_locked");
    rmdirSync(lockPath(world.box, id));
    await refusedUnchanged(world, "session_invalid");
  });

  test("session_invalid: a bad line appeared in the saved history after open", async () => {
    world = await turnWorld();
    const id = await savedSession(world);
    rewriteHistory(world, id, (lines) => [lines[0] as string, "{not json", ...lines.slice(1)]);
    await refusedUnchanged(world, "session_invalid");
  });

  test("session_invalid: a record changed in place after a turn, the history's length kept", async () => {
    world = await turnWorld();
    const id = await savedSession(world);
    // The next admission is past the last one's memo of the history: it must read it again.
    world.server.reply(text("Again."));
    assert.equal((await runTurn(world.child, "Once more")).result.status, "completed");
    const fd = openSync(historyPath(world.box, id), "r+");
    try {
      writeSync(fd, "#", 0);
    } finally {
      closeSync(fd);
    }
    await refusedUnchanged(world, "session_invalid");
  });

  test("cwd_mismatch: the saved history now names another workspace", async () => {
    world = await turnWorld();
    const id = await savedSession(world);
    rewriteHistory(world, id, (lines) =>
      lines.map((line) => {
        const record = JSON.parse(line);
        if (record.cwd !== undefined) record.cwd = "/somewhere/else";
        return JSON.stringify(record);
      }),
    );
    await refusedUnchanged(world, "cwd_mismatch");
  });

  test("session_missing: the saved history was removed after open", async () => {
    world = await turnWorld();
    const id = await savedSession(world);
    rmSync(historyPath(world.box, id));
    await refusedUnchanged(world, "session_missing");
    assert.ok(![...storeDigest(world.box).keys()].some(isLock), "no lock is left behind");
  });

  test("invalid_params: empty, unknown field, bad permissions, input_bytes at and past the bound", async () => {
    world = await turnWorld();
    await world.child.call("session.create", {});
    const bad = [
      { input: "" },
      {},
      { input: "hi", extra: true },
      { input: "hi", permissions: "root" },
      { input: "hi", permissions: null },
      { input: 7 },
      // 131073 characters, but 262146 bytes: the bound is on UTF-8 bytes.
      { input: "é".repeat(131_073) },
      { input: `${"é".repeat(131_072)}a` },
    ];
    for (const params of bad) await refusedUnchanged(world, "invalid_params", params);
    // Exactly input_bytes (262144 bytes of two-byte characters) is admitted.
    const atBound = "é".repeat(131_072);
    world.server.reply(text("That is long."));
    const { result } = await runTurn(world.child, atBound);
    assert.equal(result.status, "completed");
    assert.equal(world.server.requests[0]?.body.messages.at(-1).content, atBound);
  });

  test("child_exhausted: a turn.start past the child's request bound", async () => {
    world = await turnWorld();
    const { child } = world;
    await child.call("session.create", {});
    const status = await child.request("status", {});
    const left = (status.result as { requests_left: number }).requests_left;
    // Each filler is admitted and counted (and answered turn_missing).
    const filler = (i: number) =>
      `${JSON.stringify({ id: `fill-${i}`, method: "turn.interrupt", params: { request_id: "x" } })}\n`;
    const last = child.waitFor((f) => f.id === `fill-${left - 1}`, 60_000);
    await child.sendBytes(Buffer.from(Array.from({ length: left }, (_, i) => filler(i)).join("")));
    assert.equal((await last).error?.code, "turn_missing");
    await refusedUnchanged(world, "child_exhausted");
  });
});

describe("turns: busy rules while a turn runs", () => {
  test("worker methods are busy; status, listings, history and the catalog answer beside it", async () => {
    world = await turnWorld();
    const { child } = world;
    const { session } = await child.call("session.create", {});
    const turn = await stalledTurn(world);
    // The running turn's own checkpoint (MC_HOME/checkpoints) is written beside the refusals.
    // It is written in the background (a temporary folder renamed into place), so the walk
    // never enters that folder: a file could vanish between listing it and reading it.
    const ours = (path: string) => isLock(path) || path.endsWith("/checkpoints");
    const before = storeDigest(world.box, ours);
    // Answered beside the running turn.
    const catalog = await child.call("model.catalog", {});
    const status = await child.request("status", {});
    const running = status.result as { worker: string; active_requests: { id: string }[] };
    assert.equal(running.worker, "busy");
    assert.deepEqual(
      running.active_requests.map((r) => r.id),
      [turn.id],
    );
    const list = await child.call("session.list", {});
    assert.deepEqual(
      list.sessions.map((s) => [s.id, s.busy]),
      [[session.id, true]],
    );
    const history = await child.call("session.history", { id: session.id });
    assert.deepEqual(
      history.events.map((e) => e.type),
      ["session_meta", "turn_start", "user_message"],
    );
    // Refused at once, nothing queued.
    assert.equal(await child.errorCode("turn.start", { input: "A second turn" }), "busy");
    assert.equal(
      await child.errorCode("model.select", {
        model: "demo/demo-1",
        effort: "high",
        catalog_revision: catalog.revision,
      }),
      "busy",
    );
    assert.equal(await child.errorCode("model.refresh", { provider: "demo" }), "busy");
    assert.equal(await child.errorCode("session.open", { id: session.id }), "busy");
    assert.equal(await child.errorCode("session.create", {}), "busy");
    assert.deepEqual(storeDigest(world.box, ours), before, "the busy refusals wrote nothing");
    assertInterrupted((await interruptTurn(child, turn)).result);
    // Nothing was queued: the worker is free, the selection unchanged, one model call made.
    assert.equal(world.server.requests.length, 1);
    const after = await child.request("status", {});
    assert.equal((after.result as { worker: string }).worker, "idle");
    assert.equal((after.result as { selection: { effort: unknown } }).selection.effort, null);
    await child.call("session.create", {});
  });

  test("shutting_down: a turn.start after shutdown began is refused, the running turn still answers", async () => {
    world = await turnWorld();
    const { child } = world;
    await child.call("session.create", {});
    const turn = await stalledTurn(world);
    const stopped = child.request("shutdown", {});
    assert.equal(await child.errorCode("turn.start", { input: "Too late" }), "shutting_down");
    const frame = await turn.response;
    assertInterrupted(frame.result as never);
    assert.deepEqual((await stopped).result, { state: "stopped" });
    assert.equal((await within(child.exited, "the exit")).code, 0);
  });

  test("operation.cancel naming a running turn is operation_missing; the turn goes on", async () => {
    world = await turnWorld();
    const { child } = world;
    await child.call("session.create", {});
    const turn = await stalledTurn(world);
    assert.equal(
      await child.errorCode("operation.cancel", { request_id: turn.id }),
      "operation_missing",
    );
    const status = await child.request("status", {});
    assert.deepEqual(
      (status.result as { active_requests: { id: string }[] }).active_requests.map((r) => r.id),
      [turn.id],
    );
    assert.equal(answersTo(child, turn.id).length, 0, "the turn was not answered");
    assertInterrupted((await interruptTurn(child, turn)).result);
  });

  test("turn.interrupt of an unknown or finished turn is turn_missing", async () => {
    world = await turnWorld();
    const { child } = world;
    await child.call("session.create", {});
    assert.equal(await child.errorCode("turn.interrupt", { request_id: "nope" }), "turn_missing");
    world.server.reply(text("Done."));
    const turn = startTurn(child, "Quick one");
    await turn.response;
    assert.equal(await child.errorCode("turn.interrupt", { request_id: turn.id }), "turn_missing");
    assert.equal(await child.errorCode("turn.interrupt", {}), "invalid_params");
  });

  test("turn.approve of an unknown or already decided approval is approval_missing", async () => {
    world = await turnWorld();
    const { child, server } = world;
    await child.call("session.create", {});
    assert.equal(
      await child.errorCode("turn.approve", { approval_id: "a-unknown", decision: "deny" }),
      "approval_missing",
    );
    server.reply(toolCall("shell", { command: "sleep 30" }));
    const turn = startTurn(child, "Wait a while", "ask");
    const asked = await turn.event("approval_requested");
    const approvalId = asked.event.approval_id as string;
    const applied = await child.request("turn.approve", {
      approval_id: approvalId,
      decision: "allow_once",
    });
    assert.deepEqual(applied.result, {
      approval_id: approvalId,
      decision: "allow_once",
      state: "applied",
    });
    // The turn still runs (the command sleeps), but the approval is decided.
    await turn.event("approval_resolved");
    for (const decision of ["allow_once", "deny", "allow_session"])
      assert.equal(
        await child.errorCode("turn.approve", { approval_id: approvalId, decision }),
        "approval_missing",
      );
    assert.equal(
      await child.errorCode("turn.approve", { approval_id: approvalId, decision: "maybe" }),
      "invalid_params",
    );
    assertInterrupted((await interruptTurn(child, turn)).result);
  });
});

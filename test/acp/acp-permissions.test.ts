import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import { text, toolCall } from "../../src/conformance/chat-server.js";
import { AcpWorld } from "./acp-world.js";

/**
 * Our approvals as session/request_permission, answered by the SDK's client: allow_once, then
 * allow_always (the next edit is not asked about), then reject_once (the command does not run).
 */
describe("mc-agent acp: permissions", () => {
  let world: AcpWorld;
  afterEach(async () => {
    await world?.close();
  });

  it("maps allow_once, allow_always and reject_once onto our decisions", async () => {
    world = await AcpWorld.start();
    await world.initialize();
    const { sessionId } = await world.newSession();
    const permissions = () => world.seen.filter((s) => s.kind === "permission").length;
    const ws = world.box.workspace;

    world.permission = () => ({ outcome: { outcome: "selected", optionId: "allow_once" } });
    world.server.reply(
      toolCall("write_file", { path: "a.txt", content: "one\n" }),
      text("Wrote a."),
    );
    assert.equal((await world.prompt(sessionId, "write a")).stopReason, "end_turn");
    assert.equal(readFileSync(join(ws, "a.txt"), "utf8"), "one\n");
    assert.equal(permissions(), 1);
    const asked = world.seen.find((s) => s.kind === "permission");
    assert.ok(asked?.kind === "permission");
    assert.deepEqual(
      asked.request.options.map((o) => o.kind),
      ["allow_once", "allow_always", "reject_once"],
    );
    assert.equal(asked.request.toolCall.kind, "edit");
    assert.deepEqual(asked.request.toolCall.locations, [{ path: join(ws, "a.txt") }]);
    assert.deepEqual(asked.request.toolCall.content?.[0], {
      type: "diff",
      path: join(ws, "a.txt"),
      oldText: null,
      newText: "one\n",
    });
    const call = world.updates("tool_call")[0];
    assert.ok(call?.sessionUpdate === "tool_call");
    assert.equal(call.kind, "edit");
    assert.equal(call.status, "pending");
    const done = world.updates("tool_call_update").at(-1);
    assert.ok(done?.sessionUpdate === "tool_call_update");
    assert.equal(done.toolCallId, call.toolCallId);
    assert.equal(done.status, "completed");
    assert.equal(done.content?.[0]?.type, "diff");

    world.permission = () => ({ outcome: { outcome: "selected", optionId: "allow_always" } });
    world.server.reply(
      toolCall("write_file", { path: "b.txt", content: "two\n" }),
      text("Wrote b."),
    );
    assert.equal((await world.prompt(sessionId, "write b")).stopReason, "end_turn");
    assert.equal(permissions(), 2);
    assert.ok(existsSync(join(ws, "b.txt")));

    // Always allowed for this session: the next edit runs without asking.
    world.permission = () => assert.fail("asked again after allow_always");
    world.server.reply(
      toolCall("write_file", { path: "c.txt", content: "three\n" }),
      text("Wrote c."),
    );
    assert.equal((await world.prompt(sessionId, "write c")).stopReason, "end_turn");
    assert.equal(permissions(), 2);
    assert.ok(existsSync(join(ws, "c.txt")));

    // A command is another kind: asked, rejected, never run.
    world.permission = () => ({ outcome: { outcome: "selected", optionId: "reject_once" } });
    world.server.reply(toolCall("shell", { command: "echo ran > d.txt" }), text("It was refused."));
    assert.equal((await world.prompt(sessionId, "run it")).stopReason, "end_turn");
    assert.equal(permissions(), 3);
    assert.equal(existsSync(join(ws, "d.txt")), false);
    const rejected = world.updates("tool_call_update").at(-1);
    assert.ok(rejected?.sessionUpdate === "tool_call_update");
    assert.equal(rejected.status, "failed");
    const shellCall = world.updates("tool_call").at(-1);
    assert.ok(shellCall?.sessionUpdate === "tool_call");
    assert.equal(shellCall.kind, "execute");
  });

  it("a cancelled permission outcome interrupts the turn: the prompt answers cancelled", async () => {
    world = await AcpWorld.start();
    await world.initialize();
    const { sessionId } = await world.newSession();
    world.permission = () => ({ outcome: { outcome: "cancelled" } });
    world.server.reply(toolCall("write_file", { path: "a.txt", content: "one\n" }), text("never"));
    assert.equal((await world.prompt(sessionId, "write a")).stopReason, "cancelled");
    assert.equal(existsSync(join(world.box.workspace, "a.txt")), false);
    assert.equal(world.seen.at(-1)?.kind, "response");
  });
});

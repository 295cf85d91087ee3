import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import { text, toolCall } from "../../src/conformance/chat-server.js";
import { AcpWorld } from "./acp-world.js";

/**
 * What the client saw of one tool call, in order: its `tool_call` and `tool_call_update`
 * statuses and the permission request about it.
 */
function callTrail(world: AcpWorld, toolCallId: string): string[] {
  return world.seen.flatMap((s) => {
    if (s.kind === "permission")
      return s.request.toolCall.toolCallId === toolCallId ? ["permission"] : [];
    if (s.kind !== "update") return [];
    const update = s.notification.update;
    if (update.sessionUpdate === "tool_call" && update.toolCallId === toolCallId)
      return [`call:${update.status}`];
    if (update.sessionUpdate === "tool_call_update" && update.toolCallId === toolCallId)
      return [`update:${update.status}`];
    return [];
  });
}

/**
 * Our approvals as session/request_permission, answered by the SDK's client: allow_once, then
 * allow_session (the next edit of this session is not asked about, another session's is),
 * reject_once (the command does not run); allow_always and deny_always keep a workspace rule a
 * new `mc-agent acp` process still applies; a compound command offers no lasting option.
 */
describe("mc-agent acp: permissions", () => {
  let world: AcpWorld;
  afterEach(async () => {
    await world?.close();
  });

  it("maps allow_once, allow_session and reject_once onto our decisions", async () => {
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
      asked.request.options.map((o) => [o.optionId, o.kind]),
      [
        ["allow_once", "allow_once"],
        ["allow_session", "allow_always"],
        ["allow_always", "allow_always"],
        ["deny_always", "reject_always"],
        ["reject_once", "reject_once"],
      ],
    );
    assert.equal(asked.request.options[1]?.name, "Allow every edit for this session");
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
    // Pending while asked; in progress once allowed and running; then done.
    assert.deepEqual(callTrail(world, call.toolCallId), [
      "call:pending",
      "permission",
      "update:in_progress",
      "update:completed",
    ]);

    world.permission = () => ({ outcome: { outcome: "selected", optionId: "allow_session" } });
    world.server.reply(
      toolCall("write_file", { path: "b.txt", content: "two\n" }),
      text("Wrote b."),
    );
    assert.equal((await world.prompt(sessionId, "write b")).stopReason, "end_turn");
    assert.equal(permissions(), 2);
    assert.ok(existsSync(join(ws, "b.txt")));

    // Allowed for this session: the next edit runs without asking.
    world.permission = () => assert.fail("asked again after allow_session");
    world.server.reply(
      toolCall("write_file", { path: "c.txt", content: "three\n" }),
      text("Wrote c."),
    );
    assert.equal((await world.prompt(sessionId, "write c")).stopReason, "end_turn");
    assert.equal(permissions(), 2);
    assert.ok(existsSync(join(ws, "c.txt")));
    const unasked = world.updates("tool_call").at(-1);
    assert.ok(unasked?.sessionUpdate === "tool_call");
    assert.deepEqual(callTrail(world, unasked.toolCallId), [
      "call:pending",
      "update:in_progress",
      "update:completed",
    ]);
    assert.equal(existsSync(join(world.box.home, "rules")), false, "a session rule is not saved");

    // Another ACP session is another attachment: it has no session rule and asks again.
    const other = await world.newSession();
    world.permission = () => ({ outcome: { outcome: "selected", optionId: "allow_once" } });
    world.server.reply(
      toolCall("write_file", { path: "o.txt", content: "other\n" }),
      text("Wrote o."),
    );
    assert.equal((await world.prompt(other.sessionId, "write o")).stopReason, "end_turn");
    assert.equal(permissions(), 3);
    assert.ok(existsSync(join(ws, "o.txt")));

    // A command is another kind: asked, rejected, never run.
    world.permission = () => ({ outcome: { outcome: "selected", optionId: "reject_once" } });
    world.server.reply(toolCall("shell", { command: "echo ran > d.txt" }), text("It was refused."));
    assert.equal((await world.prompt(sessionId, "run it")).stopReason, "end_turn");
    assert.equal(permissions(), 4);
    assert.equal(existsSync(join(ws, "d.txt")), false);
    const rejected = world.updates("tool_call_update").at(-1);
    assert.ok(rejected?.sessionUpdate === "tool_call_update");
    assert.equal(rejected.status, "failed");
    const shellCall = world.updates("tool_call").at(-1);
    assert.ok(shellCall?.sessionUpdate === "tool_call");
    assert.equal(shellCall.kind, "execute");
    // Rejected: it never ran, so it was never in progress.
    assert.deepEqual(callTrail(world, shellCall.toolCallId), [
      "call:pending",
      "permission",
      "update:failed",
    ]);
  });

  it("allow_always keeps a workspace rule: a new acp process runs the command unasked", async () => {
    world = await AcpWorld.start();
    await world.initialize();
    const first = await world.newSession();
    const ws = world.box.workspace;
    world.permission = () => ({ outcome: { outcome: "selected", optionId: "allow_always" } });
    world.server.reply(toolCall("shell", { command: "touch kept.txt" }), text("Touched."));
    assert.equal((await world.prompt(first.sessionId, "touch it")).stopReason, "end_turn");
    assert.ok(existsSync(join(ws, "kept.txt")));
    const asked = world.seen.find((s) => s.kind === "permission");
    assert.ok(asked?.kind === "permission");
    assert.equal(asked.request.toolCall.kind, "execute");
    assert.deepEqual(
      asked.request.options.map((o) => o.name),
      [
        "Allow once",
        "Allow `touch` for this session",
        "Always allow `touch` in this workspace",
        "Always reject `touch`",
        "Reject",
      ],
    );
    assert.equal(readdirSync(join(world.box.home, "rules")).length, 1, "the rule is kept");

    // A new process, the same home and workspace: the kept rule allows a matching command.
    const { box, server } = world;
    world.proc.stdin.end();
    await world.exited;
    world = await AcpWorld.start({ box, server });
    await world.initialize();
    const second = await world.newSession();
    world.permission = () => assert.fail("asked again after allow_always");
    world.server.reply(toolCall("shell", { command: "touch again.txt" }), text("Touched."));
    assert.equal((await world.prompt(second.sessionId, "touch more")).stopReason, "end_turn");
    assert.ok(existsSync(join(ws, "again.txt")));
    assert.equal(world.seen.filter((s) => s.kind === "permission").length, 0);
  });

  it("deny_always keeps a refusal: the next matching command is refused without asking", async () => {
    world = await AcpWorld.start();
    await world.initialize();
    const ws = world.box.workspace;
    const { sessionId } = await world.newSession();
    world.permission = () => ({ outcome: { outcome: "selected", optionId: "deny_always" } });
    world.server.reply(toolCall("shell", { command: "touch no.txt" }), text("Refused."));
    assert.equal((await world.prompt(sessionId, "touch it")).stopReason, "end_turn");
    assert.equal(existsSync(join(ws, "no.txt")), false);
    assert.equal(world.seen.filter((s) => s.kind === "permission").length, 1);

    // A later session: the workspace's deny rule refuses it, no permission request.
    const later = await world.newSession();
    world.permission = () => assert.fail("asked after deny_always");
    world.server.reply(toolCall("shell", { command: "touch nope.txt" }), text("Refused."));
    assert.equal((await world.prompt(later.sessionId, "touch again")).stopReason, "end_turn");
    assert.equal(existsSync(join(ws, "nope.txt")), false);
    assert.equal(world.seen.filter((s) => s.kind === "permission").length, 1);
    const refused = world.updates("tool_call_update").at(-1);
    assert.ok(refused?.sessionUpdate === "tool_call_update");
    assert.equal(refused.status, "failed");
  });

  it("a compound command offers only once or reject; an unoffered lasting answer denies", async () => {
    world = await AcpWorld.start();
    await world.initialize();
    const ws = world.box.workspace;
    const { sessionId } = await world.newSession();
    // A client answering an option it was not offered gets `deny`: nothing is kept or run.
    world.permission = () => ({ outcome: { outcome: "selected", optionId: "allow_always" } });
    world.server.reply(
      toolCall("shell", { command: "touch x.txt && touch y.txt" }),
      text("Refused."),
    );
    assert.equal((await world.prompt(sessionId, "touch both")).stopReason, "end_turn");
    const asked = world.seen.find((s) => s.kind === "permission");
    assert.ok(asked?.kind === "permission");
    assert.deepEqual(
      asked.request.options.map((o) => [o.optionId, o.kind]),
      [
        ["allow_once", "allow_once"],
        ["reject_once", "reject_once"],
      ],
    );
    assert.equal(existsSync(join(ws, "x.txt")), false);
    assert.equal(existsSync(join(world.box.home, "rules")), false, "no rule kept");

    // Asked again every time; allow_once runs it.
    world.permission = () => ({ outcome: { outcome: "selected", optionId: "allow_once" } });
    world.server.reply(
      toolCall("shell", { command: "touch x.txt && touch y.txt" }),
      text("Touched."),
    );
    assert.equal((await world.prompt(sessionId, "touch both")).stopReason, "end_turn");
    assert.equal(world.seen.filter((s) => s.kind === "permission").length, 2);
    assert.ok(existsSync(join(ws, "x.txt")) && existsSync(join(ws, "y.txt")));
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

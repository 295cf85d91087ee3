import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { startChatServer, text, toolCall } from "../../src/conformance/chat-server.js";
import { writeTurnHome } from "../../src/conformance/turn-world.js";
import { sandbox } from "../helpers/child.js";
import { AcpWorld } from "./acp-world.js";

/** A saved session, listed and loaded by a second agent on the same store. */
describe("mc-agent acp: session/list, session/load, session/resume", () => {
  let world: AcpWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it("lists this cwd's sessions newest first, then replays one before answering load", async () => {
    const box = sandbox("mc-acp-");
    const server = await startChatServer();
    writeTurnHome(box, server.baseUrl, { contextWindow: 1000 });
    const first = await AcpWorld.start({ box, server });
    await first.initialize();
    const older = await first.newSession();
    await first.agent.request("session/set_mode", {
      sessionId: older.sessionId,
      modeId: "full_access",
    });
    server.reply(
      toolCall("write_file", { path: "notes.txt", content: "hi\n" }),
      text("Saved the notes."),
    );
    await first.prompt(older.sessionId, "Write the notes\nplease");
    const newer = await first.newSession();
    server.reply(text("Second."));
    await first.prompt(newer.sessionId, "Another one");
    first.proc.stdin.end();
    await first.exited;

    world = await AcpWorld.start({ box, server });
    const w = world;
    await w.initialize();
    const listed = await w.agent.request("session/list", { cwd: box.workspace });
    assert.deepEqual(
      listed.sessions.map((s) => [s.sessionId, s.title, s.cwd]),
      [
        [newer.sessionId, "Another one", box.workspace],
        [older.sessionId, "Write the notes", box.workspace],
      ],
    );
    assert.ok(listed.sessions.every((s) => typeof s.updatedAt === "string"));
    assert.equal(listed.nextCursor ?? null, null);

    const loaded = await w.agent.request("session/load", {
      sessionId: older.sessionId,
      cwd: box.workspace,
      mcpServers: [],
    });
    w.seen.push({ kind: "response", what: "load" });
    assert.equal(loaded.modes?.currentModeId, "ask");
    const kinds = w.seen.map((s) =>
      s.kind === "update" ? s.notification.update.sessionUpdate : s.kind,
    );
    assert.deepEqual(kinds, [
      "user_message_chunk",
      "tool_call",
      "tool_call_update",
      "agent_message_chunk",
      "response",
    ]);
    const call = w.updates("tool_call")[0];
    assert.ok(call?.sessionUpdate === "tool_call");
    assert.equal(call.title, "Write notes.txt");
    assert.equal(call.kind, "edit");
    const result = w.updates("tool_call_update")[0];
    assert.ok(result?.sessionUpdate === "tool_call_update");
    assert.equal(result.status, "completed");
    assert.equal(w.agentText(), "Saved the notes.");

    // The loaded session goes on from its history.
    server.reply(text("Continued."));
    assert.equal((await w.prompt(older.sessionId, "more")).stopReason, "end_turn");
    const shown = JSON.stringify(server.requests.at(-1)?.body.messages);
    assert.match(shown, /Write the notes/);

    // resume: attached again, nothing replayed.
    const before = w.seen.length;
    await w.agent.request("session/resume", { sessionId: newer.sessionId, cwd: box.workspace });
    assert.equal(w.seen.length, before);
    await w.agent.request("session/close", { sessionId: newer.sessionId });
    await assert.rejects(
      w.agent.request("session/prompt", {
        sessionId: newer.sessionId,
        prompt: [{ type: "text", text: "x" }],
      }),
      (error: { code: number; data?: { code?: string } }) =>
        error.code === -32002 && error.data?.code === "session_missing",
    );
  });

  it("a record too large for the loop: resume validates it on the parser's worker; load cannot page it", async () => {
    world = await AcpWorld.start();
    const w = world;
    await w.initialize();
    const { sessionId } = await w.newSession();
    // 300 KB of reply: its assistant_message record is over the loop's 256 KiB parse bound, so
    // opening the session parses it on the worker the bundle must find beside itself.
    const piece = "0123456789".repeat(10_000);
    w.server.reply(text([piece, piece, piece]));
    assert.equal((await w.prompt(sessionId, "a long one")).stopReason, "end_turn");
    await w.agent.request("session/close", { sessionId });
    await w.agent.request("session/resume", { sessionId, cwd: w.box.workspace });
    // The history is over the model's window: the turn compacts first (one more model call).
    w.server.otherwise(text("Short."));
    assert.equal((await w.prompt(sessionId, "and now?")).stopReason, "end_turn");
    await w.agent.request("session/close", { sessionId });
    // A record over page_bytes cannot be paged by session.history: load says so, with our code.
    await assert.rejects(
      w.agent.request("session/load", { sessionId, cwd: w.box.workspace, mcpServers: [] }),
      (error: { data?: { code?: string } }) => error.data?.code === "discovery_page_bytes",
    );
  });

  it("a session of another cwd is refused by load, with our code and no path", async () => {
    world = await AcpWorld.start();
    const w = world;
    await w.initialize();
    const { sessionId } = await w.newSession();
    w.server.reply(text("Hi."));
    await w.prompt(sessionId, "hi");
    await w.agent.request("session/close", { sessionId });
    await assert.rejects(
      w.agent.request("session/load", { sessionId, cwd: w.box.home, mcpServers: [] }),
      (error: { message: string; data?: { code?: string } }) =>
        error.data?.code === "cwd_mismatch" && !error.message.includes(w.box.root),
    );
  });
});

import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
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
    const kinds = w
      .seenWithoutCommands()
      .map((s) => (s.kind === "update" ? s.notification.update.sessionUpdate : s.kind));
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
    const before = w.seenWithoutCommands().length;
    await w.agent.request("session/resume", { sessionId: newer.sessionId, cwd: box.workspace });
    assert.equal(w.seenWithoutCommands().length, before);
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

  it("a record too large for the loop and a page: resume validates it on the worker; load replays it whole", async () => {
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
    // A record over page_bytes comes from session.history as its stub; load reads it whole
    // through session.record and replays it in chunks of at most 8192 characters, in order.
    w.seen.length = 0;
    await w.agent.request("session/load", { sessionId, cwd: w.box.workspace, mcpServers: [] });
    const chunks = w
      .updates("agent_message_chunk")
      .map((u) =>
        u.sessionUpdate === "agent_message_chunk" && u.content.type === "text"
          ? u.content.text
          : "",
      );
    assert.equal(chunks.join(""), `${piece}${piece}${piece}Short.`);
    assert.ok(chunks.length >= 37, `${chunks.length} chunks`);
    assert.ok(chunks.every((c) => c.length <= 8192));
    const users = w
      .updates("user_message_chunk")
      .map((u) =>
        u.sessionUpdate === "user_message_chunk" && u.content.type === "text" ? u.content.text : "",
      );
    assert.deepEqual(users, ["a long one", "and now?"]);
  });

  it("a long session loads whole: thousands of records over many pages, and a 2 MB reply", async () => {
    world = await AcpWorld.start();
    const w = world;
    await w.initialize();
    const cwd = w.box.workspace;
    const ts = "2026-11-29T10:00:00.000Z";
    const lines = [JSON.stringify({ type: "session_meta", ts, cwd, id: "long-one" })];
    for (let i = 0; i < 1500; i += 1) {
      lines.push(JSON.stringify({ type: "user_message", ts, cwd, text: `question ${i}` }));
      lines.push(JSON.stringify({ type: "assistant_message", ts, cwd, text: `answer ${i}` }));
    }
    const long = "é🎉 ".repeat(300_000);
    lines.push(JSON.stringify({ type: "assistant_message", ts, cwd, text: long }));
    mkdirSync(join(w.box.home, "sessions"), { recursive: true });
    writeFileSync(join(w.box.home, "sessions", "long-one.jsonl"), `${lines.join("\n")}\n`);
    await w.agent.request("session/load", { sessionId: "long-one", cwd, mcpServers: [] });
    const users = w.updates("user_message_chunk");
    assert.equal(users.length, 1500, "every page replayed (31 of them)");
    const text = w.agentText();
    assert.ok(text.startsWith("answer 0answer 1"));
    assert.ok(text.endsWith(`answer 1499${long}`), "the long reply comes whole, last");
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

import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";
import { text, toolCall } from "../fixtures/chat-completions-server.js";
import { startReady } from "../helpers/child.js";
import { runTurn, TURN_CAPS, type TurnWorld, turnWorld, typesOf } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("turns: the basics", () => {
  test("a text turn on a lazy handle saves the session and streams the reply", async () => {
    world = await turnWorld();
    const { child, server } = world;
    const created = await child.call("session.create", {});
    server.reply(text("Hello there, how can I help?"));
    const { result, events } = await runTurn(child, "Say hello");
    assert.equal(result.status, "completed");
    assert.equal(result.stop_reason, "end_turn");
    assert.equal(result.error, null);
    assert.equal(result.session_id, created.session.id);
    assert.equal(result.steps, 1);
    const types = typesOf(events);
    assert.equal(types[0], "turn_started");
    assert.ok(types.includes("message_delta"));
    assert.deepEqual(types.slice(-2), ["message_done", "usage"]);
    const started = events[0]?.event;
    assert.equal(started?.created_session, true);
    assert.equal(started?.model, "demo/demo-1");
    assert.equal(started?.effort, "medium");
    assert.equal(started?.permissions, "ask");
    const done = events.find((e) => e.event.type === "message_done");
    assert.equal(done?.event.text, "Hello there, how can I help?");
    // The model saw the system prompt and the input; the key went only in its header.
    const body = server.requests[0]?.body;
    assert.equal(body.model, "demo-1");
    assert.equal(body.messages[0].role, "system");
    assert.match(body.messages[0].content, /Workspace: /);
    assert.deepEqual(body.messages.at(-1), { role: "user", content: "Say hello" });
    assert.equal(server.requests[0]?.headers.authorization, "Bearer sk-test-secret-key");
    // Saved: the attachment, the listing and the history say so.
    const status = await child.request("status", {});
    assert.deepEqual((status.result as { attachment: unknown }).attachment, {
      session_id: created.session.id,
      saved: true,
    });
    const list = await child.call("session.list", {});
    assert.deepEqual(
      list.sessions.map((s) => [s.id, s.title, s.busy]),
      [[created.session.id, "Say hello", false]],
    );
    const history = await child.call("session.history", { id: created.session.id });
    assert.deepEqual(
      history.events.map((e) => e.type),
      ["session_meta", "turn_start", "user_message", "assistant_message", "turn_end"],
    );
    for (const record of history.events.slice(1))
      assert.equal((record as { turn_id?: string }).turn_id, result.turn_id);
  });

  test("multi-turn memory: the second call carries the first exchange", async () => {
    world = await turnWorld();
    const { child, server } = world;
    await child.call("session.create", {});
    server.reply(text("Noted: your name is Ada."), text("Your name is Ada."));
    await runTurn(child, "My name is Ada.");
    const second = await runTurn(child, "What is my name?");
    assert.equal(second.events[0]?.event.created_session, false);
    const messages = server.requests[1]?.body.messages.slice(1);
    assert.deepEqual(messages, [
      { role: "user", content: "My name is Ada." },
      { role: "assistant", content: "Noted: your name is Ada." },
      { role: "user", content: "What is my name?" },
    ]);
  });

  test("a new child continues a reopened session, tool results with their call ids", async () => {
    world = await turnWorld();
    const { child, server, box } = world;
    const { session } = await child.call("session.create", {});
    await import("node:fs").then((fs) => fs.writeFileSync(`${box.workspace}/notes.txt`, "alpha\n"));
    server.reply(
      toolCall("read_file", { path: "notes.txt" }, { text: "Reading." }),
      text("It says alpha."),
    );
    const first = await runTurn(child, "What is in notes.txt?");
    assert.equal(first.result.steps, 2);
    await child.close();
    const next = await startReady(box, TURN_CAPS, {
      testMethods: true,
      env: { DEMO_KEY: "sk-test-secret-key" },
    });
    world.child = next;
    await next.call("session.open", { id: session.id });
    server.reply(text("Still alpha."));
    const again = await runTurn(next, "And now?");
    assert.equal(again.result.status, "completed");
    const messages = server.requests[2]?.body.messages.slice(1);
    assert.equal(messages[0].content, "What is in notes.txt?");
    assert.equal(messages[1].role, "assistant");
    assert.equal(messages[1].tool_calls.length, 1);
    const callId = messages[1].tool_calls[0].id;
    assert.equal(messages[2].role, "tool");
    assert.equal(messages[2].tool_call_id, callId);
    assert.match(messages[2].content, /alpha/);
    assert.deepEqual(messages.slice(3), [
      { role: "assistant", content: "It says alpha." },
      { role: "user", content: "And now?" },
    ]);
  });

  test("AGENTS.md is in the system prompt, cut on a character boundary past 32 KiB", async () => {
    world = await turnWorld();
    const { child, server, box } = world;
    const fs = await import("node:fs");
    await child.call("session.create", {});
    fs.writeFileSync(`${box.workspace}/AGENTS.md`, "Always run the linter.\n");
    server.reply(text("Noted."));
    await runTurn(child, "Hi");
    assert.match(server.requests[0]?.body.messages[0].content, /Always run the linter\./);
    // 32767 ASCII bytes, then a 2-byte character across the 32 KiB bound, then more.
    fs.writeFileSync(`${box.workspace}/AGENTS.md`, `${"a".repeat(32_767)}é${"z".repeat(100)}`);
    server.reply(text("Noted again."));
    await runTurn(child, "Hi again");
    const prompt: string = server.requests[1]?.body.messages[0].content;
    assert.ok(prompt.includes(`${"a".repeat(32_767)}\n[AGENTS.md truncated at 32 KiB]`));
    assert.ok(!prompt.includes("é") && !prompt.includes("\uFFFD") && !prompt.includes("zz"));
  });

  test("without the turn capability nothing is callable and no notification is written", async () => {
    world = await turnWorld();
    const plain = await startReady(world.box, ["session.create"], { testMethods: true });
    try {
      await plain.call("session.create", {});
      assert.equal(await plain.errorCode("turn.start", { input: "hi" }), "unsupported_capability");
      assert.equal(
        await plain.errorCode("turn.interrupt", { request_id: "x" }),
        "unsupported_capability",
      );
      assert.equal(
        await plain.errorCode("turn.approve", { approval_id: "a", decision: "deny" }),
        "unsupported_capability",
      );
      assert.ok(plain.frames.every((f) => f.id !== undefined));
    } finally {
      await plain.close();
    }
  });
});

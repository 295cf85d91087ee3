import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";
import { anthropicReply } from "../fixtures/anthropic-server.js";
import { text, toolCall } from "../fixtures/chat-completions-server.js";
import { responsesReply } from "../fixtures/responses-server.js";
import { bodies } from "../fixtures/scripted-sse.js";
import { type ProviderWorld, providerWorld } from "./provider-world.js";
import { finishTurn, startTurn, TURN_CAPS } from "./turn-harness.js";
import { gatedShell, steer } from "./turn-steer-fixtures.js";

type Loose = Record<string, unknown>;

let world: ProviderWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/**
 * A turn whose one shell call runs until the gate opens; two steers sent while it runs. Returns
 * the second model request's body, which must carry both after the tool's result.
 */
async function steeredWhileTool(w: ProviderWorld, script: (command: string) => void) {
  await w.child.call("session.create", {});
  const gate = gatedShell(w.box.workspace);
  script(gate.command);
  const turn = startTurn(w.child, "Run it", "full_access");
  await turn.event("tool_call");
  for (const input of ["first steer", "second steer"])
    assert.equal((await steer(w.child, turn.id, input)).result?.state, "accepted");
  gate.open();
  const { result, events } = await finishTurn(w.child, turn);
  assert.equal(result.status, "completed");
  assert.deepEqual(result.undelivered_steers, []);
  assert.equal(events.filter((e) => e.event.type === "steer_applied").length, 2);
}

/** The wire text of a body: the tool's output comes before both steers, in order. */
function assertOrdered(body: Loose): void {
  const wire = JSON.stringify(body);
  const tool = wire.indexOf("gate open");
  const first = wire.indexOf("first steer");
  const second = wire.indexOf("second steer");
  assert.ok(tool >= 0 && tool < first && first < second, wire.slice(-600));
}

describe("turn.steer in each wire format", () => {
  test("Responses: user messages after the function_call_output", async () => {
    world = await providerWorld({
      providers: ["openai"],
      env: { OPENAI_API_KEY: "sk-openai-test" },
      capabilities: [...TURN_CAPS, "turn.steer"],
    });
    const server = world.sse("openai");
    await steeredWhileTool(world, (command) =>
      server.script(
        responsesReply({
          calls: [{ call_id: "call_1", name: "shell", arguments: JSON.stringify({ command }) }],
        }),
        responsesReply({ text: ["Understood."] }),
      ),
    );
    const body = bodies(server)[1] as Loose;
    assertOrdered(body);
    const input = body.input as Loose[];
    assert.deepEqual(
      input.slice(-3).map((i) => i.type ?? i.role),
      ["function_call_output", "message", "message"],
    );
    assert.deepEqual(
      input.slice(-2).map((i) => [i.role, i.content]),
      [
        ["user", "first steer"],
        ["user", "second steer"],
      ],
    );
  });

  test("Messages: text blocks after the tool_result in the user turn", async () => {
    world = await providerWorld({
      providers: ["anthropic"],
      env: { ANTHROPIC_API_KEY: "sk-ant-test" },
      capabilities: [...TURN_CAPS, "turn.steer"],
    });
    const server = world.sse("anthropic");
    await steeredWhileTool(world, (command) =>
      server.script(
        anthropicReply({
          tools: [{ id: "toolu_1", name: "shell", json: [JSON.stringify({ command })] }],
          stop_reason: "tool_use",
        }),
        anthropicReply({ text: ["Understood."] }),
      ),
    );
    const body = bodies(server)[1] as Loose;
    assertOrdered(body);
    const last = (body.messages as { role: string; content: Loose[] }[]).at(-1);
    assert.equal(last?.role, "user");
    assert.deepEqual(
      last?.content.map((b) => (b.type === "text" ? `text:${b.text}` : b.type)),
      ["tool_result", "text:first steer", "text:second steer"],
    );
  });

  test("Chat Completions: user messages after the tool message", async () => {
    world = await providerWorld({
      providers: ["demo"],
      capabilities: [...TURN_CAPS, "turn.steer"],
    });
    const chat = world.chat();
    await steeredWhileTool(world, (command) =>
      chat.reply(toolCall("shell", { command }), text("Ok.")),
    );
    const body = chat.requests[1]?.body as Loose;
    assertOrdered(body);
    const messages = body.messages as Loose[];
    assert.deepEqual(
      messages.slice(-3).map((m) => [m.role, m.role === "tool" ? "" : m.content]),
      [
        ["tool", ""],
        ["user", "first steer"],
        ["user", "second steer"],
      ],
    );
  });
});

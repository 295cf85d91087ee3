/**
 * `subagent_model` from the settings (docs/turns.md, "Subagents"): the subagent runs on it (the
 * loopback server sees its name, its history and events name it, its calls cost at its price);
 * a model that cannot be used now is the `agent` call's tool error, naming no path, and nothing
 * starts; the project's setting wins over the global one.
 */
import assert from "node:assert/strict";
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { call, custom, text, toolCalls } from "../fixtures/chat-completions-server.js";
import { startReady } from "../helpers/child.js";
import type { CacheModelFixture } from "../models/fixtures.js";
import { bodiesOf, type Loose, resultText } from "./tool-turns.js";
import { runTurn, TURN_CAPS, type TurnWorld, turnWorld } from "./turn-harness.js";

const SUB_CAPS = [...TURN_CAPS, "subagents", "session.manage"];
const MODELS = [
  { id: "demo-1", name: "Demo 1", cost: { input: 3, output: 15, cache_read: null } },
  {
    id: "demo-2",
    name: "Demo 2",
    efforts: ["low", "high"],
    default_effort: "low",
    cost: { input: 1, output: 2, cache_read: null },
  },
] as unknown as CacheModelFixture[];
const USAGE = { prompt_tokens: 1000, completion_tokens: 100 };
const PARENT_CALL = (1000 * 3 + 100 * 15) / 1e6;
const SUB_CALL = (1000 * 1 + 100 * 2) / 1e6;

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function derived(w: TurnWorld, sessionId: string): string[] {
  return readdirSync(join(w.box.home, "sessions")).filter(
    (name) => name.startsWith(`${sessionId}.`) && name !== `${sessionId}.jsonl`,
  );
}

function delegate(w: TurnWorld, subReply = text("sub answer", { usage: USAGE })) {
  w.server.reply(
    toolCalls([call("agent", { description: "Look", prompt: "look around" }, "call_a")], {
      usage: USAGE,
    }),
    subReply,
    text("Done.", { usage: USAGE }),
  );
}

describe("subagents: subagent_model", () => {
  test("the subagent runs on it: the server sees its name; history, events and cost follow it", async () => {
    world = await turnWorld({
      models: MODELS,
      capabilities: SUB_CAPS,
      config: { subagent_model: "demo/demo-2" },
    });
    const w = world;
    const { session } = await w.child.call("session.create", {});
    delegate(w);
    const { result, events } = await runTurn(w.child, "Delegate", "ask");
    assert.equal(result.status, "completed");
    assert.deepEqual(
      w.server.requests.map((r) => r.body.model),
      ["demo-1", "demo-2", "demo-1"],
      "the parent on its model, the subagent on subagent_model",
    );
    assert.equal(resultText(w.server.requests[2], "call_a"), "sub answer");
    const started = bodiesOf(events, "subagent_event").find((e) => e.event.type === "turn_started");
    assert.equal(started.event.model, "demo/demo-2");
    assert.equal(started.event.effort, "low", "the subagent model's own default effort");
    const [file] = derived(w, session.id);
    const records: Loose[] = readFileSync(join(w.box.home, "sessions", file as string), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    assert.equal(records.find((r) => r.type === "turn_start").model, "demo/demo-2");
    assert.equal(records.find((r) => r.type === "assistant_message").model, "demo/demo-2");
    // Two calls of the parent at its price, one of the subagent at demo-2's.
    assert.equal(result.cost_usd, Math.round((2 * PARENT_CALL + SUB_CALL) * 1e8) / 1e8);
    assert.equal(result.usage.input_tokens, 3000);
  });

  test("not a selectable model: the agent call is a tool error naming no path; nothing starts", async () => {
    world = await turnWorld({
      models: MODELS,
      capabilities: SUB_CAPS,
      config: { subagent_model: "demo/not-enabled" },
    });
    const w = world;
    const { session } = await w.child.call("session.create", {});
    w.server.reply(
      toolCalls([call("agent", { description: "Look", prompt: "look around" }, "call_a")]),
      text("I could not delegate."),
    );
    const { result, events } = await runTurn(w.child, "Delegate", "ask");
    assert.equal(result.status, "completed");
    assert.equal(w.server.requests.length, 2, "no subagent called the model");
    const said = resultText(w.server.requests[1], "call_a");
    assert.match(said, /subagent_model is not a selectable model now \(model_unavailable\)/);
    for (const forbidden of [w.box.home, w.box.workspace, w.server.baseUrl])
      assert.ok(!said.includes(forbidden));
    assert.deepEqual(
      bodiesOf(events, "tool_done").map((d) => d.status),
      ["failed"],
    );
    assert.equal(bodiesOf(events, "subagent_event").length, 0);
    assert.deepEqual(derived(w, session.id), [], "no derived history was made");
  });

  test("a catalog that cannot be read at the call: a tool error with its code, no path", async () => {
    world = await turnWorld({
      models: MODELS,
      capabilities: SUB_CAPS,
      config: { subagent_model: "demo/demo-2" },
    });
    const w = world;
    await w.child.call("session.create", {});
    const cache = join(w.box.home, "cache", "models", "demo.json");
    w.server.reply(
      custom(async (exchange) => {
        // Between the turn's admission and its agent call, the cache becomes a symlink.
        const copy = join(w.box.root, "demo-copy.json");
        renameSync(cache, copy);
        symlinkSync(copy, cache);
        await toolCalls([call("agent", { description: "Look", prompt: "look" }, "call_a")])(
          exchange,
        );
      }),
      text("No helper."),
    );
    const { result } = await runTurn(w.child, "Delegate", "ask");
    assert.equal(result.status, "completed");
    assert.equal(w.server.requests.length, 2, "no subagent called the model");
    const said = resultText(w.server.requests[1], "call_a");
    assert.equal(
      said,
      "The subagent did not start: the model catalog could not be read (catalog_unavailable).",
    );
  });

  test("the project's subagent_model wins over the global one", async () => {
    world = await turnWorld({
      models: MODELS,
      capabilities: SUB_CAPS,
      config: { subagent_model: "demo/not-enabled" },
    });
    const w = world;
    // The child read its settings at start: a new one on the same store reads the project file.
    await w.child.close();
    mkdirSync(join(w.box.workspace, ".mc"), { recursive: true });
    writeFileSync(
      join(w.box.workspace, ".mc", "config.json"),
      JSON.stringify({ subagent_model: "demo/demo-2" }),
    );
    w.child = await startReady(w.box, SUB_CAPS, {
      testMethods: true,
      env: { DEMO_KEY: "sk-test-secret-key", MC_AGENT_TEST_BACKOFF_PERCENT: "1" },
    });
    await w.child.call("session.create", {});
    delegate(w);
    const { result } = await runTurn(w.child, "Delegate", "ask");
    assert.equal(result.status, "completed");
    assert.equal(w.server.requests[1]?.body.model, "demo-2");
  });
});

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { text } from "../fixtures/chat-completions-server.js";
import type { CacheModelFixture } from "../models/fixtures.js";
import { runTurn, TURN_CAPS, type TurnWorld, turnWorld } from "./turn-harness.js";

/**
 * A turn's cost (issue 42, capability `session.manage`): the catalog's models.dev prices times
 * the usage the loopback server reports, exactly; null without a price; recorded in `turn_end`,
 * carried by the result and each `usage` event, summed by session.usage; and `budget_usd`
 * refusing the next turn once the known cost reached it, with nothing sent.
 */
const MANAGE_CAPS = [...TURN_CAPS, "session.manage"];
const PRICED: CacheModelFixture = {
  id: "demo-1",
  name: "Demo 1",
  cost: { input: 3, output: 15, cache_read: 0.3 },
  modalities: { input: ["text", "image"] },
} as CacheModelFixture;
// 600 uncached input tokens at $3/M, 400 cached at $0.30/M, 200 output at $15/M.
const USAGE = { prompt_tokens: 1000, completion_tokens: 200, cached_tokens: 400 };
const TURN_COST = (600 * 3 + 400 * 0.3 + 200 * 15) / 1_000_000;

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function lastTurnEnd(w: TurnWorld, id: string): Record<string, unknown> {
  const lines = readFileSync(join(w.box.home, "sessions", `${id}.jsonl`), "utf8")
    .trim()
    .split("\n");
  const ends = lines.map((l) => JSON.parse(l)).filter((r) => r.type === "turn_end");
  return ends.at(-1);
}

describe("turn cost", () => {
  test("a priced model: the result, the usage event, turn_end and session.usage carry the exact cost", async () => {
    world = await turnWorld({ models: [PRICED], capabilities: MANAGE_CAPS });
    await world.child.call("session.create", {});
    world.server.reply(text("Priced.", { usage: USAGE }));
    const { result, events } = await runTurn(world.child, "How much?");
    assert.equal(result.cost_usd, TURN_COST);
    const usage = events.filter((e) => e.event.type === "usage");
    assert.equal(usage.length, 1);
    assert.equal(usage[0]?.event.cost_usd, TURN_COST);
    const id = result.session_id;
    assert.equal(lastTurnEnd(world, id).cost_usd, TURN_COST);
    world.server.reply(text("Again.", { usage: USAGE }));
    await runTurn(world.child, "And again?");
    const total = await world.child.call("session.usage", { id });
    assert.equal(total.cost_usd, Math.round(2 * TURN_COST * 1e8) / 1e8);
    assert.equal(total.turns, 2);
    assert.equal(total.partial, false);
    assert.deepEqual(total.usage, {
      input_tokens: 2000,
      output_tokens: 400,
      cached_input_tokens: 800,
      reasoning_tokens: 0,
    });
  });

  test("no price: cost_usd is null everywhere and session.usage is partial", async () => {
    world = await turnWorld({ capabilities: MANAGE_CAPS });
    await world.child.call("session.create", {});
    world.server.reply(text("Unpriced.", { usage: USAGE }));
    const { result, events } = await runTurn(world.child, "How much?");
    assert.equal(result.cost_usd, null);
    assert.equal(events.find((e) => e.event.type === "usage")?.event.cost_usd, null);
    assert.equal(lastTurnEnd(world, result.session_id).cost_usd, null);
    const total = await world.child.call("session.usage", { id: result.session_id });
    assert.deepEqual([total.cost_usd, total.unknown_cost_turns, total.partial], [0, 1, true]);
  });

  test("without session.manage the wire carries no cost field (the history still records it)", async () => {
    world = await turnWorld({ models: [PRICED] });
    await world.child.call("session.create", {});
    world.server.reply(text("Priced.", { usage: USAGE }));
    const { result, events } = await runTurn(world.child, "How much?");
    assert.ok(!("cost_usd" in result));
    assert.ok(events.every((e) => !("cost_usd" in e.event)));
    assert.equal(lastTurnEnd(world, result.session_id).cost_usd, TURN_COST);
  });

  test("budget_usd: once the known cost reaches it, the next turn.start is budget_exceeded and nothing is sent or written", async () => {
    // One turn costs 0.00492: a budget of 0.00492 is reached by it (at the bound), and a
    // budget one step above is not.
    world = await turnWorld({
      models: [PRICED],
      capabilities: MANAGE_CAPS,
      config: { budget_usd: TURN_COST },
    });
    await world.child.call("session.create", {});
    world.server.reply(text("First.", { usage: USAGE }));
    const { result } = await runTurn(world.child, "Spend");
    const history = join(world.box.home, "sessions", `${result.session_id}.jsonl`);
    const before = readFileSync(history);
    const sent = world.server.requests.length;
    const refused = await world.child.request("turn.start", { input: "More" });
    assert.equal(refused.error?.code, "budget_exceeded");
    assert.equal(world.server.requests.length, sent, "nothing was sent");
    assert.deepEqual(readFileSync(history), before, "nothing was written");
    await world.close();
    world = await turnWorld({
      models: [PRICED],
      capabilities: MANAGE_CAPS,
      config: { budget_usd: TURN_COST + 0.00000001 },
    });
    await world.child.call("session.create", {});
    world.server.reply(text("First.", { usage: USAGE }));
    await runTurn(world.child, "Spend");
    world.server.reply(text("Second.", { usage: USAGE }));
    const second = await runTurn(world.child, "Spend more");
    assert.equal(second.result.status, "completed", "below the budget, the turn runs");
  });
});

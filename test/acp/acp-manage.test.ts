/**
 * Black box: the SDK's own client drives `mc-agent acp` through the session menu ACP has
 * (issue 42): `/rename` tells the editor `session_info_update` and session/list shows the title;
 * `usage_update` carries the session's cumulative cost; `session/delete` removes the session.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import { startChatServer, text } from "../../src/conformance/chat-server.js";
import { writeTurnHome } from "../../src/conformance/turn-world.js";
import { sandbox } from "../helpers/child.js";
import { AcpWorld } from "./acp-world.js";

const USAGE = { prompt_tokens: 1000, completion_tokens: 100, cached_tokens: 0 };
// 1000 input tokens at $2/M and 100 output tokens at $10/M.
const TURN_COST = (1000 * 2 + 100 * 10) / 1_000_000;

describe("mc-agent acp: rename, cost, delete", () => {
  let world: AcpWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it("/rename sends session_info_update and session/list shows it; usage_update's cost is cumulative; session/delete removes the session", async () => {
    const box = sandbox("mc-acp-");
    const server = await startChatServer();
    writeTurnHome(box, server.baseUrl, { contextWindow: 100_000 });
    const cachePath = join(box.home, "cache", "models", "kit.json");
    const cache = JSON.parse(readFileSync(cachePath, "utf8"));
    cache.models[0].cost = { input: 2, output: 10, cache_read: null };
    writeFileSync(cachePath, JSON.stringify(cache));
    world = await AcpWorld.start({ box, server });
    const w = world;
    await w.initialize();
    const { sessionId } = await w.newSession();
    await w.prompt(sessionId, "/rename Too early");
    assert.match(w.agentText(), /saved by its first prompt/);
    w.server.reply(text("One.", { usage: USAGE }));
    await w.prompt(sessionId, "first");
    w.server.reply(text("Two.", { usage: USAGE }));
    await w.prompt(sessionId, "second");
    const costs = w
      .updates("usage_update")
      .map((u) => (u.sessionUpdate === "usage_update" ? u.cost : undefined));
    assert.deepEqual(costs, [
      { amount: TURN_COST, currency: "USD" },
      { amount: 2 * TURN_COST, currency: "USD" },
    ]);
    await w.prompt(sessionId, "/rename Cache ttl fix");
    const info = w.updates("session_info_update").at(-1);
    assert.ok(info?.sessionUpdate === "session_info_update");
    assert.equal(info.title, "Cache ttl fix");
    assert.equal(w.server.requests.length, 2, "the commands never reach the model");
    const listed = await w.agent.request("session/list", { cwd: box.workspace });
    assert.equal(listed.sessions.find((s) => s.sessionId === sessionId)?.title, "Cache ttl fix");
    await w.agent.request("session/delete", { sessionId });
    assert.ok(!existsSync(join(box.home, "sessions", `${sessionId}.jsonl`)));
    const after = await w.agent.request("session/list", { cwd: box.workspace });
    assert.deepEqual(after.sessions, []);
    // A second delete: our `session_missing` is ACP's -32002, which the SDK's client takes as
    // an idempotent success (its documented behaviour for session/close and session/delete).
    assert.deepEqual(await w.agent.request("session/delete", { sessionId }), {});
  });
});

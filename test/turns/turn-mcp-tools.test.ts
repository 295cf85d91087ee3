import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { bodies, responsesReply } from "../fixtures/responses-server.js";
import { type ProviderWorld, providerWorld } from "./provider-world.js";
import { runTurn, TURN_CAPS } from "./turn-harness.js";

/** MCP tools through the real child: servers from MC_HOME/config.json, the model on Responses. */

const KEY = "sk-openai-secret-key";
const ROOT = join(import.meta.dirname, "../../..");
const EVERYTHING = join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const GENERATED = join(import.meta.dirname, "../fixtures/mcp-generated-server.js");
const CHANGING = join(import.meta.dirname, "../fixtures/mcp-changing-server.js");
/** A server that starts and never answers (it reads nothing, so it never says hello). */
const HANGING = { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] };

let world: ProviderWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/**
 * A child with these servers; `ready` names those the test waits for (mcp.changed) before its
 * turn, since a turn's first step offers only the servers ready at its start.
 */
async function mcpWorld(servers: Record<string, unknown>, ready: string[] = []) {
  world = await providerWorld({
    providers: ["openai"],
    capabilities: [...TURN_CAPS, "mcp"],
    env: { OPENAI_API_KEY: KEY },
    setup: (box) => {
      const file = join(box.home, "config.json");
      const config = JSON.parse(readFileSync(file, "utf8"));
      writeFileSync(file, JSON.stringify({ ...config, mcp_servers: servers }));
    },
  });
  const child = world.child;
  for (const name of ready) {
    const match = (f: Loose) =>
      f.method === "mcp.changed" &&
      f.params?.server.name === name &&
      f.params.server.state !== "starting";
    const note = child.frames.find(match) ?? (await child.waitFor(match, 120_000));
    assert.equal((note as Loose).params.server.state, "ready");
  }
  await child.call("session.create", {});
  return { w: world, server: world.sse("openai") };
}

// biome-ignore lint/suspicious/noExplicitAny: wire bodies are read freely.
type Loose = any;
const names = (body: Loose): string[] => (body.tools ?? []).map((t: Loose) => t.name);
const outputOf = (body: Loose, id: string): string =>
  body.input.find((i: Loose) => i.type === "function_call_output" && i.call_id === id)?.output;

describe("turns with MCP tools (real child, config.json's mcp_servers)", () => {
  test("server-everything's echo is offered namespaced and called; the events name it", async () => {
    const { w, server } = await mcpWorld(
      {
        // A loaded machine can take longer than the default 10 s to start a node server.
        everything: {
          command: process.execPath,
          args: [EVERYTHING, "stdio"],
          startup_timeout_ms: 120_000,
        },
      },
      ["everything"],
    );
    server.script(
      responsesReply({
        calls: [
          {
            call_id: "c1",
            name: "mcp__everything__echo",
            arguments: '{"message":"via the child"}',
          },
        ],
      }),
      responsesReply({ text: ["Echoed."] }),
    );
    const { result, events } = await runTurn(w.child, "Echo it", "full_access");
    assert.equal(result.status, "completed");
    const [first, second] = bodies(server);
    assert.ok(names(first).includes("mcp__everything__echo"));
    assert.match(outputOf(second, "c1"), /via the child/);
    const call = events.find((e) => e.event.type === "tool_call")?.event as Loose;
    assert.equal(call.tool, "mcp__everything__echo");
    const done = events.find((e) => e.event.type === "tool_done")?.event as Loose;
    assert.equal(done.status, "completed");
  });

  test("100 tools: only mcp_search is sent; a loaded tool is called", async () => {
    const { w, server } = await mcpWorld(
      {
        gen: { command: process.execPath, args: [GENERATED, "100"], startup_timeout_ms: 120_000 },
      },
      ["gen"],
    );
    server.script(
      responsesReply({
        calls: [
          { call_id: "c1", name: "mcp_search", arguments: '{"load":["mcp__gen__tool_007"]}' },
        ],
      }),
      responsesReply({
        calls: [{ call_id: "c2", name: "mcp__gen__tool_007", arguments: '{"word":"seven"}' }],
      }),
      responsesReply({ text: ["Done."] }),
    );
    const { result } = await runTurn(w.child, "Use tool 7", "full_access");
    assert.equal(result.status, "completed");
    const [first, second, third] = bodies(server);
    assert.ok(names(first).includes("mcp_search"));
    assert.ok(!names(first).some((n) => n.startsWith("mcp__")));
    assert.ok(names(second).includes("mcp__gen__tool_007"));
    assert.equal(outputOf(third, "c2"), "tool_007 got seven");
  });

  test("a tool-less turn never waits for a server still starting (startup timeout 120 s)", {
    timeout: 60_000,
  }, async () => {
    const { w, server } = await mcpWorld({ stuck: { ...HANGING, startup_timeout_ms: 120_000 } });
    server.script(responsesReply({ text: ["Hello."] }));
    const { result } = await runTurn(w.child, "Say hello", "full_access");
    assert.equal(result.status, "completed");
    assert.ok(!names(bodies(server)[0]).some((n) => n.startsWith("mcp")));
    // The turn is over and the server is still starting: nothing waited for it.
    const answer = await w.child.call("mcp.status", {});
    assert.equal((answer as Loose).servers[0].state, "starting");
  });

  test("a call of a starting server's tool waits for it up to its startup timeout, then is a tool error", async () => {
    const { w, server } = await mcpWorld({ stuck: { ...HANGING, startup_timeout_ms: 1500 } });
    server.script(
      responsesReply({ calls: [{ call_id: "c1", name: "mcp__stuck__lookup", arguments: "{}" }] }),
      responsesReply({ text: ["It is not there."] }),
    );
    const { result, events } = await runTurn(w.child, "Look it up", "full_access");
    assert.equal(result.status, "completed");
    const done = events.find((e) => e.event.type === "tool_done")?.event as Loose;
    assert.equal(done.status, "failed");
    // The wait ended with the server's startup timeout, before the call was answered.
    const answer = await w.child.call("mcp.status", {});
    assert.equal((answer as Loose).servers[0].state, "failed");
    assert.equal((answer as Loose).servers[0].error, "startup_timeout");
  });

  test("list_changed mid-turn: the next step offers the new list (added, removed, then deferred); mcp.changed has each count", async () => {
    const { w, server } = await mcpWorld(
      { changing: { command: process.execPath, args: [CHANGING], startup_timeout_ms: 120_000 } },
      ["changing"],
    );
    const call = (id: string, tool: string, args: object) => ({
      call_id: id,
      name: `mcp__changing__${tool}`,
      arguments: JSON.stringify(args),
    });
    server.script(
      responsesReply({ calls: [call("c1", "add_tools", { prefix: "fresh", count: 1 })] }),
      responsesReply({
        calls: [
          call("c2", "fresh_0", { word: "new" }),
          call("c3", "remove_tool", { name: "fresh_0" }),
        ],
      }),
      responsesReply({ calls: [call("c4", "add_tools", { prefix: "many", count: 40 })] }),
      responsesReply({ text: ["Done."] }),
    );
    const { result } = await runTurn(w.child, "Change the tools", "full_access");
    assert.equal(result.status, "completed");
    const [first, second, third, fourth] = bodies(server);
    assert.ok(!names(first).includes("mcp__changing__fresh_0"));
    assert.ok(names(second).includes("mcp__changing__fresh_0"), "added by the call before");
    assert.equal(outputOf(third, "c2"), "fresh_0 got new");
    assert.ok(!names(third).includes("mcp__changing__fresh_0"), "removed by the call before");
    assert.ok(names(third).includes("mcp__changing__add_tools"));
    // 44 tools now: past the threshold, only mcp_search is sent.
    assert.ok(names(fourth).includes("mcp_search"));
    assert.ok(!names(fourth).some((n) => n.startsWith("mcp__")));
    const counts = w.child.frames
      .filter((f: Loose) => f.method === "mcp.changed" && f.params.server.state === "ready")
      .map((f: Loose) => f.params.server.tools);
    assert.deepEqual(counts, [4, 5, 4, 44]);
    const answer = await w.child.call("mcp.status", {});
    assert.equal((answer as Loose).servers[0].tools, 44);
  });
});

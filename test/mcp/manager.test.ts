import assert from "node:assert/strict";
import { test } from "node:test";
import { McpManager } from "../../src/agent/mcp/manager.js";
import { McpCallError } from "../../src/agent/mcp/types.js";
import { allGone, descendants, memoryStdio } from "./mcp-world.js";

const signal = () => new AbortController().signal;

function memoryPid(): number {
  const found = descendants(process.pid).find((p) => p.cmdline.includes("server-memory"));
  assert.ok(found, "the memory server runs");
  return found.pid;
}

/** Waits for the next status of `name` in `state` (events, not time). */
function next(manager: McpManager, state: string): Promise<{ error: string | null }> {
  return new Promise((resolve) => {
    const stop = manager.onChange((status) => {
      if (status.state === state) {
        stop();
        resolve(status);
      }
    });
  });
}

test("a server killed is restarted on next use, at most 3 times in 5 minutes; calls name their failure", {
  timeout: 180_000,
}, async () => {
  const manager = new McpManager({
    servers: { memory: memoryStdio({ tools: { deny: ["delete_entities"] } }) as never },
    env: process.env,
    workspace: process.cwd(),
  });
  try {
    manager.begin();
    const tools = await manager.tools({ signal: signal() });
    assert.ok(tools.some((t) => t.name === "read_graph"));
    assert.ok(!tools.some((t) => t.name === "delete_entities"));
    const graph = await manager.call("memory", "read_graph", {}, { signal: signal() });
    assert.ok(Array.isArray(graph.content));
    await assert.rejects(
      manager.call("memory", "delete_entities", {}, { signal: signal() }),
      (e) => e instanceof McpCallError && e.code === "unknown_tool",
    );
    await assert.rejects(
      manager.call("nope", "x", {}, { signal: signal() }),
      (e) => e instanceof McpCallError && e.code === "unknown_server",
    );
    for (let round = 1; round <= 4; round += 1) {
      const pid = memoryPid();
      const failed = next(manager, "failed");
      process.kill(pid, "SIGKILL");
      const status = await failed;
      await allGone([pid]);
      if (round <= 3) {
        assert.equal(status.error, "exited");
        // Next use: restarted, and it works again.
        const again = await manager.tools({ signal: signal() });
        assert.ok(again.length > 0, `restart ${round}`);
      } else {
        assert.equal(status.error, "restart_limit");
        assert.deepEqual(await manager.tools({ signal: signal() }), []);
        await assert.rejects(
          manager.call("memory", "read_graph", {}, { signal: signal() }),
          (e) => e instanceof McpCallError && e.code === "server_unavailable",
        );
      }
    }
    assert.equal(manager.status()[0]?.error, "restart_limit");
  } finally {
    await manager.close();
  }
});

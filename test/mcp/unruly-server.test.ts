/**
 * Issue 35, items 15 and 16, with a real MCP server over stdio (test/fixtures/mcp-unruly-server.ts,
 * the SDK's McpServer): an answer past the 10 MiB line bound fails that call alone with
 * `result_too_large` and the server is kept (it answered the next call with the same process);
 * a server that floods stdout with non-JSON lines, or with `list_changed` and log notifications,
 * is stopped and reported `failed` with `flooding` in the status, and not restarted.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { McpManager } from "../../src/agent/mcp/manager.js";
import type { McpServerStatus } from "../../src/protocol/schemas/mcp.js";
import { allGone } from "./mcp-world.js";

const UNRULY = join(import.meta.dirname, "../fixtures/mcp-unruly-server.js");
const signal = () => new AbortController().signal;

function unrulyManager(env: Record<string, string> = {}) {
  const manager = new McpManager({
    servers: {
      unruly: {
        command: process.execPath,
        args: [UNRULY],
        env,
        startup_timeout_ms: 100_000,
        call_timeout_ms: 120_000,
      } as never,
    },
    env: process.env,
    workspace: process.cwd(),
  });
  const seen: McpServerStatus[] = [];
  manager.onChange((status) => seen.push(status));
  manager.begin();
  return { manager, seen };
}

async function callText(manager: McpManager, tool: string, args: object): Promise<string> {
  const result = await manager.call("unruly", tool, args as Record<string, unknown>, {
    signal: signal(),
  });
  const [block] = result.content as Array<{ type: string; text: string }>;
  return block?.text ?? "";
}

const code = (error: unknown) => (error as { code?: string }).code;

test("an answer past the line bound fails that call alone; the same server answers the next", {
  timeout: 120_000,
}, async () => {
  const { manager } = unrulyManager();
  try {
    assert.equal((await manager.tools({ signal: signal() })).length, 4);
    const pid = await callText(manager, "pid", {});
    // At the bound's edge a result still passes whole (the JSON around it takes some bytes).
    const near = await callText(manager, "big", { bytes: 10 * 1024 * 1024 - 200 });
    assert.equal(near.length, 10 * 1024 * 1024 - 200);
    await assert.rejects(
      manager.call("unruly", "big", { bytes: 20_000_000 }, { signal: signal() }),
      (error) => code(error) === "result_too_large",
    );
    assert.equal(manager.status()[0]?.state, "ready", "the server is kept");
    assert.equal(await callText(manager, "echo", { word: "still here" }), "still here");
    assert.equal(await callText(manager, "pid", {}), pid, "the same process, not a restart");
  } finally {
    await manager.close();
  }
});

/** The status of the unruly server once stopped for flooding. */
const FAILED_FLOODING = {
  name: "unruly",
  transport: "stdio",
  state: "failed",
  tools: 0,
  error: "flooding",
};

for (const kind of ["garbage", "notifications"] as const) {
  test(`a server flooding stdout with ${kind} is stopped and reported failed: flooding`, {
    timeout: 120_000,
  }, async () => {
    const { manager, seen } = unrulyManager();
    try {
      await manager.tools({ signal: signal() });
      const pid = Number(await callText(manager, "pid", {}));
      assert.equal(await callText(manager, "flood", { kind }), `flooding with ${kind}`);
      while (manager.status()[0]?.state === "ready") await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(manager.status()[0], FAILED_FLOODING);
      assert.equal(seen.at(-1)?.error, "flooding", "the change is announced");
      await allGone([pid]);
      // Not restarted on next use: it would flood again.
      assert.deepEqual(await manager.tools({ signal: signal() }), []);
      await assert.rejects(
        manager.call("unruly", "echo", { word: "x" }, { signal: signal() }),
        (error) => code(error) === "server_unavailable",
      );
      assert.equal(manager.status()[0]?.error, "flooding");
    } finally {
      await manager.close();
    }
  });
}

test("a server flooding before its handshake fails its start with flooding", {
  timeout: 120_000,
}, async () => {
  const { manager } = unrulyManager({ MC_UNRULY_FLOOD_AT_START: "garbage" });
  try {
    assert.deepEqual(await manager.tools({ signal: signal() }), []);
    assert.deepEqual(manager.status()[0], FAILED_FLOODING);
  } finally {
    await manager.close();
  }
});

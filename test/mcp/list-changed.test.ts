import assert from "node:assert/strict";
import { test } from "node:test";
import { McpManager } from "../../src/agent/mcp/manager.js";
import type { McpServerStatus } from "../../src/protocol/schemas/mcp.js";
import { allGone, CHANGING, changingStdio, descendants } from "./mcp-world.js";

/** The documented bound, stated here: a changed constant fails this test. */
const MCP_SERVER_TOOLS = 1024;

const signal = () => new AbortController().signal;

/** The text of a call's first block. */
async function callText(manager: McpManager, tool: string, args: object): Promise<string> {
  const result = await manager.call("changing", tool, args as Record<string, unknown>, {
    signal: signal(),
  });
  const [block] = result.content as Array<{ type: string; text: string }>;
  return block?.text ?? "";
}

const names = async (manager: McpManager) =>
  (await manager.tools({ signal: signal(), waitMs: 0 })).map((t) => t.name);

/** The server's own count of tools/list requests (the start's included). */
const lists = async (manager: McpManager) => Number(await callText(manager, "list_requests", {}));

test("list_changed: the tools are read again (deny applied), the count announced, a flood of 1,000 costs at most two re-lists; past 1,024 tools the server fails with tool_limit", {
  timeout: 240_000,
}, async () => {
  const manager = new McpManager({
    servers: { changing: changingStdio({ tools: { deny: ["extra_1"] } }) as never },
    env: process.env,
    workspace: process.cwd(),
  });
  const seen: McpServerStatus[] = [];
  manager.onChange((status) => seen.push(status));
  try {
    manager.begin();
    assert.deepEqual((await manager.tools({ signal: signal() })).length, 4);
    assert.equal(await lists(manager), 1, "the start's list");

    // The call returns once its change is read: the very next look has the new tools.
    assert.equal(await callText(manager, "add_tools", { prefix: "extra", count: 3 }), "added 3");
    assert.deepEqual((await names(manager)).filter((n) => n.startsWith("extra")).sort(), [
      "extra_0",
      "extra_2",
    ]);
    assert.equal(manager.status()[0]?.tools, 6);
    assert.equal(seen.at(-1)?.tools, 6, "the new count is announced");
    const beforeFlood = await lists(manager);
    assert.ok(beforeFlood <= 1 + 2, `three notifications, ${beforeFlood - 1} re-lists`);

    // 1,000 notifications in one burst: the re-list in flight and one after it, no more.
    await callText(manager, "add_tools", { prefix: "flood", count: 1000 });
    assert.equal(manager.status()[0]?.tools, 1006);
    const afterFlood = await lists(manager);
    assert.ok(afterFlood - beforeFlood <= 2, `${afterFlood - beforeFlood} re-lists for 1,000`);

    // A removed tool leaves the list; calling it is unknown_tool.
    await callText(manager, "remove_tool", { name: "flood_999" });
    assert.ok(!(await names(manager)).includes("flood_999"));
    assert.equal(manager.status()[0]?.tools, 1005);
    await assert.rejects(
      manager.call("changing", "flood_999", { word: "x" }, { signal: signal() }),
      (e) => (e as { code?: string }).code === "unknown_tool",
    );

    // The server's own list at the bound (extra_1 is listed, only not offered), then one past.
    const listed = 4 + 3 + 999;
    await callText(manager, "add_tools", { prefix: "fill", count: MCP_SERVER_TOOLS - listed });
    assert.deepEqual(manager.status()[0], {
      name: "changing",
      transport: "stdio",
      state: "ready",
      tools: MCP_SERVER_TOOLS - 1,
      error: null,
    });
    const pid = descendants(process.pid).find((p) => p.cmdline.includes(CHANGING))?.pid;
    assert.ok(pid);
    await callText(manager, "add_tools", { prefix: "over", count: 1 });
    assert.deepEqual(manager.status()[0], {
      name: "changing",
      transport: "stdio",
      state: "failed",
      tools: 0,
      error: "tool_limit",
    });
    assert.equal(seen.at(-1)?.error, "tool_limit");
    assert.deepEqual(await manager.tools({ signal: signal() }), [], "not restarted");
    await allGone([pid]);
  } finally {
    await manager.close();
  }
});

test("a re-list that gets no answer within the startup timeout keeps the previous list; the next notification reads it again", {
  timeout: 240_000,
}, async () => {
  // Long enough for a start on a loaded machine; the re-list's own bound is the same timeout.
  const manager = new McpManager({
    servers: { changing: changingStdio({ startup_timeout_ms: 8000 }) as never },
    env: process.env,
    workspace: process.cwd(),
  });
  try {
    manager.begin();
    assert.equal((await manager.tools({ signal: signal() })).length, 4);
    await callText(manager, "ignore_lists", { on: true });
    // The call returns once its re-list has failed (timed out), the old list still offered.
    assert.equal(await callText(manager, "add_tools", { prefix: "late", count: 1 }), "added 1");
    assert.deepEqual(manager.status()[0], {
      name: "changing",
      transport: "stdio",
      state: "ready",
      tools: 4,
      error: null,
    });
    assert.ok(!(await names(manager)).includes("late_0"));
    await callText(manager, "ignore_lists", { on: false });
    await callText(manager, "add_tools", { prefix: "later", count: 1 });
    assert.equal(manager.status()[0]?.tools, 6);
    assert.ok((await names(manager)).includes("late_0"));
  } finally {
    await manager.close();
  }
});

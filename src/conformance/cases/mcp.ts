import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { McpStatusResult } from "../../protocol/schemas/mcp.js";
import type { ConformanceCase } from "../case.js";

const CLAUSE =
  "docs/mcp.md, Status: mcp.status lists each configured server; mcp.changed on every change.";

/** A home whose `mcp_servers` holds a disabled server and one whose command does not exist. */
function writeServers(home: string): void {
  writeFileSync(
    join(home, "config.json"),
    JSON.stringify({
      mcp_servers: {
        gone: { command: "/nonexistent/mc-kit-mcp-server", startup_timeout_ms: 5000 },
        off: { url: "http://127.0.0.1:9/mcp", enabled: false },
      },
    }),
  );
}

/** `mcp.status` (ours; docs/mcp.md): black-box, frames and the temp home only. */
export const MCP_CASES: ConformanceCase[] = [
  {
    id: "mcp.status.empty",
    tier: "MUST",
    clause: CLAUSE,
    title: "without mcp_servers, mcp.status answers an empty list",
    async run({ spawn }) {
      const child = spawn();
      const init = await child.initialize(["mcp"]);
      assert.ok(init.result, `initialize refused: ${JSON.stringify(init.error)}`);
      const answer = await child.call("mcp.status", {});
      assert.deepEqual(McpStatusResult().parse(answer), { servers: [] });
    },
  },
  {
    id: "mcp.status.states",
    tier: "MUST",
    clause: CLAUSE,
    title:
      "a disabled server is disabled; one that cannot start fails with a safe code, announced by mcp.changed",
    async run({ spawn, box }) {
      writeServers(box.home);
      const child = spawn();
      await child.initialize(["mcp"]);
      const isFailure = (f: object) => {
        const params = (f as { method?: string; params?: { server?: { name?: string } } }).params;
        return (
          (f as { method?: string }).method === "mcp.changed" && params?.server?.name === "gone"
        );
      };
      if (!child.frames.some(isFailure)) await child.waitFor(isFailure, 15_000);
      const answer = await child.call("mcp.status", {});
      assert.deepEqual(McpStatusResult().parse(answer).servers, [
        { name: "gone", transport: "stdio", state: "failed", tools: 0, error: "spawn_failed" },
        { name: "off", transport: "http", state: "disabled", tools: 0, error: null },
      ]);
      for (const line of child.rawLines) assert.ok(!line.includes("nonexistent"), line);
    },
  },
  {
    id: "mcp.status.flooding",
    tier: "MUST",
    clause:
      "docs/mcp.md, Bounds on what a server sends: a server that keeps sending unasked lines is stopped and reported failed with flooding.",
    title: "a server flooding stdout with non-JSON lines is failed: flooding, and stopped",
    async run({ spawn, box }) {
      // Noise without end from its first moment, before any handshake.
      const noise =
        "const l='not JSON-RPC, just noise\\n'.repeat(200);" +
        "const go=()=>process.stdout.write(l,()=>setImmediate(go));go();" +
        "process.stdin.resume();";
      writeFileSync(
        join(box.home, "config.json"),
        JSON.stringify({
          mcp_servers: {
            noisy: { command: process.execPath, args: ["-e", noise], startup_timeout_ms: 60_000 },
          },
        }),
      );
      const child = spawn();
      await child.initialize(["mcp"]);
      const isFailure = (f: object) =>
        (f as { method?: string }).method === "mcp.changed" &&
        (f as { params?: { server?: { state?: string } } }).params?.server?.state === "failed";
      if (!child.frames.some(isFailure)) await child.waitFor(isFailure, 60_000);
      const answer = await child.call("mcp.status", {});
      assert.deepEqual(McpStatusResult().parse(answer).servers, [
        { name: "noisy", transport: "stdio", state: "failed", tools: 0, error: "flooding" },
      ]);
    },
  },
  {
    id: "mcp.status.capability",
    tier: "MUST",
    clause: CLAUSE,
    title: "mcp.status without the mcp capability is unsupported_capability",
    async run({ spawn, box }) {
      writeServers(box.home);
      const child = spawn();
      await child.initialize(["settings.check"]);
      assert.equal(await child.errorCode("mcp.status", {}), "unsupported_capability");
    },
  },
];

import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { McpStatusResult } from "../../protocol/schemas/mcp.js";
import type { ConformanceCase } from "../case.js";
import { delay, within } from "../expect.js";

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

/**
 * A minimal real MCP server over stdio (JSON lines): answers initialize, tools/list (no tools)
 * and any other request with an empty result; exits at its stdin's EOF, as servers do.
 */
const EOF_SERVER =
  'const rl=require("readline").createInterface({input:process.stdin});' +
  'rl.on("line",(l)=>{let m;try{m=JSON.parse(l)}catch{return}' +
  'if(m.id===undefined||typeof m.method!=="string")return;' +
  'const r=m.method==="initialize"?{protocolVersion:m.params.protocolVersion,' +
  'capabilities:{tools:{}},serverInfo:{name:"kit-eof",version:"1.0.0"}}' +
  ':m.method==="tools/list"?{tools:[]}:{};' +
  'process.stdout.write(JSON.stringify({jsonrpc:"2.0",id:m.id,result:r})+"\\n")});' +
  'rl.on("close",()=>process.exit(0));';

/**
 * A wrapper, as launcher scripts are: it starts a long-lived process of its own ($1 gets its
 * pid), writes its own pid ($2; the server keeps it) and execs the server.
 */
const WRAPPER =
  'sleep 600 </dev/null >/dev/null 2>&1 & echo $! > "$1"; echo $$ > "$2"; exec "$3" -e "$4"';

/** Whether process `pid` runs (Linux: a zombie does not). */
function runs(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (process.platform !== "linux") return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

async function gone(pid: number, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (runs(pid)) {
    assert.ok(Date.now() < end, `still running ${ms} ms after the kill: ${what}`);
    await delay(50);
  }
}

const readPid = (path: string) => Number(readFileSync(path, "utf8").trim());

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
  {
    id: "mcp.killed_child",
    tier: "SHOULD",
    clause:
      "docs/mcp.md, Lifecycle, The child killed: after kill -9 of the child, a stdio server that exits at its stdin's EOF ends, and so does whatever it (or its wrapper) started in its process group.",
    title: "kill -9 of the child: a wrapped server and the wrapper's long-lived process both end",
    async run({ spawn, box }) {
      const grandchildPid = join(box.root, "grandchild.pid");
      const serverPid = join(box.root, "server.pid");
      writeFileSync(
        join(box.home, "config.json"),
        JSON.stringify({
          mcp_servers: {
            wrapped: {
              command: "/bin/sh",
              args: ["-c", WRAPPER, "sh", grandchildPid, serverPid, process.execPath, EOF_SERVER],
              startup_timeout_ms: 60_000,
            },
          },
        }),
      );
      const child = spawn();
      await child.initialize(["mcp"]);
      const isReady = (f: object) =>
        (f as { method?: string }).method === "mcp.changed" &&
        (f as { params?: { server?: { state?: string } } }).params?.server?.state === "ready";
      if (!child.frames.some(isReady)) await child.waitFor(isReady, 60_000);
      const answer = await child.call("mcp.status", {});
      assert.deepEqual(
        McpStatusResult()
          .parse(answer)
          .servers.map((s) => [s.name, s.state]),
        [["wrapped", "ready"]],
      );
      assert.ok(existsSync(grandchildPid) && existsSync(serverPid), "the wrapper wrote its pids");
      const grandchild = readPid(grandchildPid);
      const server = readPid(serverPid);
      try {
        assert.ok(runs(grandchild) && runs(server), "the server and the wrapper's process run");
        child.kill("SIGKILL");
        await within(child.exited, 10_000, "the killed child's exit");
        await gone(server, "the server");
        await gone(grandchild, "the process the wrapper started");
      } finally {
        // Whatever the verdict, the case leaves nothing of its own running.
        for (const pid of [grandchild, server]) if (runs(pid)) process.kill(pid, "SIGKILL");
      }
    },
  },
];

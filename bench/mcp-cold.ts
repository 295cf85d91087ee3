import { performance } from "node:perf_hooks";
import { McpManager } from "../src/agent/mcp/manager.js";
import { loadSettings } from "../src/store/settings.js";

/**
 * For bench/mcp.bench.ts, in a fresh process: the first (cold) run of the child's
 * server-dependent work before its `initialize` answer, as the child pays it once: reading
 * `<home>/config.json` (zod compiles each schema at its first parse) and making the manager.
 * Prints the milliseconds. Usage: node dist/bench/mcp-cold.js <home> <workspace>
 */
const [home, workspace] = process.argv.slice(2) as [string, string];
const started = performance.now();
const settings = loadSettings(home, workspace);
new McpManager({ servers: settings.global.mcp_servers, env: {}, workspace });
process.stdout.write(`${performance.now() - started}\n`);

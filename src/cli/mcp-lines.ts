import type { McpError, McpServerStatus } from "../client/index.js";
import { plainLength, type Terminal, table } from "./terminal.js";

/**
 * How `mc-agent mcp` and `mc-agent doctor` show MCP servers (docs/cli.md, "mcp"): one line per
 * server, its name, transport, state, tool count and the safe error code with what it means.
 * Nothing else is known here: the status never carries a command line, a URL or a message.
 */

/** What each error code means, for a person (docs/mcp.md, "Status"). */
const MEANING: Record<McpError, string> = {
  variable_missing: 'an "env" or "headers" value names an unset variable',
  spawn_failed: "its command could not be started",
  startup_timeout: "no handshake and tool list within its startup_timeout_ms",
  connect_failed: "the handshake or the tool list failed",
  exited: "it stopped after it was ready (started again on next use)",
  restart_limit: "it exited again after 3 restarts within 5 minutes",
  tool_limit: "it lists more than 1,024 tools",
  flooding: "it kept sending more than the bound allows unasked (stopped, not restarted)",
};

export const NO_MCP_SERVERS =
  'No MCP servers configured (add them under "mcp_servers" in MC_HOME/config.json; docs/mcp.md).';

/** The lines, columns aligned; `indent` goes in front of each. */
export function mcpLines(term: Terminal, servers: McpServerStatus[], indent = ""): string[] {
  const width = Math.max(0, ...servers.map((s) => String(s.tools).length));
  const rows = servers.map((s) => [
    `${indent}${term.bold(s.name)}`,
    s.transport,
    paintState(term, s.state),
    `${String(s.tools).padStart(width)} ${s.tools === 1 ? "tool" : "tools"}`,
    s.error ? `${s.error}: ${MEANING[s.error]}` : "",
  ]);
  return table(rows, plainLength);
}

function paintState(term: Terminal, state: McpServerStatus["state"]): string {
  if (state === "ready") return term.green(state);
  if (state === "failed") return term.red(state);
  if (state === "starting") return term.yellow(state);
  return term.dim(state);
}

/** A sentence that counts the servers by state: `3 MCP servers: 2 ready, 1 failed.` */
export function mcpSummary(servers: McpServerStatus[]): string {
  const counts = new Map<string, number>();
  for (const s of servers) counts.set(s.state, (counts.get(s.state) ?? 0) + 1);
  const parts = ["ready", "starting", "failed", "disabled"].flatMap((state) =>
    counts.has(state) ? [`${counts.get(state)} ${state}`] : [],
  );
  const noun = servers.length === 1 ? "MCP server" : "MCP servers";
  return `${servers.length} ${noun}: ${parts.join(", ")}.`;
}

import type { TrustFinding } from "../offline/workspace-trust.js";

/** "MCP servers (a, b) and hooks": what waits for a folder's trust, by name only. */
export function waitingText(waiting: TrustFinding["waiting"]): string {
  const parts: string[] = [];
  if (waiting.mcp_servers.length > 0) parts.push(`MCP servers (${waiting.mcp_servers.join(", ")})`);
  if (waiting.hooks) parts.push("hooks");
  return parts.length > 0 ? parts.join(" and ") : "no hooks and no MCP servers";
}

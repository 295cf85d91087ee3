/**
 * What the model's MCP tools need from the servers (docs/mcp.md, "Tools for the model"): the
 * tools the enabled servers list, and one call. The server manager (src/agent/mcp/) provides it;
 * this side never starts, restarts or stops a server.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** One tool of one server, as its `tools/list` gave it. */
export interface McpToolInfo {
  /** The server's name in the config (or the ACP session's `mcpServers`). */
  server: string;
  /** The tool's own name on its server. */
  name: string;
  description?: string | undefined;
  /** The tool's JSON Schema of its arguments (`type: "object"`). */
  inputSchema: Record<string, unknown>;
  /** Hints only: the server says them, nothing checks them. */
  annotations?: { readOnlyHint?: boolean | undefined; title?: string | undefined } | undefined;
}

export interface McpToolSource {
  /**
   * The tools of every enabled server that is ready, waiting for a starting one no longer than
   * its startup timeout; a failed server has none. Never throws.
   */
  tools(options: { signal: AbortSignal; waitMs?: number }): Promise<McpToolInfo[]>;
  /**
   * Calls one tool. Rejects on a dead server, a timeout or a protocol error, with an error whose
   * `code` says which (the manager's McpCallError codes: failureText); aborting `signal` makes
   * the SDK send `notifications/cancelled` for the request and reject.
   */
  call(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; timeoutMs?: number },
  ): Promise<CallToolResult>;
}

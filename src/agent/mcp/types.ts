import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerStatus } from "../../protocol/schemas/mcp.js";

/**
 * The MCP manager's interface (docs/mcp.md): what the turn engine and the handlers use. The
 * manager owns every configured server's process or connection; nothing else talks to them.
 * Stable: a change is announced in the commit message.
 */
export interface McpServers {
  /**
   * The tools of every ready server (after its allow/deny filter), in configuration order then
   * the server's own order. Servers still starting are waited for, each only up to its own
   * startup timeout (or `waitMs`, when shorter: 0 waits for none); a server that exited is
   * restarted first (the restart cap allowing). Never throws: a server that is not ready by
   * then is simply absent. An aborted `signal` ends the wait at once with what is ready.
   */
  tools(options: { signal: AbortSignal; waitMs?: number }): Promise<McpToolInfo[]>;
  /**
   * Calls one tool of one server. Resolves with the server's result (an `isError` result
   * included: that is the tool's own failure); rejects only with McpCallError. A server that
   * exited is restarted first (the cap allowing). Aborting `signal` cancels the request through
   * the SDK, which sends MCP's `notifications/cancelled`, and rejects with `cancelled`.
   * `timeoutMs` defaults to the server's `call_timeout_ms`. When the server announced a change
   * of its tools (`list_changed`) during the call, it resolves once they were read again (within
   * the same timeout), so that `tools` after it has them.
   */
  call(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; timeoutMs?: number },
  ): Promise<CallToolResult>;
  /** Every configured server, in configuration order (the `mcp.status` result). */
  status(): McpServerStatus[];
  /** Called with a server's new status whenever its state, tool count or error changes. */
  onChange(listener: (status: McpServerStatus) => void): () => void;
  /**
   * Stops every server within the cleanup bound: stdio servers get their stdin closed, then
   * SIGTERM, then SIGKILL; HTTP sessions are closed. Idempotent; later calls of `tools` answer
   * nothing and `call` rejects with `server_unavailable`.
   */
  close(): Promise<void>;
}

/** One tool as its server lists it (names are the server's own, not yet namespaced). */
export interface McpToolInfo {
  server: string;
  name: string;
  description?: string;
  /** The tool's JSON Schema for its arguments, as the server sent it (an object schema). */
  inputSchema: Record<string, unknown>;
  /** The server's hints; untrusted (docs/mcp.md). */
  annotations?: ToolAnnotations;
}

/**
 * Why a call failed, as a fixed code (never a message from the server or the system):
 * - `unknown_server`: no such configured server;
 * - `unknown_tool`: the server does not list that tool, or the allow/deny filter hides it;
 * - `server_unavailable`: disabled, failed, not ready within its startup timeout, or closed;
 * - `call_timeout`: no answer within the call timeout (the request is cancelled);
 * - `cancelled`: the caller's signal was aborted (the request is cancelled);
 * - `server_exited`: the server went away during the call;
 * - `call_failed`: the server answered with a protocol error (invalid arguments included);
 * - `result_too_large`: the server's answer was over the stdio line bound (10 MiB); that call
 *   alone fails, the server is kept (src/agent/mcp/oversized-answer.ts).
 */
const MCP_CALL_ERRORS = [
  "unknown_server",
  "unknown_tool",
  "server_unavailable",
  "call_timeout",
  "cancelled",
  "server_exited",
  "call_failed",
  "result_too_large",
] as const;
type McpCallErrorCode = (typeof MCP_CALL_ERRORS)[number];

export class McpCallError extends Error {
  override readonly name = "McpCallError";
  constructor(readonly code: McpCallErrorCode) {
    super(`MCP call failed: ${code}`);
  }
}

export type { CallToolResult, ToolAnnotations };

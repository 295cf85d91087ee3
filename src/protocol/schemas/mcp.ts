import { z } from "zod";
import { type Infer, lazy } from "../lazy.js";

/**
 * The `mcp` capability (docs/mcp.md): what became of each MCP server configured under
 * `mcp_servers` in `MC_HOME/config.json`. Nothing here names a command line, a URL, a header,
 * an environment value or a server's stderr: a server is its configured name, its transport
 * and a safe code.
 */

/**
 * A server's configured name: it becomes part of `mcp__<server>__<tool>`, so no `__` inside it
 * and no `_` at either end (the separator stays unambiguous); at most 24 characters.
 */
export const MCP_SERVER_NAME_PATTERN = /^(?!.*__)[A-Za-z0-9](?:[A-Za-z0-9_-]{0,22}[A-Za-z0-9-])?$/;
export const McpServerName = lazy(() => z.string().regex(MCP_SERVER_NAME_PATTERN));

const MCP_TRANSPORTS = ["stdio", "http"] as const;
const MCP_STATES = ["starting", "ready", "failed", "disabled"] as const;

/**
 * Why a server is `failed` (or why its last start failed). Fixed codes, never a message from
 * the server or the system.
 * - `variable_missing`: an `env` or `headers` value names an environment variable that is unset;
 * - `spawn_failed`: the command could not be started;
 * - `startup_timeout`: no complete handshake and tool list within `startup_timeout_ms`;
 * - `connect_failed`: the handshake or the tool list failed (an HTTP error, a protocol error,
 *   the process exiting before it answered);
 * - `exited`: it was ready and then its process ended or its connection closed (restarted on next
 *   use);
 * - `restart_limit`: it exited again after 3 restarts within 5 minutes (stays failed);
 * - `tool_limit`: it lists more tools than a server may offer;
 * - `flooding`: it kept sending more unasked (lines that are not answers) than the bound allows
 *   (docs/mcp.md, "Bounds on what a server sends"); stopped, and not restarted.
 */
const MCP_ERRORS = [
  "variable_missing",
  "spawn_failed",
  "startup_timeout",
  "connect_failed",
  "exited",
  "restart_limit",
  "tool_limit",
  "flooding",
] as const;

export const McpServerStatus = lazy(() =>
  z.strictObject({
    name: McpServerName(),
    transport: z.enum(MCP_TRANSPORTS),
    state: z.enum(MCP_STATES),
    /** Tools offered after the allow/deny filter; 0 unless `ready`. */
    tools: z.number().int().min(0),
    error: z.enum(MCP_ERRORS).nullable(),
  }),
);

export const McpStatusResult = lazy(() =>
  z.strictObject({
    /** In configuration order (the keys of `mcp_servers` as written). */
    servers: z.array(McpServerStatus()).max(32),
  }),
);

/** `mcp.changed`: one server's new status, whenever its state, tool count or error changed. */
export const McpChangedParams = lazy(() => z.strictObject({ server: McpServerStatus() }));

export type McpServerStatus = Infer<typeof McpServerStatus>;
export type McpStatusResult = Infer<typeof McpStatusResult>;
export type McpChangedParams = Infer<typeof McpChangedParams>;
export type McpTransport = (typeof MCP_TRANSPORTS)[number];
export type McpState = (typeof MCP_STATES)[number];
export type McpError = (typeof MCP_ERRORS)[number];

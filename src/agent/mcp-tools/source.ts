/**
 * What the model's MCP tools need from the servers (docs/mcp.md, "Tools for the model"): the
 * tools the enabled servers list, and one call, as the server manager (src/agent/mcp/) gives
 * them. This side never starts, restarts or stops a server.
 */
import type { McpServers } from "../mcp/types.js";

export type { McpToolInfo } from "../mcp/types.js";

/** The manager's `tools` and `call` (their contracts are written there, in types.ts). */
export type McpToolSource = Pick<McpServers, "tools" | "call">;

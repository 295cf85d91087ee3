/**
 * The names MCP tools have for the model and on the wire (docs/mcp.md, "Tools for the model"):
 * `mcp__<server>__<tool>` within the providers' function-name limit (64 of `[A-Za-z0-9_-]`),
 * and the built-in `mcp_search` of deferred loading.
 */
import { z } from "zod";
import { lazy } from "../lazy.js";

export const MCP_TOOL_NAME = /^mcp__[A-Za-z0-9_-]{1,59}$/;
export const MCP_SEARCH = "mcp_search";
export const McpToolName = lazy(() => z.string().regex(MCP_TOOL_NAME));

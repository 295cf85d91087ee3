/**
 * The names the model sees for MCP tools: `mcp__<server>__<tool>`. Providers take function
 * names of `[A-Za-z0-9_-]{1,64}` (OpenAI, Anthropic and the compatible servers alike), so any
 * other character becomes `_`, and a name that was changed or is longer than 64 keeps its first
 * 55 characters and ends with `_` and 8 hex digits of the SHA-256 of `<server>\0<tool>`:
 * deterministic, and two different tools never get one name by the cut.
 */
import { createHash } from "node:crypto";

export { MCP_SEARCH, MCP_TOOL_NAME } from "../../protocol/schemas/mcp-tool-names.js";

const MCP_PREFIX = "mcp__";
const NAME_LIMIT = 64;

export function mcpToolName(server: string, tool: string): string {
  const plain = `${MCP_PREFIX}${server}__${tool}`;
  const safe = plain.replace(/[^A-Za-z0-9_-]/g, "_");
  if (safe === plain && plain.length <= NAME_LIMIT) return plain;
  const hash = createHash("sha256").update(`${server}\0${tool}`).digest("hex").slice(0, 8);
  return `${safe.slice(0, NAME_LIMIT - 9)}_${hash}`;
}

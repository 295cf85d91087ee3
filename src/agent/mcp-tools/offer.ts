/**
 * The MCP tools of one turn (docs/mcp.md, "Tools for the model", "Deferred loading"): the
 * enabled servers' tools that the turn's permissions offer, each under its namespaced name, and
 * which of them the model is sent at each step. Up to DEFERRED_TOOLS tools and
 * DEFERRED_SCHEMA_BYTES of schema they are all sent; past either, only `mcp_search` is, plus the
 * tools the model loaded with it during this turn.
 */
import type { Permissions } from "../../protocol/schemas/turns.js";
import type { ToolSpec } from "../providers/provider.js";
import { toolSpecs } from "../tools/index.js";
import type { Tool } from "../tools/tool.js";
import { type McpTool, mcpTool } from "./mcp-tool.js";
import { mcpToolName } from "./names.js";
import { LoadedTools, mcpSearchTool } from "./search.js";
import type { McpToolInfo, McpToolSource } from "./source.js";

export const DEFERRED_TOOLS = 32;
export const DEFERRED_SCHEMA_BYTES = 24 * 1024;

export class McpOffer {
  /** Every MCP tool the turn may call, by its namespaced name. */
  readonly catalogue = new Map<string, McpTool>();
  readonly deferred: boolean;
  private readonly loaded = new LoadedTools();
  private readonly search: Tool | null;

  constructor(infos: McpToolInfo[], permissions: Permissions, source: McpToolSource) {
    for (const info of infos) {
      // The hint is the server's word, not checked: docs/mcp.md says so.
      if (permissions === "read_only" && info.annotations?.readOnlyHint !== true) continue;
      let name = mcpToolName(info.server, info.name);
      // Two tools whose names clean to the same text: the later one gets the hashed form.
      if (this.catalogue.has(name)) name = mcpToolName(`${info.server}\0`, info.name);
      if (this.catalogue.has(name)) continue;
      this.catalogue.set(name, mcpTool(name, info, source));
    }
    this.deferred =
      this.catalogue.size > DEFERRED_TOOLS || schemaBytes(this.catalogue) > DEFERRED_SCHEMA_BYTES;
    this.search = this.deferred ? mcpSearchTool(this.catalogue, this.loaded) : null;
  }

  /** The turn's MCP tools from its source; none when there is no source. */
  static async of(
    source: McpToolSource | undefined,
    permissions: Permissions,
    signal: AbortSignal,
  ): Promise<McpOffer | null> {
    if (!source) return null;
    const infos = await source.tools({ signal });
    return infos.length === 0 ? null : new McpOffer(infos, permissions, source);
  }

  /** Every tool a call may name: the MCP tools and, when deferred, `mcp_search`. */
  callable(): Tool[] {
    return [...(this.search ? [this.search] : []), ...this.catalogue.values()];
  }

  /** What this step sends the model: all of them, or `mcp_search` and the loaded ones. */
  specs(): ToolSpec[] {
    if (!this.search) return [...this.catalogue.values()].map(specOf);
    const loaded = [...this.loaded.names].map((name) => this.catalogue.get(name) as McpTool);
    return [...toolSpecs([this.search]), ...loaded.map(specOf)];
  }

  /** The tools the system prompt names: `mcp_search` when deferred, else none (they are many). */
  named(): Tool[] {
    return this.search ? [this.search] : [];
  }
}

function specOf(tool: McpTool): ToolSpec {
  return { name: tool.name, description: tool.description, parameters: tool.parameters };
}

/** The size of what the tools would add to every request: names, descriptions, schemas. */
function schemaBytes(catalogue: Map<string, McpTool>): number {
  let bytes = 0;
  for (const tool of catalogue.values())
    bytes += Buffer.byteLength(JSON.stringify(specOf(tool)), "utf8");
  return bytes;
}

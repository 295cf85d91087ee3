/**
 * The MCP tools of one turn (docs/mcp.md, "Tools for the model", "Deferred loading"): the
 * enabled servers' tools that the turn's permissions offer, each under its namespaced name, and
 * which of them the model is sent at each step. Up to DEFERRED_TOOLS tools and
 * DEFERRED_SCHEMA_BYTES of schema they are all sent; past either, only `mcp_search` is, plus the
 * tools the model loaded with it during this turn.
 *
 * The offer never waits at a turn's start: it holds the tools of the servers ready then, and
 * `refresh` adds those of servers that became ready since (before every later step, waiting for
 * none), or, when the model called a tool it was not offered, those that become ready within
 * their startup timeouts (docs/mcp.md, "A turn and a starting server"). A server that re-listed
 * its tools (`notifications/tools/list_changed`) has its part replaced: new tools join, removed
 * ones leave, and the tools kept keep their names.
 */
import type { Permissions } from "../../protocol/schemas/turns.js";
import type { ToolSpec } from "../providers/provider.js";
import { toolSpecs } from "../tools/index.js";
import type { Tool } from "../tools/tool.js";
import { type McpTool, mcpTool } from "./mcp-tool.js";
import { MCP_SEARCH, MCP_TOOL_NAME, mcpToolName } from "./names.js";
import { LoadedTools, mcpSearchTool } from "./search.js";
import type { McpToolInfo, McpToolSource } from "./source.js";

const DEFERRED_TOOLS = 32;
const DEFERRED_SCHEMA_BYTES = 24 * 1024;

export class McpOffer {
  /** Every MCP tool the turn may call, by its namespaced name. */
  readonly catalogue = new Map<string, McpTool>();
  private deferredNow = false;
  private readonly loaded = new LoadedTools();
  private search: Tool | null = null;

  constructor(
    infos: McpToolInfo[],
    private readonly permissions: Permissions,
    private readonly source: McpToolSource,
  ) {
    this.add(infos);
  }

  /** Whether the tools are past the thresholds; once true, true for the rest of the turn. */
  get deferred(): boolean {
    return this.deferredNow;
  }

  /**
   * Takes the ready servers' tools again; `waitMs` 0 waits for none, undefined waits for each
   * starting server up to its startup timeout. Whether the offer changed.
   */
  async refresh(signal: AbortSignal, waitMs?: number): Promise<boolean> {
    const infos = await this.source.tools(waitMs === undefined ? { signal } : { signal, waitMs });
    return this.add(infos);
  }

  /**
   * The servers that answered now get exactly these tools; a server absent from `infos` (not
   * ready at this moment: restarting, failed) keeps what it had, since its calls name their own
   * failure or restart it. Whether anything changed.
   */
  private add(infos: McpToolInfo[]): boolean {
    const { permissions, source } = this;
    const listed = new Map(infos.map((info) => [`${info.server}\0${info.name}`, info]));
    const servers = new Set(infos.map((info) => info.server));
    const known = new Set<string>();
    let changed = false;
    for (const [name, tool] of this.catalogue) {
      const key = `${tool.info.server}\0${tool.info.name}`;
      const info = listed.get(key);
      if (!servers.has(tool.info.server)) known.add(key);
      else if (!info) {
        this.catalogue.delete(name);
        this.loaded.names.delete(name);
        changed = true;
      } else {
        known.add(key);
        // The same tool re-listed with another description or schema: offered as it is now.
        if (info !== tool.info && JSON.stringify(info) !== JSON.stringify(tool.info)) {
          this.catalogue.set(name, mcpTool(name, info, source));
          changed = true;
        }
      }
    }
    for (const info of infos) {
      if (known.has(`${info.server}\0${info.name}`)) continue;
      // The hint is the server's word, not checked: docs/mcp.md says so.
      if (permissions === "read_only" && info.annotations?.readOnlyHint !== true) continue;
      let name = mcpToolName(info.server, info.name);
      // Two tools whose names clean to the same text: the later one gets the hashed form.
      if (this.catalogue.has(name)) name = mcpToolName(`${info.server}\0`, info.name);
      if (this.catalogue.has(name)) continue;
      this.catalogue.set(name, mcpTool(name, info, source));
      changed = true;
    }
    // The search tool reads the catalogue itself, so tools added later are found too.
    if (
      !this.deferredNow &&
      (this.catalogue.size > DEFERRED_TOOLS || schemaBytes(this.catalogue) > DEFERRED_SCHEMA_BYTES)
    ) {
      this.deferredNow = true;
      this.search = mcpSearchTool(this.catalogue, this.loaded);
    }
    return changed;
  }

  /** The turn's MCP tools from its source: the ready servers' now; none without a source. */
  static async of(
    source: McpToolSource | undefined,
    permissions: Permissions,
    signal: AbortSignal,
  ): Promise<McpOffer | null> {
    if (!source) return null;
    const infos = await source.tools({ signal, waitMs: 0 });
    return new McpOffer(infos, permissions, source);
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

/** Every tool a call of this step may name, by name: the built-ins, then the MCP ones. */
export function turnTools(builtins: Tool[], mcp: McpOffer | null): Map<string, Tool> {
  return new Map(
    [...builtins, ...(mcp?.callable() ?? [])].map((tool) => [tool.name as string, tool]),
  );
}

/**
 * Whether a step's calls name an MCP tool (or `mcp_search`) the turn was not offered: then the
 * turn waits for the starting servers, each up to its startup timeout, before running them.
 */
export function wantsStartingServer(
  calls: ReadonlyArray<{ name: string }>,
  offered: ReadonlyMap<string, Tool>,
): boolean {
  return calls.some(
    (call) =>
      !offered.has(call.name) && (call.name === MCP_SEARCH || MCP_TOOL_NAME.test(call.name)),
  );
}

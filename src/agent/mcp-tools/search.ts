/**
 * `mcp_search`, the built-in tool of deferred loading (docs/mcp.md, "Deferred loading"): when
 * the enabled MCP tools are too many to send one by one, the model finds them by words and
 * loads the ones it needs; a loaded tool's schema is in the tool list from the next step on,
 * for the rest of the turn.
 *
 * Ranking, per tool, for each distinct query word (lower case, split on anything but letters
 * and digits): 3 points when the word is in the tool's own name, 2 in its server's name, 1 in its
 * description; a query equal to the tool's name (namespaced or not) gets 100 more. Tools with
 * no point are not listed; ties go by name. At most SEARCH_RESULTS are listed.
 */
import { z } from "zod";
import { clipChars } from "../../protocol/text-cut.js";
import { parseToolInput, type Tool, ToolError } from "../tools/tool.js";
import type { McpTool } from "./mcp-tool.js";
import { MCP_SEARCH } from "./names.js";

const SEARCH_RESULTS = 10;
/** At most this many tools are loaded in one turn: the deferred threshold itself. */
const LOADED_LIMIT = 32;
const LISTED_DESCRIPTION_CHARS = 200;

const SearchInput = z.strictObject({
  query: z
    .string()
    .max(500)
    .optional()
    .describe("Words to look for in the MCP tools' names and descriptions."),
  load: z
    .array(z.string().max(64))
    .max(LOADED_LIMIT)
    .optional()
    .describe(
      "Names (mcp__server__tool) of tools to load: they can be called from your next step on.",
    ),
});

/** The tools loaded so far in this turn, in load order. */
export class LoadedTools {
  readonly names = new Set<string>();
}

export function mcpSearchTool(catalogue: ReadonlyMap<string, McpTool>, loaded: LoadedTools): Tool {
  return {
    name: MCP_SEARCH,
    kind: "read",
    description:
      `Find and load MCP tools (${catalogue.size} available, not listed one by one). Give ` +
      "query to search their names and descriptions, and load with the names of the tools you " +
      "need: their full schemas are added to your tools from the next step on.",
    input: SearchInput,
    async plan(raw) {
      const input = parseToolInput(SearchInput, raw);
      if (input.query === undefined && input.load === undefined)
        throw new ToolError("invalid input: give query, load or both");
      const title = input.load?.length
        ? `Load ${input.load.length} MCP tool${input.load.length === 1 ? "" : "s"}`
        : `Search MCP tools for "${clipChars(input.query ?? "", 60)}"`;
      return {
        title,
        approval: null,
        async execute() {
          const lines: string[] = [];
          if (input.load) lines.push(...load(input.load, catalogue, loaded));
          if (input.query !== undefined) lines.push(...search(input.query, catalogue, loaded));
          const output = lines.join("\n");
          return { status: "completed", output, summary: title, exit_code: null, diff: null };
        },
      };
    },
  };
}

function load(names: string[], catalogue: ReadonlyMap<string, McpTool>, loaded: LoadedTools) {
  const unknown = names.filter((name) => !catalogue.has(name));
  if (unknown.length > 0)
    throw new ToolError(
      `no MCP tool named ${unknown.map((n) => JSON.stringify(n)).join(", ")}; search first`,
    );
  const fresh = [...new Set(names)].filter((name) => !loaded.names.has(name));
  if (loaded.names.size + fresh.length > LOADED_LIMIT)
    throw new ToolError(`at most ${LOADED_LIMIT} MCP tools can be loaded in one turn`);
  for (const name of fresh) loaded.names.add(name);
  return [`Loaded: ${names.join(", ")}. They can be called from your next step on.`];
}

function search(query: string, catalogue: ReadonlyMap<string, McpTool>, loaded: LoadedTools) {
  const ranked = rank(query, [...catalogue.values()]).slice(0, SEARCH_RESULTS);
  if (ranked.length === 0) return ["No MCP tool matches."];
  return ranked.map((tool) => {
    const mark = loaded.names.has(tool.name) ? " (loaded)" : "";
    const about = clipChars(
      tool.info.description?.replace(/\s+/g, " ").trim() ?? "",
      LISTED_DESCRIPTION_CHARS,
    );
    return `${tool.name}${mark}: ${about}`;
  });
}

/** The ranking in this file's comment. */
export function rank(query: string, tools: McpTool[]): McpTool[] {
  const words = [
    ...new Set(
      query
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter(Boolean),
    ),
  ];
  const whole = query.trim().toLowerCase();
  const scored = tools.map((tool) => {
    const name = tool.info.name.toLowerCase();
    const server = tool.info.server.toLowerCase();
    const about = (tool.info.description ?? "").toLowerCase();
    let score = whole === name || whole === tool.name.toLowerCase() ? 100 : 0;
    for (const word of words) {
      if (name.includes(word)) score += 3;
      if (server.includes(word)) score += 2;
      if (about.includes(word)) score += 1;
    }
    return { tool, score };
  });
  return scored
    .filter((entry) => entry.score > 0)
    .sort(
      (a, b) =>
        b.score - a.score || (a.tool.name < b.tool.name ? -1 : a.tool.name > b.tool.name ? 1 : 0),
    )
    .map((entry) => entry.tool);
}

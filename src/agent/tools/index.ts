/**
 * The six tools by name, which of them a permission level offers, and their specs for a model.
 */
import { z } from "zod";
import type { Permissions } from "../../protocol/schemas/turns.js";
import { offersKind } from "../permissions.js";
import type { ToolSpec } from "../providers/provider.js";
import { editFileTool } from "./edit_file.js";
import { listDirTool } from "./list_dir.js";
import { readFileTool } from "./read_file.js";
import { searchTool } from "./search.js";
import { sandboxedShellTool, shellTool } from "./shell.js";
import type { Tool, ToolName } from "./tool.js";
import { writeFileTool } from "./write_file.js";

export const TOOLS: Record<ToolName, Tool> = {
  read_file: readFileTool,
  list_dir: listDirTool,
  search: searchTool,
  write_file: writeFileTool,
  edit_file: editFileTool,
  shell: shellTool,
};

/** The tools the model is offered under `permissions`, in TOOL_NAMES order. */
export function offeredTools(permissions: Permissions): Tool[] {
  return Object.values(TOOLS)
    .filter((tool) => offersKind(permissions, tool.kind))
    .map((tool) => (permissions === "sandboxed" && tool === shellTool ? sandboxedShellTool : tool));
}

/**
 * Function-calling specs: each input's JSON Schema (draft 2020-12 as zod writes it, without
 * `$schema`): `type: object`, `properties`, `required`, `additionalProperties: false`, which
 * both OpenAI and Anthropic accept.
 */
export function toolSpecs(tools: Tool[]): ToolSpec[] {
  return tools.map(specOf);
}

/**
 * Each tool's spec is built once per child: the tools never change, and converting their schemas
 * to JSON Schema on every turn was a fifth of a short turn's allocations.
 */
const specs = new WeakMap<Tool, ToolSpec>();

function specOf(tool: Tool): ToolSpec {
  let spec = specs.get(tool);
  if (!spec) {
    const { $schema: _, ...parameters } = z.toJSONSchema(tool.input, { io: "input" }) as Record<
      string,
      unknown
    >;
    spec = { name: tool.name, description: tool.description, parameters };
    specs.set(tool, spec);
  }
  return spec;
}

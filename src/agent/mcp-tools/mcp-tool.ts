/**
 * One MCP tool as a tool of the turn (docs/mcp.md, "Tools for the model"): planned like the
 * built-ins (its arguments checked against the server's input schema, an approval that shows the
 * call), executed through the server manager with the turn's signal, so that an interrupt makes
 * the SDK send `notifications/cancelled`.
 */
import type { JsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";
import type { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { z } from "zod";
import { clipChars, headChars } from "../../protocol/text-cut.js";
import {
  type PlannedCall,
  type Tool,
  type ToolContext,
  ToolError,
  type ToolResult,
} from "../tools/tool.js";
import { resultText } from "./result.js";
import type { McpToolInfo, McpToolSource } from "./source.js";

/** How much of a tool's description the model is offered (the server writes it). */
const DESCRIPTION_CHARS = 1024;
/** How much of the arguments an approval's command line shows. */
const APPROVAL_ARGS_CHARS = 2048;

/** A turn's MCP tool: the built-in Tool interface plus where it comes from. */
export interface McpTool extends Tool {
  kind: "mcp";
  info: McpToolInfo;
  /** The JSON Schema offered to the model (the server's, without `$schema`). */
  parameters: Record<string, unknown>;
}

export function mcpTool(name: string, info: McpToolInfo, source: McpToolSource): McpTool {
  const { $schema: _, ...parameters } = info.inputSchema;
  let check: Promise<JsonSchemaValidator<unknown> | null> | undefined;
  return {
    name,
    kind: "mcp",
    info,
    parameters,
    description: describe(info),
    // Not used for MCP tools (their schema is the server's JSON Schema): any object passes here.
    input: z.record(z.string(), z.unknown()),
    async plan(raw) {
      const args = argumentsOf(raw);
      check ??= compile(parameters);
      const validate = await check;
      if (validate) {
        const checked = validate(args);
        if (!checked.valid)
          throw new ToolError(`invalid input: ${clipChars(checked.errorMessage ?? "", 500)}`);
      }
      return planned(name, info, args, source);
    },
  };
}

function describe(info: McpToolInfo): string {
  const own = info.description?.trim() || info.annotations?.title || "(no description)";
  return clipChars(`${own} (MCP server "${info.server}")`, DESCRIPTION_CHARS);
}

/**
 * The MCP SDK's ajv validator, made at the first MCP tool call: ajv, its formats and the
 * instance's meta-schemas were a third of the turn engine's load (about 10 ms of every child's
 * first turn.start, issue 44), for the turns that call no MCP tool.
 */
let validator: Promise<AjvJsonSchemaValidator> | undefined;

/** The schema's validator, or null when it does not compile (the server still checks). */
async function compile(
  schema: Record<string, unknown>,
): Promise<JsonSchemaValidator<unknown> | null> {
  validator ??= import("@modelcontextprotocol/sdk/validation/ajv").then(
    ({ AjvJsonSchemaValidator }) => new AjvJsonSchemaValidator(),
  );
  const made = await validator;
  try {
    return made.getValidator<unknown>(schema as never);
  } catch {
    return null;
  }
}

/** The model's arguments: an object; a top-level null counts as absent, as for the built-ins. */
function argumentsOf(raw: unknown): Record<string, unknown> {
  if (raw === undefined) return {};
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new ToolError("invalid input: the arguments must be a JSON object");
  return Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== null));
}

function planned(
  name: string,
  info: McpToolInfo,
  args: Record<string, unknown>,
  source: McpToolSource,
): PlannedCall {
  const shown = headChars(JSON.stringify(args), APPROVAL_ARGS_CHARS);
  return {
    title: `Use ${info.server}: ${clipChars(info.annotations?.title ?? info.name, 80)}`,
    approval: { kind: "command", command: `${name} ${shown}`, path: null, diff: null, mcp: name },
    execute: (ctx) => execute(info, args, source, ctx),
  };
}

async function execute(
  info: McpToolInfo,
  args: Record<string, unknown>,
  source: McpToolSource,
  ctx: ToolContext,
): Promise<ToolResult> {
  let result: Awaited<ReturnType<McpToolSource["call"]>>;
  try {
    result = await source.call(info.server, info.name, args, { signal: ctx.signal });
  } catch (error) {
    if (ctx.signal.aborted) return INTERRUPTED;
    throw new ToolError(failureText(info.server, error));
  }
  const output = resultText(result, ctx.limits.tool_output_bytes);
  // What the model is shown also reaches the client, as one output piece (within
  // tool_output_bytes, below tool_stream_bytes): the only place a frontend sees an MCP result.
  if (ctx.signal.aborted) return INTERRUPTED;
  if (output !== "") await ctx.onOutput("stdout", output);
  const failed = result.isError === true;
  return {
    status: failed ? "failed" : "completed",
    output,
    summary: failed ? "the tool reported an error" : "done",
    exit_code: null,
    diff: null,
  };
}

const INTERRUPTED: ToolResult = {
  status: "interrupted",
  output: "The tool call was interrupted by the user.",
  summary: "interrupted",
  exit_code: null,
  diff: null,
};

/**
 * What the model is told of a call that failed without a result, by the manager's code
 * (src/agent/mcp/types.ts, McpCallError): never a message of the server or the system, so no
 * command line, URL or stderr reaches the model or the events.
 */
function failureText(server: string, error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const named = `the MCP server "${server}"`;
  switch (code) {
    case "unknown_tool":
      return `${named} does not offer this tool (any more)`;
    case "unknown_server":
    case "server_unavailable":
      return `${named} is not available (not started, failed, or stopped)`;
    case "call_timeout":
      return `${named} did not answer within its call timeout; the call was cancelled`;
    case "server_exited":
      return `${named} stopped during the call; it is started again on next use, so the call may be retried`;
    case "call_failed":
      return `${named} refused the call (a protocol error); check the arguments against the tool's schema`;
    case "result_too_large":
      return `${named} returned a result over 10 MiB, which was dropped; ask it for less (a narrower query, a page)`;
    default:
      return `${named} failed the call`;
  }
}

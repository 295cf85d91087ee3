/**
 * What `PreToolUse` and `PostToolUse` hooks change in a tool call's result (docs/hooks.md): a
 * denial's reason as the model's tool result, and a `PostToolUse` hook's words after the output.
 */
import type { ToolResult } from "../tools/tool.js";
import type { TurnHooks } from "./turn-hooks.js";

export function hookDeniedOutput(reason: string): string {
  return `denied by a PreToolUse hook of the user: ${reason}`;
}

export async function withPostToolUse(
  result: ToolResult,
  hooks: TurnHooks | undefined,
  call: { tool: string; input: unknown; callId: string; signal: AbortSignal },
): Promise<ToolResult> {
  if (!hooks || call.signal.aborted) return result;
  const said = await hooks.postToolUse(call.tool, call.input, call.callId, {
    output: result.output,
    status: result.status,
    exit_code: result.exit_code,
  });
  if (!said) return result;
  return { ...result, output: `${result.output}\n\n[PostToolUse hook]\n${said}` };
}

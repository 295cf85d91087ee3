/**
 * What the parent's model is told of a subagent (docs/tools.md, "agent"): its final message,
 * at most `tool_output_bytes` with a note when cut; a failed or interrupted subagent is a tool
 * error that says so (its code only: never a path or a provider's body).
 */
import type { Infer } from "../../protocol/lazy.js";
import { TURN_EXTENSION, type TurnResult } from "../../protocol/schemas/turns.js";
import { splitUtf8 } from "../../protocol/text-cut.js";
import type { ToolResult } from "../tools/tool.js";

type Result = Infer<typeof TurnResult>;

const CUT_NOTE = `\n[... the subagent's answer was cut to fit ${TURN_EXTENSION.tool_output_bytes} bytes]`;

export function subagentAnswer(result: Result, finalText: string): ToolResult {
  const steps = `${result.steps} ${result.steps === 1 ? "step" : "steps"}`;
  if (result.status === "interrupted")
    return failure("interrupted", "The subagent was interrupted before it finished.", steps);
  if (result.status === "failed")
    return failure("failed", `The subagent failed (${result.error.code}).`, steps);
  const stopped =
    result.stop_reason === "end_turn"
      ? ""
      : `\n[the subagent stopped early: ${result.stop_reason}]`;
  const text = finalText === "" ? "(The subagent gave no answer.)" : finalText;
  return {
    status: "completed",
    output: bounded(text, stopped),
    summary: `done in ${steps}`,
    exit_code: null,
    diff: null,
  };
}

function failure(status: "interrupted" | "failed", output: string, steps: string): ToolResult {
  return { status, output, summary: `${status} after ${steps}`, exit_code: null, diff: null };
}

/** The answer and its ending note within `tool_output_bytes`, cut at a character when over. */
function bounded(text: string, ending: string): string {
  const limit = TURN_EXTENSION.tool_output_bytes;
  const whole = text + ending;
  if (new TextEncoder().encode(whole).length <= limit) return whole;
  const note = CUT_NOTE + ending;
  const room = limit - new TextEncoder().encode(note).length;
  return (splitUtf8(text, room)[0] ?? "") + note;
}

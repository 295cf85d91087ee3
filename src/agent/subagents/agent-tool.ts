/**
 * `agent` (capability `subagents`, docs/tools.md "agent"): hands a bounded piece of work to a
 * subagent, a nested turn with a fresh context; its final message is the call's result. The
 * permissions it may have are `read_only` (the default), `ask`, or the parent's own, and never
 * more than the parent's.
 */
import { z } from "zod";
import { utf8Length } from "../../protocol/paging.js";
import { PERMISSIONS, type Permissions, TURN_EXTENSION } from "../../protocol/schemas/turns.js";
import { parseToolInput, type Tool, ToolError, type ToolResult } from "../tools/tool.js";

export const AGENT_TOOL = "agent";
/** The most characters of a subagent's description (its one-line title). */
export const AGENT_DESCRIPTION_CHARS = 120;

const AgentInput = z.strictObject({
  description: z
    .string()
    .describe(
      `What the subagent is for, in a few words (at most ${AGENT_DESCRIPTION_CHARS} characters).`,
    ),
  prompt: z
    .string()
    .describe("The whole task for the subagent: it sees nothing of this conversation but this."),
  permissions: z
    .enum(PERMISSIONS)
    .optional()
    .describe("read_only (the default), ask, or this turn's own level; never more than it."),
});
export type AgentInput = z.infer<typeof AgentInput>;

/** Runs one subagent to its end; never throws for the subagent's own failure. */
export type SubagentRun = (
  task: { description: string; prompt: string; permissions: Permissions },
  itemId: string,
  signal: AbortSignal,
) => Promise<ToolResult>;

export function agentTool(parent: Permissions, run: SubagentRun): Tool<AgentInput> {
  return {
    name: AGENT_TOOL,
    kind: "read",
    description:
      "Hand a self-contained piece of work (map part of the code, review a change, try a fix) " +
      "to a helper agent with a fresh context; you get back only its final answer. Several " +
      "agent calls in one reply run at the same time. The helper has the same tools under its " +
      "permissions, cannot start helpers itself, and its edits and commands ask the user as yours do.",
    input: AgentInput,
    async plan(raw) {
      const input = parseToolInput(AgentInput, raw);
      const description = input.description.replace(/\s+/g, " ").trim();
      if (description === "") throw new ToolError("invalid input: the description is empty");
      if ([...description].length > AGENT_DESCRIPTION_CHARS)
        throw new ToolError(
          `invalid input: the description is over ${AGENT_DESCRIPTION_CHARS} characters`,
        );
      if (input.prompt.trim() === "") throw new ToolError("invalid input: the prompt is empty");
      if (utf8Length(input.prompt) > TURN_EXTENSION.input_bytes)
        throw new ToolError(
          `invalid input: the prompt is over ${TURN_EXTENSION.input_bytes} bytes`,
        );
      const permissions = subagentPermissions(parent, input.permissions);
      return {
        title: `Agent: ${description}`,
        approval: null,
        // The context of the run, not of planning: it has the call's item ID.
        execute: (running) => {
          if (!running.itemId) throw new ToolError("The subagent could not start.");
          const task = { description, prompt: input.prompt, permissions };
          return run(task, running.itemId, running.signal);
        },
      };
    },
  };
}

/**
 * The level a subagent runs at: `read_only` unless asked; `ask` or the parent's own level when
 * asked and not more than the parent's (levels in PERMISSIONS order); anything else is refused.
 */
export function subagentPermissions(parent: Permissions, asked?: Permissions): Permissions {
  const wanted = asked ?? "read_only";
  const rank = (level: Permissions) => PERMISSIONS.indexOf(level);
  const allowed = wanted === "read_only" || wanted === "ask" || wanted === parent;
  if (!allowed || rank(wanted) > rank(parent))
    throw new ToolError(
      `invalid input: a subagent runs at read_only, ask or this turn's own level (${parent}), never more`,
    );
  return wanted;
}

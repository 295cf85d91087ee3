/**
 * `update_plan` (capability `plans`, docs/tools.md "update_plan"): the model sets its whole
 * checklist; each valid call is published (the `plan` event and record, plan-publisher.ts). An
 * invalid plan is a tool error, and nothing is published.
 */
import { z } from "zod";
import {
  PLAN_EXPLANATION_CHARS,
  PLAN_STATUSES,
  PLAN_STEP_CHARS,
  PLAN_STEPS,
  type PlanEvent,
} from "../../protocol/schemas/plans.js";
import { EVENT_BYTES, eventFrameBytes } from "../event-bounds.js";
import { parseToolInput, type Tool, ToolError } from "../tools/tool.js";

export const UPDATE_PLAN = "update_plan";

const UpdatePlanInput = z.strictObject({
  explanation: z
    .string()
    .optional()
    .describe(
      `Optional: why the plan is as it is now (at most ${PLAN_EXPLANATION_CHARS} characters).`,
    ),
  plan: z
    .array(
      z.strictObject({
        step: z.string().describe(`One step, one line (at most ${PLAN_STEP_CHARS} characters).`),
        status: z.enum(PLAN_STATUSES),
      }),
    )
    .describe(`The whole plan, in order: at most ${PLAN_STEPS} steps, at most one in_progress.`),
});
type UpdatePlanInput = z.infer<typeof UpdatePlanInput>;

/** Publishes one valid plan: its event and its record (awaited before the call is done). */
export type PlanSink = (plan: Omit<PlanEvent, "type">) => Promise<void>;

/** The longest request and turn IDs: a plan that fits with them fits with any. */
const LONGEST_ID = "x".repeat(64);

/** The tool of one turn, publishing through `publish`. */
export function updatePlanTool(publish: PlanSink): Tool<UpdatePlanInput> {
  return {
    name: UPDATE_PLAN,
    kind: "read",
    description:
      "Show the user your plan for this task as a short checklist, and keep it current: call it " +
      "with the whole plan each time a step starts or is done. Use it for work of several " +
      "steps, not for a single quick action.",
    input: UpdatePlanInput,
    async plan(raw) {
      const plan = validPlan(parseToolInput(UpdatePlanInput, raw));
      const steps = plan.plan.length;
      return {
        title: "Update the plan",
        approval: null,
        async execute() {
          await publish(plan);
          const done = plan.plan.filter((s) => s.status === "completed").length;
          return {
            status: "completed",
            output: "Plan updated.",
            summary: `${done} of ${steps} ${steps === 1 ? "step" : "steps"} done`,
            exit_code: null,
            diff: null,
          };
        },
      };
    },
  };
}

/** The plan as published, or the tool error that says what to fix. */
export function validPlan(input: UpdatePlanInput): Omit<PlanEvent, "type"> {
  const steps = input.plan;
  if (steps.length > PLAN_STEPS)
    throw invalid(`${steps.length} steps; a plan has at most ${PLAN_STEPS}`);
  steps.forEach((step, index) => {
    const chars = codePoints(step.step);
    if (step.step.trim() === "") throw invalid(`step ${index + 1} is empty`);
    if (chars > PLAN_STEP_CHARS)
      throw invalid(`step ${index + 1} has ${chars} characters; at most ${PLAN_STEP_CHARS}`);
  });
  const running = steps.filter((step) => step.status === "in_progress").length;
  if (running > 1) throw invalid(`${running} steps are in_progress; at most one is`);
  const explanation = input.explanation ?? null;
  if (explanation !== null && codePoints(explanation) > PLAN_EXPLANATION_CHARS)
    throw invalid(`the explanation is over ${PLAN_EXPLANATION_CHARS} characters`);
  const plan = { explanation, plan: steps.map(({ step, status }) => ({ step, status })) };
  // 32 steps of 500 characters that JSON escapes to six bytes each would not fit one event.
  const bytes = eventFrameBytes({
    request_id: LONGEST_ID,
    turn_id: LONGEST_ID,
    event: { type: "plan", ...plan },
  });
  if (bytes > EVENT_BYTES) throw invalid(`the plan is too long to show; write shorter steps`);
  return plan;
}

function invalid(reason: string): ToolError {
  return new ToolError(`invalid plan: ${reason}`);
}

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

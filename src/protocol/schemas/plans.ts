/**
 * The `plans` capability (docs/turns.md, "Plans"): the model's checklist, set whole by its
 * `update_plan` tool, shown as the turn event `plan` and kept as the history record `plan`.
 */
import { z } from "zod";
import { type Infer, lazy } from "../lazy.js";

/** The most steps one plan holds. */
export const PLAN_STEPS = 32;
/** The most characters (code points) one step's text holds. */
export const PLAN_STEP_CHARS = 500;
/** The most characters (code points) of the explanation beside a plan. */
export const PLAN_EXPLANATION_CHARS = 1000;

export const PLAN_STATUSES = ["pending", "in_progress", "completed"] as const;

export const PlanStep = lazy(() =>
  z.strictObject({ step: z.string().min(1), status: z.enum(PLAN_STATUSES) }),
);
export type PlanStep = Infer<typeof PlanStep>;

/** The turn event `plan`: the whole plan after an `update_plan` call (never a difference). */
export const PlanEvent = lazy(() =>
  z.strictObject({
    type: z.literal("plan"),
    /** Why the plan is as it is now, in the model's words; null when it gave none. */
    explanation: z.string().nullable(),
    plan: z.array(PlanStep()).max(PLAN_STEPS),
  }),
);
export type PlanEvent = Infer<typeof PlanEvent>;

/**
 * Where a valid plan goes (docs/turns.md, "Plans"): the turn event `plan`, then the history
 * record `plan` with the same fields, both before the call's `tool_done`.
 */
import type { TurnRecordBody } from "../../sessions/records/turn-records.js";
import type { TurnEvents } from "../turn-events.js";
import { type PlanSink, updatePlanTool } from "./update-plan-tool.js";

export function planPublisher(
  events: TurnEvents,
  record: (body: TurnRecordBody) => Promise<void>,
): PlanSink {
  return async (plan) => {
    await events.emit({ type: "plan", ...plan });
    await record({ type: "plan", ...plan });
  };
}

/** The turn's `update_plan`, when the client negotiated `plans`; else nothing. */
export function planTools(
  plans: boolean | undefined,
  events: TurnEvents,
  record: (body: TurnRecordBody) => Promise<void>,
) {
  return plans ? [updatePlanTool(planPublisher(events, record))] : [];
}

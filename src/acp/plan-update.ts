import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { PLAN_STATUSES, PLAN_STEPS } from "../protocol/schemas/plans.js";

/**
 * Our plan (a `plan` event, or a `plan` record on load) as ACP's `plan` session update: every
 * step an entry with its status, all of priority "medium" (our plans have no priorities), the
 * whole list each time as ACP wants. A record is a loose object: a malformed one shows nothing.
 */
export function planUpdate(plan: unknown): SessionUpdate[] {
  if (!Array.isArray(plan) || plan.length > PLAN_STEPS) return [];
  const entries = [];
  for (const item of plan) {
    const { step, status } = (item ?? {}) as { step?: unknown; status?: unknown };
    if (typeof step !== "string" || !isStatus(status)) return [];
    entries.push({ content: step, priority: "medium" as const, status });
  }
  return [{ sessionUpdate: "plan", entries }];
}

function isStatus(status: unknown): status is (typeof PLAN_STATUSES)[number] {
  return (PLAN_STATUSES as readonly unknown[]).includes(status);
}

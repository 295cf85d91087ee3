import type { SessionEvent } from "../../protocol/schemas/sessions.js";

/**
 * A `turn_end` record's known cost in USD (docs/store.md, "Turn records"), or null: not a
 * turn's end, or a turn whose `cost_usd` is null or absent (no price known, or recorded by a
 * build before costs). The one rule session.usage and the budget's check (budget.ts) sum by.
 */
export function turnCostOf(event: SessionEvent | Record<string, unknown>): number | null {
  if (event.type !== "turn_end") return null;
  const cost = (event as { cost_usd?: unknown }).cost_usd;
  return typeof cost === "number" && Number.isFinite(cost) && cost >= 0 ? cost : null;
}

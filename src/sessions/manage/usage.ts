import type { SessionUsageResult } from "../../protocol/schemas/manage.js";
import { roundUsd } from "../../protocol/usd.js";
import { openExact } from "../history/open.js";
import { turnCostOf } from "../history/turn-cost.js";
import type { Slicer } from "../slicer.js";

const TOKEN_FIELDS = [
  "input_tokens",
  "output_tokens",
  "cached_input_tokens",
  "reasoning_tokens",
] as const;

/**
 * session.usage: the sum of a session's `turn_end` records (docs/store.md, "Turn records"), read
 * in the pass that validates the history (exact open's refusals). A turn whose `cost_usd` is
 * null or absent (no price known, or recorded by a build before costs) is counted apart, and
 * the total is then `partial`.
 */
export async function sessionUsage(
  home: string,
  cwd: string,
  id: string,
  slicer: Slicer,
  archived: boolean,
): Promise<SessionUsageResult> {
  const total = { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, reasoning_tokens: 0 };
  let turns = 0;
  let cost = 0;
  let unknown = 0;
  const sink = (event: Record<string, unknown>) => {
    if (event.type !== "turn_end") return;
    turns += 1;
    const usage = event.usage as Record<string, unknown> | undefined;
    for (const field of TOKEN_FIELDS) total[field] += tokens(usage?.[field]);
    const turnCost = turnCostOf(event);
    if (turnCost !== null) cost += turnCost;
    else unknown += 1;
  };
  await openExact(home, cwd, id, slicer, { sink, archived });
  return {
    id,
    turns,
    usage: total,
    cost_usd: roundUsd(cost),
    unknown_cost_turns: unknown,
    partial: unknown > 0,
    archived,
  };
}

function tokens(value: unknown): number {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : 0;
}

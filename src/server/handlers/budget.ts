import { ProtocolError } from "../../protocol/codes.js";
import { sessionUsage } from "../../sessions/manage/usage.js";
import { Slicer } from "../../sessions/slicer.js";
import type { ServerState } from "../state.js";

/**
 * The `budget_usd` setting (docs/store.md, "Settings"; issue 42): once a saved session's known
 * cost (the sum of its turns' `cost_usd`, turns of unknown cost not counted) reaches it, the next
 * turn.start is refused `budget_exceeded` before anything is written or sent. Read only when a
 * budget is set: it costs one more pass over the history (the admission's own pass keeps no
 * costs). A lazy handle has cost nothing yet.
 */
export async function checkBudget(
  state: ServerState,
  budget: number | undefined,
  id: string,
  signal: AbortSignal,
): Promise<void> {
  if (budget === undefined) return;
  const usage = await sessionUsage(state.home, state.cwd, id, new Slicer(signal), false);
  if (usage.cost_usd >= budget) throw new ProtocolError("budget_exceeded");
}

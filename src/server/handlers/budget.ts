import { ProtocolError } from "../../protocol/codes.js";
import { roundUsd } from "../../protocol/usd.js";

/**
 * The `budget_usd` setting (docs/store.md, "Settings"; issue 42): once a saved session's known
 * cost (the sum of its turns' `cost_usd`, turns of unknown cost not counted) reaches it, the next
 * turn.start is refused `budget_exceeded` before anything is written or sent. The cost comes from
 * the admission's own pass over the history (admission-memo.ts `exact` with costs), which parses
 * only the records appended since the last turn: it once took one more whole pass at every turn,
 * a cost that grew with the session (issue 44). A lazy handle has cost nothing yet.
 */
export function checkBudget(budget: number | undefined, knownCostUsd: number): void {
  if (budget === undefined) return;
  if (roundUsd(knownCostUsd) >= budget) throw new ProtocolError("budget_exceeded");
}

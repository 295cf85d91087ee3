/** A cost for people: `$0.0049`, `$1.23`; costs under a cent keep four decimals. */
export function formatUsd(value: number): string {
  return value < 0.01 && value > 0 ? `$${value.toFixed(4)}` : `$${value.toFixed(2)}`;
}

/** A session's cost cell: `$0.42`, `$0.42+` when some turn's price is unknown, `?` when none is known. */
export function costCell(usage: {
  cost_usd: number;
  partial: boolean;
  turns: number;
  unknown_cost_turns: number;
}): string {
  if (usage.turns > 0 && usage.unknown_cost_turns === usage.turns) return "?";
  return `${formatUsd(usage.cost_usd)}${usage.partial ? "+" : ""}`;
}

/**
 * A cost in USD as the wire and the history carry it: sums of float prices drift (0.1 + 0.2),
 * so every cost is rounded to a millionth of a cent (1e-8 USD).
 */
export function roundUsd(value: number): number {
  return Math.round(value * 1e8) / 1e8;
}

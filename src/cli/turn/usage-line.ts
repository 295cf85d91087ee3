import type { TurnEventBody, TurnResult } from "../../client/index.js";

type UsageEvent = Extract<TurnEventBody, { type: "usage" }>;

/**
 * "2 steps · 1.2k in / 340 out tokens · context 9% of 128k": the turn's totals, and how full
 * the model's context window is after its last call (that call's input and output, which the
 * next call starts from). No fill when the catalog does not know the window.
 */
export function usageLine(result: TurnResult, last: UsageEvent | null): string {
  const u = result.usage;
  const steps = `${result.steps} ${result.steps === 1 ? "step" : "steps"}`;
  const cached = u.cached_input_tokens > 0 ? ` (${count(u.cached_input_tokens)} cached)` : "";
  const parts = [
    steps,
    `${count(u.input_tokens)} in${cached} / ${count(u.output_tokens)} out tokens`,
  ];
  if (last?.context_window) {
    const used = last.input_tokens + last.output_tokens;
    const percent = Math.min(100, Math.round((used / last.context_window) * 100));
    parts.push(`context ${percent}% of ${count(last.context_window)}`);
  }
  return parts.join(" · ");
}

/** 999, 1.2k, 12k, 1.5M. */
export function count(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0).replace(/\.0$/, "")}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, "")}M`;
}

import { AGENT_TOOL } from "./agent-tool.js";

/** The most subagents of one model reply that run at once; more wait for a free place. */
export const SUBAGENTS_AT_ONCE = 4;

/**
 * Runs one model reply's tool calls (docs/turns.md, "Subagents"): each run of consecutive
 * `agent` calls concurrently, at most SUBAGENTS_AT_ONCE at a time; every other call alone, in
 * order. Calls start in order (so their item IDs follow the reply), none starts after the turn
 * was interrupted, and the results come back in call order, the calls never started left out.
 */
export async function runStepCalls<C extends { name: string }, R>(
  calls: readonly C[],
  run: (call: C) => Promise<R>,
  aborted: () => boolean,
): Promise<R[]> {
  const results: R[] = [];
  for (let at = 0; at < calls.length && !aborted(); ) {
    let end = at;
    while (end < calls.length && calls[end]?.name === AGENT_TOOL) end++;
    if (end === at) {
      results.push(await run(calls[at] as C));
      at += 1;
      continue;
    }
    results.push(...(await pooled(calls.slice(at, end), run, aborted)));
    at = end;
  }
  return results;
}

async function pooled<C, R>(
  calls: readonly C[],
  run: (call: C) => Promise<R>,
  aborted: () => boolean,
): Promise<R[]> {
  const results: (R | undefined)[] = [];
  let next = 0;
  const worker = async () => {
    while (next < calls.length && !aborted()) {
      const index = next++;
      results[index] = await run(calls[index] as C);
    }
  };
  await Promise.all(Array.from({ length: Math.min(SUBAGENTS_AT_ONCE, calls.length) }, worker));
  // Started calls are contiguous from the first: the rest never started.
  return results.filter((result): result is R => result !== undefined);
}

import type { CaseContext, CaseOutcome } from "./case.js";
import type { ChildOptions, TestChild } from "./harness.js";

/**
 * A case that cannot apply to the child or machine at hand (a capability the child does not
 * offer, a fault the machine cannot inject) is reported as skipped with its reason, never as a
 * pass: the summary counts skips separately.
 */
const PREFIX = "skipped: ";

export class CaseSkipped extends Error {
  constructor(reason: string) {
    super(`${PREFIX}${reason}`);
    this.name = "CaseSkipped";
  }
}

/** The outcome of a case that threw CaseSkipped, turned into a skip with its reason. */
export function settleSkip(outcome: CaseOutcome): CaseOutcome {
  if (outcome.ok || !outcome.error?.startsWith(PREFIX)) return outcome;
  return {
    id: outcome.id,
    tier: outcome.tier,
    title: outcome.title,
    clause: outcome.clause,
    ok: true,
    skipped: true,
    error: outcome.error.slice(PREFIX.length),
    ms: outcome.ms,
  };
}

/** `ctx.ready`, but a child that does not offer the capabilities skips the case. */
export async function readyOrSkip(
  ctx: CaseContext,
  capabilities: string[],
  options: Partial<ChildOptions> = {},
): Promise<TestChild> {
  try {
    return await ctx.ready(capabilities, options);
  } catch (error) {
    if (String((error as Error).message).includes("unsupported_capability")) {
      throw new CaseSkipped(`the child does not offer ${capabilities.join(", ")}`);
    }
    throw error;
  }
}

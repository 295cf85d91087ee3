import assert from "node:assert/strict";
import { test } from "node:test";
import type { ConformanceCase } from "../../src/conformance/case.js";
import { runCase } from "../../src/conformance/case.js";
import { formatOutcome } from "../../src/conformance/report.js";
import { audited } from "../../src/conformance/runner.js";
import { settleSkip } from "../../src/conformance/skip.js";

/**
 * Registers conformance cases as node:test tests against this package's own child, with the
 * same wire audit the kit applies: the tests and `mc-agent conformance` share one source.
 */
export function registerCases(
  cases: ConformanceCase[],
  options: {
    skip?: (c: ConformanceCase) => string | undefined;
    /** Environment for every child (e.g. the verdict cache's test switches). */
    env?: Record<string, string>;
    /** Added to each test's name, to tell two registrations of one case apart. */
    suffix?: string;
  } = {},
): void {
  for (const c of cases) {
    const skip = options.skip?.(c);
    const name = `${c.id} (${c.tier}): ${c.title}${options.suffix ?? ""}`;
    // A bound on a hung case, not a time target: the kill -9 audit's 50 respawns took over 300 s
    // on a machine at load 20 (2 cores), and a case that only ran slowly must not fail.
    test(name, { timeout: 900_000, skip }, async (t) => {
      const run = { testMethods: true, ...(options.env ? { env: options.env } : {}) };
      const outcome = settleSkip(await runCase(audited(c), run));
      if (outcome.skipped) return t.skip(outcome.error);
      if (!outcome.ok) assert.fail(formatOutcome(outcome));
    });
  }
}

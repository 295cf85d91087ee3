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
  options: { skip?: (c: ConformanceCase) => string | undefined } = {},
): void {
  for (const c of cases) {
    const skip = options.skip?.(c);
    test(`${c.id} (${c.tier}): ${c.title}`, { timeout: 300_000, skip }, async (t) => {
      const outcome = settleSkip(await runCase(audited(c), { testMethods: true }));
      if (outcome.skipped) return t.skip(outcome.error);
      if (!outcome.ok) assert.fail(formatOutcome(outcome));
    });
  }
}

import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import fc from "fast-check";
import { PACKAGE_ROOT } from "../../src/conformance/harness.js";
import { batch } from "./frame-generators.js";
import { FuzzDriver } from "./fuzz-driver.js";

/** The fuzzer's invariants can fail: each broken child is caught within a few hundred batches. */
const BROKEN = join(PACKAGE_ROOT, "test", "fixtures", "broken-child.mjs");

async function fuzzBroken(mode: string): Promise<string> {
  const driver = new FuzzDriver({
    seed: 42,
    capabilities: ["operation.cancel"],
    batchesPerChild: 1000,
    command: [process.execPath, BROKEN, mode],
  });
  try {
    await fc.assert(
      fc.asyncProperty(batch, (lines) => driver.check(lines)),
      { seed: 42, numRuns: 300, endOnFailure: true, includeErrorInReport: true },
    );
  } catch (error) {
    return (error as Error).message;
  } finally {
    driver.retire();
  }
  return "not caught";
}

describe("fuzz driver invariants", () => {
  const cases: [string, RegExp][] = [
    // The extra answers fill the batch's expected count early, so which ID shows the mismatch
    // first (the doubled one, or one still unanswered) depends on timing; both are the catch.
    ["double-answer", /responses for \d+ frames|2 responses to ID/],
    ["leak-path", /error message carries a path/],
    ["out-of-schema", /status result outside its schema/],
    ["write-home", /MC_HOME changed:\n\+ stray\.tmp/],
  ];
  for (const [mode, expected] of cases) {
    test(`catches a child that breaks the rules: ${mode}`, { timeout: 60_000 }, async () => {
      const message = await fuzzBroken(mode);
      assert.match(message, expected);
      assert.match(message, /seed 42, child \d+, batch \d+/, "the report names seed and batch");
    });
  }
});

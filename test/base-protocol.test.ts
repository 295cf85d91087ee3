import { test } from "node:test";
import { runCase } from "../src/conformance/case.js";
import { BASE_CASES } from "../src/conformance/cases/index.js";

// The base protocol's black-box tests are the conformance kit's cases: one source for both.
for (const c of BASE_CASES) {
  test(`${c.id}: ${c.title}`, { timeout: 60_000 }, async () => {
    const outcome = await runCase(c);
    if (!outcome.ok) {
      const transcript = (outcome.transcript ?? []).slice(-40).join("\n");
      throw new Error(
        `${outcome.error}\n--- transcript (tail) ---\n${transcript}\n--- stderr ---\n${outcome.stderrTail}`,
      );
    }
  });
}

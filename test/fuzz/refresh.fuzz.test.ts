import { test } from "node:test";
import fc from "fast-check";
import { probeCapabilities } from "./capability-probe.js";
import { fuzzCommand, fuzzSeed } from "./fuzz-driver.js";
import { oddRefreshParams, refreshCase } from "./provider-generators.js";
import { RefreshFuzzWorld } from "./refresh-fuzz-world.js";

/**
 * model.refresh against loopback providers whose answers are generated: the custom provider's
 * model list (statuses, valid and invalid lists, truncated and oversized bodies) and Codex's
 * token endpoint and model list (renewals, OAuth rejections, garbage). After every refresh:
 * one schema-valid response without body content or credentials; a failed refresh kept the
 * cache's bytes, a refreshed one left a whole cache; renewed credentials are whole and 0600;
 * nothing else under MC_HOME changed. Seeded like the protocol fuzzer (MC_FUZZ_SEED;
 * MC_FUZZ_REFRESH_RUNS sets the count).
 */
const seed = fuzzSeed();
const runs = Number(process.env.MC_FUZZ_REFRESH_RUNS ?? 300);
/** One refresh in ten gets params that are not a plain configured provider. */
const oddParams = fc.oneof(
  { weight: 9, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: oddRefreshParams },
);

test(`refresh fuzz: ${runs} provider answers, seed ${seed}`, {
  timeout: 30 * 60_000,
}, async (t) => {
  const offered = await probeCapabilities({ testMethods: true, ...fuzzCommand() });
  if (!offered.includes("model.refresh")) return t.skip("this build does not offer model.refresh");
  const world = await RefreshFuzzWorld.start();
  try {
    await fc.assert(
      fc.asyncProperty(refreshCase, oddParams, (c, odd) => world.refresh(c, odd)),
      { seed, numRuns: runs, includeErrorInReport: true },
    );
    t.diagnostic(`outcomes: ${[...world.outcomes].map(([k, n]) => `${k} ${n}`).join(", ")}`);
  } finally {
    await world.close();
  }
});

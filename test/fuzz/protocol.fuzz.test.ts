import { after, test } from "node:test";
import fc from "fast-check";
import { probeCapabilities } from "./capability-probe.js";
import { batch } from "./frame-generators.js";
import { FuzzDriver, fuzzCommand, fuzzSeed } from "./fuzz-driver.js";

/**
 * Protocol fuzzing against the real child: random, mutated and oversized frames with random
 * params, against generated stores. Seeded and reproducible: the seed is printed, and
 * MC_FUZZ_SEED replays it (fixed under `npm test`, fresh under `npm run fuzz`: see fuzzSeed);
 * MC_FUZZ_RUNS sets the number of batches (`npm run fuzz` runs long).
 */
const seed = fuzzSeed();
const runs = Number(process.env.MC_FUZZ_RUNS ?? 10_000);

test(`protocol fuzz: ${runs} batches, seed ${seed} (replay: MC_FUZZ_SEED=${seed})`, {
  timeout: 30 * 60_000,
}, async (t) => {
  const capabilities = await probeCapabilities({ testMethods: true, ...fuzzCommand() });
  t.diagnostic(`seed ${seed}; capabilities offered: ${capabilities.join(", ")}`);
  const driver = new FuzzDriver({ seed, capabilities, batchesPerChild: 400, ...fuzzCommand() });
  after(() => driver.retire());
  await fc.assert(
    fc.asyncProperty(batch, (lines) => driver.check(lines)),
    { seed, numRuns: runs, includeErrorInReport: true },
  );
  t.diagnostic(
    `${driver.lines} frames in ${runs} batches; answered with a result: ${driver.successes()}`,
  );
});

import { after, test } from "node:test";
import fc from "fast-check";
import { fuzzSeed } from "./fuzz-driver.js";
import { StreamFuzzWorld } from "./stream-fuzz-world.js";
import { describeCase, streamCase } from "./stream-generators.js";

/**
 * Provider streams of all three wire formats, mutated (stream-generators.ts), answering real
 * turns of the real child through a loopback server. Per turn: exactly one result, every frame
 * schema-valid, well-formed UTF-8 and within frame_bytes / event_bytes, the history whole and
 * re-opening; a benign mutation gives exactly the streamed reply; each child exits 0 with no
 * lock left. Seeded (MC_FUZZ_SEED replays; fixed under `npm test`); MC_FUZZ_STREAM_RUNS sets the
 * count (`npm run fuzz` runs long).
 */
const seed = fuzzSeed();
const runs = Number(process.env.MC_FUZZ_STREAM_RUNS ?? 150);

test(`turn stream fuzz: ${runs} mutated streams, seed ${seed}`, {
  timeout: 60 * 60_000,
}, async (t) => {
  const world = await StreamFuzzWorld.start();
  after(() => world.close());
  await fc.assert(
    fc.asyncProperty(streamCase, async (c) => {
      try {
        await world.run(c);
      } catch (error) {
        throw new Error(`${(error as Error).message}\ncase: ${describeCase(c)}`);
      }
    }),
    { seed, numRuns: runs, includeErrorInReport: true, endOnFailure: true },
  );
  await world.close();
  t.diagnostic(`outcomes: ${[...world.outcomes].map(([k, n]) => `${k} ${n}`).join(", ")}`);
  t.diagnostic(`records over a page read back whole: ${world.stubs}`);
});

import { after, test } from "node:test";
import fc from "fast-check";
import { fuzzSeed } from "./fuzz-driver.js";
import { protocolCase } from "./turn-protocol-generators.js";
import { ProtocolFuzzWorld } from "./turn-protocol-world.js";

/**
 * The turn protocol under a client acting at random moments: scripted turns with edits, shell
 * commands and reads under every permission mode, with turn.approve (any decision, bogus IDs),
 * turn.interrupt, status, shutdown and stdin EOF fired after random numbers of events. Per case:
 * every request answered exactly once and rightly for its moment, one result per admitted turn,
 * seq without gaps, every approval resolved, frames valid, the history whole; after shutdown or
 * EOF the child exits 0, leaves no lock, and the next child re-opens the history. Seeded like
 * the other fuzzers (MC_FUZZ_SEED; MC_FUZZ_TURN_RUNS sets the count).
 */
const seed = fuzzSeed();
const runs = Number(process.env.MC_FUZZ_TURN_RUNS ?? 30);

test(`turn protocol fuzz: ${runs} scripted turns, seed ${seed}`, {
  timeout: 60 * 60_000,
}, async (t) => {
  const world = await ProtocolFuzzWorld.start();
  after(() => world.close());
  await fc.assert(
    fc.asyncProperty(protocolCase, async (c) => {
      try {
        await world.run(c);
      } catch (error) {
        throw new Error(`${(error as Error).message}\ncase: ${JSON.stringify(c)}`);
      }
    }),
    { seed, numRuns: runs, includeErrorInReport: true, endOnFailure: true },
  );
  await world.close();
  t.diagnostic(`outcomes: ${[...world.outcomes].map(([k, n]) => `${k} ${n}`).join(", ")}`);
  t.diagnostic(`records over a page read back whole: ${world.stubs}`);
});

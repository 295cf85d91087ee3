import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { parseFacts } from "../../src/sessions/records/parse-facts.js";
import { factsOnThisThread } from "../../src/sessions/records/read-facts.js";
import { scanFacts } from "../../src/sessions/records/scan-facts.js";
import { readOptions } from "../helpers/read-options.js";
import { fuzzSeed } from "./fuzz-driver.js";
import { damage, damaged, deepRecord, placement, recordText } from "./record-generators.js";

/**
 * The byte scanner (src/sessions/records/scan-facts.ts) against the JSON.parse path
 * (`parseFacts`): on every record, generated or damaged, `factsOnThisThread` with the scanner
 * gives exactly the facts `parseFacts` gives, and whenever the scanner itself answers (rather than deferring to the parse),
 * the record is one JSON.parse accepts. Seeded: fixed under `npm test`, fresh under `npm run
 * fuzz` (MC_FUZZ_SEED replays); MC_FUZZ_SCAN_RUNS sets the runs of each property (20,000).
 */
const seed = fuzzSeed();
const runs = Number(process.env.MC_FUZZ_SCAN_RUNS ?? 20_000);
const options = { seed, numRuns: runs, includeErrorInReport: true };

/** The record's bytes inside a larger buffer, as a reader's buffer holds them. */
function placed(bytes: Buffer, where: { before: number; after: string }) {
  const source = Buffer.concat([Buffer.alloc(where.before, 0x78), bytes, Buffer.from(where.after)]);
  return { source, from: where.before, to: where.before + bytes.length };
}

/** Both paths on one record, for both `wantUserLine` values. */
function agree(bytes: Buffer, where: { before: number; after: string }): void {
  const { source, from, to } = placed(bytes, where);
  for (const wantUserLine of [true, false]) {
    const parsed = parseFacts(source, from, to, readOptions(0, wantUserLine));
    const scanned = factsOnThisThread(source, from, to, readOptions(0, wantUserLine, false));
    assert.deepEqual(scanned, parsed);
    // The scanner's own answer is only ever a valid record's.
    if (scanFacts(source, from, to, wantUserLine) !== null) assert.equal(parsed.valid, true);
  }
}

describe("the byte scanner gives the JSON.parse path's facts", () => {
  test("on generated records", () => {
    fc.assert(
      fc.property(recordText, placement, (text, where) => agree(Buffer.from(text), where)),
      options,
    );
  });

  test("on damaged records (flipped, cut, dropped, spliced bytes; BOM; UTF-8 surrogates)", () => {
    fc.assert(
      fc.property(
        recordText,
        fc.array(damage, { minLength: 1, maxLength: 3 }),
        placement,
        (text, damages, where) => agree(damaged(text, damages), where),
      ),
      options,
    );
  });

  test("on deeply nested records, balanced or not", () => {
    fc.assert(
      fc.property(deepRecord, fc.option(damage, { nil: undefined }), placement, (text, d, where) =>
        agree(damaged(text, d ? [d] : []), where),
      ),
      { ...options, numRuns: Math.max(1, Math.round(runs / 20)) },
    );
  });

  test("on arbitrary bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), placement, (raw, where) =>
        agree(Buffer.from(raw), where),
      ),
      options,
    );
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { searchRows } from "../../bench/search.bench.js";

/**
 * The search bench (bench/search.bench.ts) scaled down to a dozen histories, so the suite proves
 * it runs: its store, its fresh children, grep beside it, its own check that both found every
 * needle, and its rows. No time is asserted (figures are for `npm run bench` only).
 */
describe("bench: session.search (scaled down)", () => {
  it("runs and gives its six rows, every figure measured", async () => {
    const rows = await searchRows(12);
    assert.equal(rows.length, 6);
    for (const row of rows) {
      assert.ok(Number.isFinite(row.figure) && row.figure > 0, `${row.name}: ${row.figure}`);
      assert.ok(Number.isFinite(row.baseline) && row.baseline > 0, `${row.name}: ${row.baseline}`);
      assert.match(row.name, /12 histories of 256 KiB/);
    }
    const [firstPage, , complete] = rows;
    assert.ok((firstPage?.figure as number) <= (complete?.figure as number));
    assert.match(rows[5]?.note ?? "", /tool output is not kept/);
  });
});

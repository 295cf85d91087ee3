import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LiveArea, rowsOf, visibleWidth } from "../../src/cli/turn/live-area.js";

/** A terminal 20 columns wide that records what is written to it. */
function screen(): NodeJS.WriteStream & { written: string[] } {
  const written: string[] = [];
  return {
    written,
    columns: 20,
    isTTY: true,
    write(chunk: string) {
      written.push(chunk);
      return true;
    },
  } as unknown as NodeJS.WriteStream & { written: string[] };
}

const UP = (n: number) => `\x1b[${n}A`;
const TO_COLUMN_0 = "\x1b[1G";
const CLEAR_DOWN = "\x1b[0J";

describe("LiveArea: output above a live input line", () => {
  it("holds an unfinished line as the area's first row and writes it once its line ends", () => {
    const term = screen();
    const area = new LiveArea(term);
    const out = area.stream(term);
    let rows = 0;
    const composer = { rowsAboveCursor: () => rows, redraw: () => term.write("[composer]") };
    area.begin();
    area.setStatus(["queued 1: a"]);
    area.attach(composer);
    term.written.length = 0;
    out.write("▸ Run make");
    // Nothing finished yet: the area is erased (status row) and drawn with the held line first.
    assert.deepEqual(term.written, [
      UP(1),
      TO_COLUMN_0,
      CLEAR_DOWN,
      "▸ Run make\n",
      "queued 1: a\n",
      "[composer]",
    ]);
    term.written.length = 0;
    rows = 1; // the composer's text wrapped: its cursor is a row below its start
    out.write(" · done\nnext");
    assert.deepEqual(term.written, [
      UP(3), // composer row above the cursor, status row, held line
      TO_COLUMN_0,
      CLEAR_DOWN,
      "▸ Run make · done\n",
      "next\n",
      "queued 1: a\n",
      "[composer]",
    ]);
  });

  it("passes writes straight through when not active, and end() gives back the held line", () => {
    const term = screen();
    const area = new LiveArea(term);
    const out = area.stream(term);
    out.write("before\n");
    assert.deepEqual(term.written, ["before\n"]);
    area.begin();
    out.write("half");
    term.written.length = 0;
    area.end();
    assert.deepEqual(term.written, [UP(1), TO_COLUMN_0, CLEAR_DOWN, "half"]);
    term.written.length = 0;
    out.write(" line\n");
    assert.deepEqual(term.written, [" line\n"], "after end() writes go straight to the terminal");
  });

  it("counts rows by visible width: colors take no columns, a full row is one row", () => {
    assert.equal(visibleWidth("\x1b[2mdim\x1b[0m"), 3);
    assert.equal(visibleWidth("é…✓"), 3);
    assert.equal(rowsOf("", 20), 1);
    assert.equal(rowsOf("x".repeat(20), 20), 1);
    assert.equal(rowsOf("x".repeat(21), 20), 2);
  });
});

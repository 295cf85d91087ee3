import assert from "node:assert/strict";
import { closeSync, mkdtempSync, openSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { CwdMatcher } from "../../src/sessions/history/cwd-rule.js";
import { HistoryScan, unboundedBudget } from "../../src/sessions/history/history-scan.js";
import { RecordReader } from "../../src/sessions/records/record-reader.js";
import { Slicer } from "../../src/sessions/slicer.js";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "mc-scan-")));
after(() => rmSync(dir, { recursive: true, force: true }));
const slicer = () => new Slicer(new AbortController().signal);

function history(name: string, records: object[]): number {
  const path = join(dir, name);
  writeFileSync(path, `${records.map((r) => JSON.stringify(r)).join("\n")}\n`);
  return openSync(path, "r");
}

describe("HistoryScan", () => {
  it("excludes a history at its first mismatching cwd without reading the rest", async () => {
    const rest = Array.from({ length: 20_000 }, (_, i) => ({
      type: "mode",
      ts: `t${i}`,
      cwd: dir,
    }));
    const fd = history("mixed", [
      { type: "meta", ts: "t", cwd: dir },
      { type: "meta", ts: "t", cwd: "/elsewhere" },
      ...rest,
    ]);
    const scan = new HistoryScan(new RecordReader(fd, 8 << 20), new CwdMatcher(dir));
    assert.equal(await scan.advance(unboundedBudget(), slicer()), "done");
    assert.equal(scan.verdict, "mismatch");
    assert.ok(scan.bytesRead <= 8192, `read ${scan.bytesRead} bytes`);
    closeSync(fd);
  });

  it("suspends on record and byte allowances and resumes to the same verdict and summary", async () => {
    const records = Array.from({ length: 2500 }, (_, i) => ({
      type: i === 3 ? "title" : "user_message",
      ts: `2026-01-01T00:00:${String(i % 60).padStart(2, "0")}Z`,
      cwd: dir,
      text: `message ${i} ${"x".repeat(i % 300)}`,
      title: "The title",
    }));
    const whole = new HistoryScan(
      new RecordReader(history("a", records), 8 << 20),
      new CwdMatcher(dir),
    );
    await whole.advance(unboundedBudget(), slicer());
    const stepped = new HistoryScan(
      new RecordReader(history("b", records), 8 << 20),
      new CwdMatcher(dir),
    );
    const stops: string[] = [];
    for (;;) {
      const stop = await stepped.advance(
        { lines: 700, bytes: 50_000, deadline: Number.POSITIVE_INFINITY },
        slicer(),
      );
      stops.push(stop);
      if (stop === "done") break;
    }
    assert.ok(stops.includes("lines") || stops.includes("bytes"));
    assert.ok(stops.filter((s) => s === "bytes").length > 3, stops.join(","));
    assert.equal(stepped.verdict, "eligible");
    assert.deepEqual(stepped.summary.entry("x", false), whole.summary.entry("x", false));
    assert.equal(stepped.summary.entry("x", false).title, "The title");
  });

  it("ends a history before its torn tail, across suspensions; a bad line elsewhere is invalid", async () => {
    const records = Array.from({ length: 3000 }, (_, i) => ({
      type: "user_message",
      ts: `2026-01-01T00:00:${String(i % 60).padStart(2, "0")}Z`,
      cwd: dir,
      text: `message ${i}`,
    }));
    const body = `${records.map((r) => JSON.stringify(r)).join("\n")}\n`;
    const torn = `{"type":"assistant_message","ts":"2026-01-02T00:00:00Z","text":"${"z".repeat(30_000)}`;
    const verdictOf = async (name: string, content: string | Buffer, bytes: number) => {
      const path = join(dir, name);
      writeFileSync(path, content);
      const fd = openSync(path, "r");
      const scan = new HistoryScan(new RecordReader(fd, 8 << 20), new CwdMatcher(dir));
      while (
        (await scan.advance(
          { lines: 500, bytes, deadline: Number.POSITIVE_INFINITY },
          slicer(),
        )) !== "done"
      ) {}
      closeSync(fd);
      return scan;
    };
    for (const bytes of [1000, 8192, Number.POSITIVE_INFINITY]) {
      const scan = await verdictOf("torn", body + torn, bytes);
      assert.equal(scan.verdict, "eligible");
      // The summary ends with the last whole record: the torn line is not a record.
      assert.equal(scan.summary.entry("x", false).updated_at, records.at(-1)?.ts);
      // Cut inside a multi-byte character: still a torn tail.
      const cut = Buffer.from(`${body}{"type":"user_message","ts":"t","text":"é`).subarray(0, -1);
      assert.equal((await verdictOf("cut", cut, bytes)).verdict, "eligible");
      assert.equal((await verdictOf("bad-last-lf", `${body + torn}\n`, bytes)).verdict, "invalid");
      assert.equal((await verdictOf("bad-middle", `${torn}\n${body}`, bytes)).verdict, "invalid");
      // A foreign cwd in a torn tail is not read as a record either.
      const foreign = `${body}{"type":"mode","ts":"t","cwd":"/elsewhere","mode":"pl`;
      assert.equal((await verdictOf("foreign", foreign, bytes)).verdict, "eligible");
    }
  });
});

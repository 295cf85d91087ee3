import assert from "node:assert/strict";
import { appendFileSync, closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { type ReadResult, RecordReader } from "../../src/sessions/records/record-reader.js";

const dir = mkdtempSync(join(tmpdir(), "mc-reader-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function fileWith(content: string | Buffer): number {
  const path = join(dir, `f${Math.random().toString(36).slice(2)}`);
  writeFileSync(path, content);
  return openSync(path, "r");
}

/** Drains a reader with a given allowance per call, counting the calls that ran out. */
function drain(reader: RecordReader, bytesPerCall = Number.POSITIVE_INFINITY) {
  const records: string[] = [];
  let outOfBytes = 0;
  let last: ReadResult;
  for (;;) {
    last = reader.next({ bytes: bytesPerCall });
    if (last.kind === "record") records.push(last.source.toString("utf8", last.from, last.to));
    else if (last.kind === "out_of_bytes") outOfBytes += 1;
    else if (last.kind !== "paused") break;
  }
  return { records, outOfBytes, last: last.kind };
}

describe("RecordReader", () => {
  it("marks only a final record without its LF as unterminated, whatever the allowances", () => {
    const long = "y".repeat(20_000);
    for (const [content, expected] of [
      ["a\nbb", [true, false]],
      ["a\nbb\n", [true, true]],
      [`a\n${long}`, [true, false]],
      [`${long}\nz`, [true, false]],
    ] as const) {
      for (const allowance of [1, 700, Number.POSITIVE_INFINITY]) {
        const reader = new RecordReader(fileWith(content), 100_000);
        const flags: boolean[] = [];
        for (;;) {
          const read = reader.next({ bytes: allowance });
          if (read.kind === "record") flags.push(read.terminated);
          else if (read.kind === "end") break;
        }
        assert.deepEqual(flags, expected, `${content.length} bytes, allowance ${allowance}`);
      }
    }
  });

  it("splits on LF with an optional trailing LF and keeps blank records", () => {
    assert.deepEqual(drain(new RecordReader(fileWith("a\nbb\n\nccc"), 100)).records, [
      "a",
      "bb",
      "",
      "ccc",
    ]);
    assert.deepEqual(drain(new RecordReader(fileWith("a\nbb\n"), 100)).records, ["a", "bb"]);
    assert.deepEqual(drain(new RecordReader(fileWith(""), 100)).records, []);
  });

  it("resumes mid-record when the byte allowance runs out, holding only the partial record", () => {
    const long = "x".repeat(50_000);
    const fd = fileWith(`${long}\nshort\n`);
    const reader = new RecordReader(fd, 100_000);
    const first = reader.next({ bytes: 10_000 });
    assert.equal(first.kind, "out_of_bytes");
    assert.equal(reader.midRecord, true);
    const rest = drain(reader, 10_000);
    assert.deepEqual(rest.records, [long, "short"]);
    assert.ok(rest.outOfBytes >= 3);
    assert.equal(reader.bytesRead, 50_007);
    closeSync(fd);
  });

  it("reports record start offsets for resuming at a record", () => {
    const fd = fileWith("one\ntwo\nthree\n");
    const reader = new RecordReader(fd, 100);
    const starts: number[] = [];
    for (let r = reader.next({ bytes: 1e9 }); r.kind === "record"; r = reader.next({ bytes: 1e9 }))
      starts.push(r.start);
    assert.deepEqual(starts, [0, 4, 8]);
    const resumed = new RecordReader(fd, 100, 8).next({ bytes: 1e9 });
    assert.equal(
      resumed.kind === "record" && resumed.source.toString("utf8", resumed.from, resumed.to),
      "three",
    );
  });

  it("accepts a record of exactly the limit and refuses one byte more", () => {
    const limit = 20_000;
    assert.deepEqual(
      drain(new RecordReader(fileWith(`${"a".repeat(limit)}\n`), limit)).records.map(
        (r) => r.length,
      ),
      [limit],
    );
    const over = drain(new RecordReader(fileWith(`${"a".repeat(limit + 1)}\n`), limit));
    assert.equal(over.last, "over_limit");
    assert.deepEqual(over.records, []);
    const unterminated = drain(new RecordReader(fileWith("a".repeat(limit + 1)), limit));
    assert.equal(unterminated.last, "over_limit");
  });

  it("splits records of every size around the 8 KiB buffer exactly, with their offsets", () => {
    // Lengths at and around the buffer size and its multiples, and a seeded mix of others,
    // read with allowances that cut reads at odd places.
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const lengths = [0, 1, 8190, 8191, 8192, 8193, 16_383, 16_384, 16_385, 3, 24_576];
    for (let i = 0; i < 300; i += 1) lengths.push(random(i % 10 === 0 ? 30_000 : 2_000));
    const records = lengths.map((length, i) => String.fromCharCode(97 + (i % 26)).repeat(length));
    const fd = fileWith(`${records.join("\n")}\n`);
    for (const allowance of [Number.POSITIVE_INFINITY, 8192, 5000, 777]) {
      const reader = new RecordReader(fd, 30_000);
      const got: string[] = [];
      const starts: number[] = [];
      for (;;) {
        const read = reader.next({ bytes: allowance });
        if (read.kind === "record") {
          got.push(read.source.toString("utf8", read.from, read.to));
          starts.push(read.start);
        } else if (read.kind === "end") break;
        else assert.ok(read.kind === "out_of_bytes" || read.kind === "paused", read.kind);
      }
      assert.deepEqual(got, records, `allowance ${allowance}`);
      let offset = 0;
      const expected = records.map((record) => {
        const start = offset;
        offset += record.length + 1;
        return start;
      });
      assert.deepEqual(starts, expected);
    }
    closeSync(fd);
  });

  it("starts no read at a known end (its caller proves the length unchanged afterwards)", () => {
    const path = join(dir, "grows");
    writeFileSync(path, "one\ntwo\n");
    const fd = openSync(path, "r");
    const known = new RecordReader(fd, 100, 0, Buffer.allocUnsafe(8192), 8);
    const unknown = new RecordReader(fd, 100);
    for (const reader of [known, unknown]) {
      assert.equal(reader.next({ bytes: 1e9 }).kind, "record");
      assert.equal(reader.next({ bytes: 1e9 }).kind, "record");
    }
    appendFileSync(path, "three\n");
    assert.equal(known.next({ bytes: 1e9 }).kind, "end");
    assert.equal(known.bytesRead, 8);
    assert.equal(unknown.next({ bytes: 1e9 }).kind, "record");
    closeSync(fd);
  });

  it("pauses after maxReads reads so callers can yield inside a long record", () => {
    const reader = new RecordReader(fileWith(`${"z".repeat(100_000)}\n`), 200_000);
    assert.equal(reader.next({ bytes: 1e9 }, 2).kind, "paused");
    assert.equal(reader.bytesRead, 16_384);
  });
});

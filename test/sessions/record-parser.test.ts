import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseFacts } from "../../src/sessions/records/parse-facts.js";
import { RecordParserPool } from "../../src/sessions/records/parse-worker-pool.js";
import { readRecordFacts } from "../../src/sessions/records/read-facts.js";
import { LOOP_OPENERS, OFF_THREAD_BYTES, readOptions } from "../helpers/read-options.js";

const TS = "2026-01-01T00:00:00.000Z";
const deep = (depth: number) =>
  `{"type":"deep","ts":"${TS}","a":${"[".repeat(depth)}${"]".repeat(depth)}}`;
const bytesOf = (text: string) => Buffer.from(text);

/** Settles within a generous bound, or fails the test instead of hanging it. */
function within<T>(work: Promise<T>, ms = 30_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms);
  });
  return Promise.race([work, bound]).finally(() => clearTimeout(timer));
}

describe("records at any nesting depth", () => {
  it("are valid on the loop, with their text kept verbatim for a page", () => {
    for (const depth of [5_000, 16_000, 100_000]) {
      const record = deep(depth);
      const facts = parseFacts(bytesOf(record), 0, Buffer.byteLength(record), readOptions(32_768));
      assert.equal(facts.valid, true, `depth ${depth}`);
      if (!facts.valid) continue;
      if (record.length <= 32_768) {
        assert.equal(facts.event?.text, record);
        assert.equal(facts.event?.bytes, record.length);
        assert.deepEqual(facts.event?.head, { type: "deep", ts: TS });
      } else assert.equal(facts.event, null, "too large for a page");
    }
  });

  it("are valid off the loop, for every reader (with and without a page's text)", async () => {
    const record = deep(1_000_000);
    assert.ok(record.length > OFF_THREAD_BYTES);
    const source = bytesOf(record);
    for (const keep of [0, 32_768]) {
      const facts = await within(
        Promise.resolve(readRecordFacts(source, 0, source.length, readOptions(keep))),
      );
      assert.equal(facts.valid, true);
      if (facts.valid) assert.equal(facts.event, null);
    }
    const broken = bytesOf(`${record.slice(0, -2)}}`);
    const verdict = await within(
      Promise.resolve(readRecordFacts(broken, 0, broken.length, readOptions(32_768))),
    );
    assert.equal(verdict.valid, false, "an unbalanced deep record is invalid, not an error");
  });

  it("leave the loop at more than 10,000 openings, with the same verdict as on it", async () => {
    // deep(n) opens n arrays and one object.
    const atBound = bytesOf(deep(LOOP_OPENERS - 1));
    const past = bytesOf(deep(LOOP_OPENERS));
    const onLoop = readRecordFacts(atBound, 0, atBound.length, readOptions(32_768));
    assert.ok(!(onLoop instanceof Promise), "10,000 openings are parsed on the loop");
    const offLoop = readRecordFacts(past, 0, past.length, readOptions(32_768));
    assert.ok(offLoop instanceof Promise, "10,001 go to the parser thread");
    const facts = await within(offLoop);
    assert.ok(onLoop.valid && facts.valid);
    assert.equal(facts.event?.text, past.toString());
    const flat = bytesOf(`{"type":"x","ts":"${TS}","t":"${"x".repeat(200_000)}"}`);
    assert.ok(
      !(readRecordFacts(flat, 0, flat.length, readOptions()) instanceof Promise),
      "flat 200 KB stays",
    );
  });

  it("trims only the JSON whitespace around the object, counting its bytes", () => {
    const record = ` \t{"type":"ü","ts":"${TS}" , "x":1e400}\r`;
    const facts = parseFacts(bytesOf(record), 0, Buffer.byteLength(record), readOptions(100));
    assert.ok(facts.valid);
    assert.equal(facts.event?.text, `{"type":"ü","ts":"${TS}" , "x":1e400}`);
    assert.equal(facts.event?.bytes, Buffer.byteLength(facts.event?.text ?? ""));
    const exact = facts.event?.bytes ?? 0;
    assert.ok(parseFacts(bytesOf(record), 0, Buffer.byteLength(record), readOptions(exact)).valid);
    const under = parseFacts(bytesOf(record), 0, Buffer.byteLength(record), readOptions(exact - 1));
    assert.equal(under.valid && under.event, null, "one byte over the bound keeps no text");
  });
});

describe("the parser thread", () => {
  const crashing = new URL("../fixtures/crashing-record-worker.js", import.meta.url);
  const good = bytesOf(`{"type":"x","ts":"${TS}"}`);

  it("fails only the requests a dead thread held; its late exit spares the next thread's", async () => {
    const pool = new RecordParserPool(crashing);
    const held = pool.parse(bytesOf(`hold${" ".repeat(10)}`), readOptions(0, true));
    const crash = pool.parse(bytesOf("crash"), readOptions(0, true));
    await assert.rejects(within(crash));
    await assert.rejects(within(held), "a request the dead thread held fails too");
    // Right after the thread's error, before its exit event: a new thread takes this one.
    const next = await within(pool.parse(good, readOptions(0, true)));
    assert.equal(next.valid, true);
    // Later still, after every event of the dead thread.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const later = await within(pool.parse(good, readOptions(32_768, true)));
    assert.ok(later.valid && later.event?.text === good.toString());
  });

  it("keeps serving after a crash while a request is in flight on the new thread", async () => {
    const pool = new RecordParserPool(crashing);
    await assert.rejects(within(pool.parse(bytesOf("crash"), readOptions(0, true))));
    const inFlight = pool.parse(bytesOf(`hold${" ".repeat(10)}`), readOptions(0, true));
    const answered = await within(inFlight).catch((error: Error) => error);
    assert.ok(!(answered instanceof Error), "the replacement thread's request is not failed");
    assert.equal(answered.valid, false, "'hold' is not JSON: invalid, answered normally");
  });
});

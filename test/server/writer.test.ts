import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, test } from "node:test";
import { ANSWER_BATCH_UNITS, FrameWriter } from "../../src/server/writer.js";
import { within } from "../helpers/fakes.js";

/** A sink that holds every chunk until `flowOne` or `flowAll` lets it through. */
function slowSink(highWaterMark: number) {
  const held: (() => void)[] = [];
  const received: string[] = [];
  const stream = new Writable({
    highWaterMark,
    decodeStrings: false,
    write(chunk: string, _encoding, callback) {
      held.push(() => {
        received.push(chunk);
        callback();
      });
    },
  });
  // Until nothing more comes for a turn of the loop: the writer hands frames over at the end of
  // the tick they were written in.
  const flowAll = async () => {
    for (let quiet = 0; quiet < 2; ) {
      const next = held.shift();
      quiet = next ? 0 : quiet + 1;
      next?.();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { stream, received, flowAll };
}

const settled = async (promise: Promise<void>) => {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await new Promise((r) => setImmediate(r));
  return done;
};

describe("FrameWriter", () => {
  test("resolves at once under the high-water mark, waits for drain above it, keeps order", async () => {
    const sink = slowSink(8);
    const pauses: boolean[] = [];
    const writer = new FrameWriter(sink.stream, (p) => pauses.push(p), {
      highWaterBytes: 20,
      ceilingBytes: 1000,
      answerBytes: 1000,
    });
    assert.equal(await settled(writer.write("a".repeat(10))), true, "10 bytes buffered");
    assert.equal(await settled(writer.write("b".repeat(10))), true, "20 bytes: at the mark");
    const third = writer.write("c");
    assert.equal(await settled(third), false, "21 bytes: one past the mark waits");
    await sink.flowAll();
    await within(third);
    assert.deepEqual(sink.received, ["a".repeat(10), "b".repeat(10), "c"]);
    assert.deepEqual(pauses, [], "input is never paused under the ceiling");
  });

  test("input pauses only past the ceiling and resumes on drain", async () => {
    const sink = slowSink(8);
    const pauses: boolean[] = [];
    const writer = new FrameWriter(sink.stream, (p) => pauses.push(p), {
      highWaterBytes: 10,
      ceilingBytes: 30,
      answerBytes: 1000,
    });
    void writer.write("x".repeat(30));
    assert.deepEqual(pauses, [], "at the ceiling");
    void writer.write("y");
    assert.deepEqual(pauses, [true], "one byte past it");
    await sink.flowAll();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(pauses, [true, false]);
  });

  test("answers waiting unwritten pause input past answerBytes, resume at half of it", async () => {
    const sink = slowSink(4);
    const pauses: boolean[] = [];
    const writer = new FrameWriter(sink.stream, (p) => pauses.push(p), {
      highWaterBytes: 1000,
      ceilingBytes: 1000,
      answerBytes: 20,
    });
    void writer.write("e".repeat(50), "event");
    assert.deepEqual(pauses, [], "notifications do not count toward answerBytes");
    void writer.write("a".repeat(10), "answer");
    void writer.write("b".repeat(10), "answer");
    assert.deepEqual(pauses, [], "20 bytes of answers: at the bound");
    void writer.write("c", "answer");
    assert.deepEqual(pauses, [true], "one byte past it");
    await sink.flowAll();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(pauses, [true, false], "resumed once the answers were written");
    // The tick's answers leave as one write, after the notification written before them.
    assert.deepEqual(sink.received, ["e".repeat(50), `${"a".repeat(10)}${"b".repeat(10)}c`]);
  });

  test("answers and notifications keep their order, whichever comes first in a tick", async () => {
    const sink = slowSink(1_000_000);
    const writer = new FrameWriter(sink.stream, () => {});
    void writer.write("a1\n", "answer");
    void writer.write("e1\n", "event");
    void writer.write("a2\n", "answer");
    void writer.write("a3\n", "answer");
    void writer.write("e2\n", "event");
    void writer.write("a4\n", "answer");
    await sink.flowAll();
    void writer.write("e3\n", "event");
    void writer.write("a5\n", "answer");
    const flushed = writer.flush();
    await sink.flowAll();
    await within(flushed);
    assert.equal(sink.received.join(""), "a1\ne1\na2\na3\ne2\na4\ne3\na5\n");
  });

  test("a long run of answers is handed over in pieces before its tick ends", () => {
    const writes: string[] = [];
    const stream = new Writable({
      decodeStrings: false,
      write(chunk: string, _encoding, callback) {
        writes.push(chunk);
        callback();
      },
    });
    const writer = new FrameWriter(stream, () => {}, {
      highWaterBytes: 1_000_000,
      ceilingBytes: 10_000_000,
      answerBytes: 10_000_000,
    });
    const line = `${"x".repeat(99)}\n`;
    const count = Math.ceil((3 * ANSWER_BATCH_UNITS) / line.length);
    for (let i = 0; i < count; i += 1) void writer.write(line, "answer");
    // Still inside the tick: every full batch has already left, each a whole number of frames.
    assert.equal(writes.length, Math.floor((count * line.length) / ANSWER_BATCH_UNITS));
    for (const text of writes) {
      assert.ok(text.length >= ANSWER_BATCH_UNITS && text.length < ANSWER_BATCH_UNITS + 100);
      assert.equal(text.length % line.length, 0);
    }
  });

  test("a slow reader of a long run of answers: input pauses, nothing is lost or reordered, input resumes", async () => {
    const sink = slowSink(16);
    const pauses: boolean[] = [];
    const writer = new FrameWriter(sink.stream, (p) => pauses.push(p), {
      highWaterBytes: 64,
      ceilingBytes: 1_000_000,
      answerBytes: 2 * ANSWER_BATCH_UNITS,
    });
    const lines = Array.from({ length: 5000 }, (_, i) => `{"id":"p${i}"}\n`);
    // Written over several ticks, as input chunks come: the reader takes nothing meanwhile.
    for (let i = 0; i < lines.length; i += 500) {
      for (const line of lines.slice(i, i + 500)) void writer.write(line, "answer");
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(pauses[0], true, "paused once answers piled up unread");
    assert.equal(pauses.length, 1, "and not resumed while the reader takes nothing");
    const flushed = writer.flush();
    await sink.flowAll();
    await within(flushed);
    assert.deepEqual(pauses, [true, false], "resumed once the reader caught up");
    assert.equal(sink.received.join(""), lines.join(""));
  });

  test("frames written in one tick leave together at its end, in order", async () => {
    const batches: string[][] = [];
    const stream = new Writable({
      decodeStrings: false,
      writev(chunks, callback) {
        batches.push(chunks.map((c) => c.chunk as string));
        callback();
      },
    });
    const writer = new FrameWriter(stream, () => {});
    void writer.write("a\n");
    void writer.write("b\n");
    void writer.write("c\n");
    assert.deepEqual(batches, [], "nothing leaves before the tick ends");
    await new Promise((r) => process.nextTick(r));
    assert.deepEqual(batches, [["a\n", "b\n", "c\n"]]);
    void writer.write("d\n");
    await within(writer.flush());
    assert.deepEqual(batches.flat(), ["a\n", "b\n", "c\n", "d\n", ""]);
  });

  test("a closed stream releases every waiting producer", async () => {
    const sink = slowSink(4);
    const writer = new FrameWriter(sink.stream, () => {}, {
      highWaterBytes: 4,
      ceilingBytes: 100,
      answerBytes: 1000,
    });
    const waiting = writer.write("0123456789");
    assert.equal(await settled(waiting), false);
    sink.stream.destroy(new Error("EPIPE"));
    await within(waiting);
    assert.equal(await settled(writer.write("more")), true);
  });

  test("a gone reader is told once, to those listening and to those who ask later", async () => {
    const sink = slowSink(4);
    const writer = new FrameWriter(sink.stream, () => {});
    let told = 0;
    writer.whenGone(() => told++);
    void writer.write("frame\n");
    assert.equal(told, 0);
    // EPIPE on a write: the stream errors, then closes; the listener hears it once.
    sink.stream.destroy(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
    await new Promise((r) => setImmediate(r));
    assert.equal(told, 1);
    let late = 0;
    writer.whenGone(() => late++);
    assert.equal(late, 1, "a listener added after the reader went is called at once");
    assert.equal(await settled(writer.flush()), true, "nothing waits for a gone reader");
  });
});

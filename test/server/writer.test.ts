import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, test } from "node:test";
import { FrameWriter } from "../../src/server/writer.js";
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
    assert.deepEqual(sink.received, ["e".repeat(50), "a".repeat(10), "b".repeat(10), "c"]);
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

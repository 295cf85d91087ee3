import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { SseDecoder, type SseMessage, STREAM_LINE_BYTES } from "../../src/agent/providers/sse.js";
import { TextBuilder } from "../../src/agent/text-builder.js";

/** Feeds `text` cut at `cuts` (byte offsets); null once the decoder refused a chunk. */
function decode(bytes: Uint8Array, cuts: number[]): SseMessage[] | null {
  const decoder = new SseDecoder();
  const out: SseMessage[] = [];
  let from = 0;
  for (const to of [
    ...cuts.filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b),
    bytes.length,
  ]) {
    const messages = decoder.feed(bytes.subarray(from, to));
    if (messages === null) return null;
    out.push(...messages);
    from = to;
  }
  out.push(...decoder.end());
  return out;
}

/** The three line ends of the SSE grammar. */
const LINE_ENDS = { LF: "\n", CRLF: "\r\n", CR: "\r" } as const;

/** `text` (written with LF) with every LF made `ending`. */
const withEnds = (text: string, ending: string) => text.replaceAll("\n", ending);

const event = (name: string | null, data: string) =>
  `${name ? `event: ${name}\n` : ""}${data
    .split("\n")
    .map((line) => `data: ${line}`)
    .join("\n")}\n\n`;

describe("SseDecoder", () => {
  test("events come out the same however the body is cut, multi-byte characters included", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            name: fc.option(fc.constantFrom("content_block_delta", "ping", "error"), { nil: null }),
            data: fc
              .string({ unit: "grapheme", minLength: 1, maxLength: 40 })
              .filter((d) => !/[\r\n]/.test(d)),
          }),
          { maxLength: 20 },
        ),
        fc.array(fc.nat({ max: 2000 }), { maxLength: 12 }),
        (events, cuts) => {
          const bytes = Buffer.from(events.map((e) => event(e.name, e.data)).join(""));
          const got = decode(bytes, cuts);
          assert.deepEqual(
            got?.map((m) => [m.event ?? null, m.data]),
            events.map((e) => [e.name, e.data]),
          );
        },
      ),
    );
  });

  test("data lines join with LF; comments and an unfinished last event are not events", () => {
    const bytes = Buffer.from(": keep-alive\ndata: a\ndata: b\n\nevent: x\ndata: never ended");
    assert.deepEqual(
      decode(bytes, [3, 17])?.map((m) => m.data),
      ["a\nb"],
    );
  });

  test(`a line of ${STREAM_LINE_BYTES} bytes passes in any cut; one more byte is refused`, () => {
    const at = Buffer.alloc(STREAM_LINE_BYTES, 0x78);
    const past = Buffer.alloc(STREAM_LINE_BYTES + 1, 0x78);
    for (const cuts of [[], [1], [STREAM_LINE_BYTES - 1], [65_536, 131_072]]) {
      const ok = decode(Buffer.concat([at, Buffer.from("\n\n")]), cuts);
      assert.notEqual(ok, null, `at the bound, cut at ${cuts}`);
      assert.equal(decode(Buffer.concat([past, Buffer.from("\n\n")]), cuts), null, `past, ${cuts}`);
    }
    // A long line inside one chunk, between short ones, is measured too.
    const inside = Buffer.concat([Buffer.from("data: a\n"), past, Buffer.from("\ndata: b\n\n")]);
    assert.equal(decode(inside, []), null);
    // A line still open at the end of a chunk counts on into the next.
    assert.equal(decode(Buffer.concat([Buffer.from("data: a\n\n"), past]), [9, 100]), null);
  });
});

describe("SseDecoder: CR, LF and CRLF line ends", () => {
  for (const [name, ending] of Object.entries(LINE_ENDS)) {
    test(`${name}: the same events however the body is cut, the last one included`, () => {
      fc.assert(
        fc.property(
          fc.array(
            fc.record({
              name: fc.option(fc.constantFrom("message_stop", "response.completed"), { nil: null }),
              data: fc
                .string({ unit: "grapheme", minLength: 1, maxLength: 30 })
                .filter((d) => !/[\r\n]/.test(d)),
            }),
            { minLength: 1, maxLength: 12 },
          ),
          fc.array(fc.nat({ max: 800 }), { maxLength: 10 }),
          (events, cuts) => {
            const body = withEnds(events.map((e) => event(e.name, e.data)).join(""), ending);
            assert.deepEqual(
              decode(Buffer.from(body), cuts)?.map((m) => [m.event ?? null, m.data]),
              events.map((e) => [e.name, e.data]),
            );
          },
        ),
      );
    });
  }

  test("CR only: the last event is complete only at the end, where nothing can follow its CR", () => {
    const decoder = new SseDecoder();
    const fed = decoder.feed(Buffer.from("data: a\r\rdata: last\r\r"));
    assert.deepEqual(
      fed?.map((m) => m.data),
      ["a"],
      "the last CR could still be a CRLF's",
    );
    assert.deepEqual(
      decoder.end().map((m) => m.data),
      ["last"],
    );
  });

  test("an unfinished event or line at the end is dropped, whatever the line ends", () => {
    for (const ending of Object.values(LINE_ENDS)) {
      for (const tail of ["data: open\n", "data: open", "event: x\ndata: open\n"]) {
        const body = withEnds(`data: a\n\n${tail}`, ending);
        assert.deepEqual(
          decode(Buffer.from(body), [])?.map((m) => m.data),
          ["a"],
          JSON.stringify(body),
        );
      }
    }
  });

  test(`CR only: a line of ${STREAM_LINE_BYTES} bytes passes in any cut; one more is refused`, () => {
    const at = Buffer.alloc(STREAM_LINE_BYTES, 0x78);
    const past = Buffer.alloc(STREAM_LINE_BYTES + 1, 0x78);
    const cr = Buffer.from("\r\r");
    for (const cuts of [[], [1], [STREAM_LINE_BYTES - 1], [STREAM_LINE_BYTES], [65_536]]) {
      assert.notEqual(decode(Buffer.concat([at, cr]), cuts), null, `at the bound, cut at ${cuts}`);
      assert.equal(decode(Buffer.concat([past, cr]), cuts), null, `past, cut at ${cuts}`);
    }
    // Between short CR-ended lines, in one chunk or in many.
    const inside = Buffer.concat([Buffer.from("data: a\r"), past, Buffer.from("\rdata: b\r\r")]);
    assert.equal(decode(inside, []), null);
    assert.equal(decode(inside, [4, 9, 100]), null);
    const fits = Buffer.concat([Buffer.from("data: a\r"), at, Buffer.from("\rdata: b\r\r")]);
    assert.notEqual(decode(fits, []), null);
  });

  test("CR only: a stream longer than the line bound, in short lines, is not one long line", () => {
    const line = `data: ${"y".repeat(65_536)}\r\r`;
    const count = Math.ceil((STREAM_LINE_BYTES * 1.5) / line.length);
    const body = Buffer.from(line.repeat(count));
    const cuts = Array.from({ length: 200 }, (_, i) => Math.floor((body.length * i) / 200));
    assert.equal(decode(body, cuts)?.length, count);
    assert.equal(decode(body, [])?.length, count);
  });
});

describe("TextBuilder", () => {
  test("gives exactly the concatenation of its pieces, and their length", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: "grapheme", maxLength: 300 }), { maxLength: 400 }),
        (pieces) => {
          const builder = new TextBuilder();
          for (const piece of pieces) builder.add(piece);
          const whole = pieces.join("");
          assert.equal(builder.length, whole.length);
          assert.equal(builder.toString(), whole);
          // Reading it does not change it, and it can grow after.
          assert.equal(builder.toString(), whole);
          builder.add("!");
          assert.equal(builder.toString(), `${whole}!`);
        },
      ),
    );
  });

  test("a reply of 100,000 small pieces is a few hundred flat parts, not 100,000 nodes", () => {
    const builder = new TextBuilder();
    for (let i = 0; i < 100_000; i++) builder.add(`token ${i % 10} `);
    const parts = (builder as unknown as { parts: string[] }).parts.length;
    assert.ok(parts <= Math.ceil(100_000 / 256), `${parts} parts`);
    assert.equal(builder.toString().length, 800_000);
  });
});

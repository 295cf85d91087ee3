import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { z } from "zod";
import { encodeResult } from "../src/protocol/envelope.js";
import { safeParse } from "../src/protocol/first-parse.js";
import { PageBuilder } from "../src/protocol/paging.js";
import { checkWire, jsonBytes, RawJson, wireText } from "../src/protocol/raw-json.js";
import { SessionEvent, SessionHistoryResult } from "../src/protocol/schemas/sessions.js";

const TS = "2026-01-01T00:00:00.000Z";
const stored = `{"type":"x","ts":"${TS}","__proto__":{"p":1},"n":1e400,"big":123456789012345678901234}`;
const raw = new RawJson(stored, { type: "x", ts: TS });

describe("raw JSON in results", () => {
  test("wireText writes exactly what JSON.stringify writes when nothing is raw", () => {
    const values: unknown[] = [
      { a: 1, b: [1, "two", null, true, { c: undefined, d: [] }], e: undefined },
      [undefined, () => 1, Symbol("s"), Number.NaN, -0, 1e21, 'ü\u2028"\\', new Date(0)],
      { "": { "\u0000": "x" }, nested: { deeper: { deepest: [[[]]] } } },
      Object.assign(Object.create(null), { z: 1, a: 2 }),
      JSON.parse('{"__proto__":{"own":true},"k":[1,2]}'),
      "text",
      42,
      null,
    ];
    for (const value of values) assert.equal(wireText(value), JSON.stringify(value));
  });

  test("a RawJson is written verbatim, wherever it is", () => {
    const result = { events: [raw, raw], cursor: null, complete: true };
    assert.equal(
      encodeResult("r1", result),
      `{"id":"r1","result":{"events":[${stored},${stored}],"cursor":null,"complete":true}}\n`,
    );
  });

  test("the schema checks each RawJson's view, and the checked result keeps the RawJson", () => {
    const checked = checkWire(SessionHistoryResult(), {
      events: [raw],
      cursor: null,
      complete: true,
    });
    assert.ok(checked.ok);
    assert.equal((checked.value as { events: unknown[] }).events[0], raw);
    const badView = new RawJson(stored, { type: 1, ts: TS });
    const refused = checkWire(SessionHistoryResult(), {
      events: [badView],
      cursor: null,
      complete: true,
    });
    assert.equal(refused.ok, false, "a view outside SessionEvent fails the check");
    const badEnvelope = checkWire(SessionHistoryResult(), {
      events: [raw],
      cursor: 7,
      complete: true,
    });
    assert.equal(badEnvelope.ok, false, "the rest of the result is checked as before");
  });

  test("a result without RawJson comes back as the schema's output", () => {
    const schema = z.strictObject({ events: z.array(SessionEvent()) });
    const value = { events: [{ type: "x", ts: TS, extra: 1 }] };
    const checked = checkWire(schema, value);
    assert.ok(checked.ok);
    assert.deepEqual(checked.value, schema.parse(value));
  });

  test("a schema's first check (no compiled fast path) answers as its compiled checks do", () => {
    const schemaOf = () =>
      z.strictObject({
        protocol_version: z.literal(1),
        server: z.strictObject({ name: z.string(), version: z.string() }),
        capabilities: z.array(z.string()),
        extensions: z.record(z.string(), z.strictObject({ max: z.number().int().min(0) })),
      });
    const good = {
      protocol_version: 1,
      server: { name: "mc-agent", version: "1" },
      capabilities: ["turn"],
      extensions: { turn: { max: 3 } },
    };
    const bad = [
      { ...good, server: { name: "mc-agent", version: "1", extra: true } },
      { ...good, extensions: { turn: { max: -1 } } },
      { ...good, protocol_version: 2 },
      { ...good, capabilities: undefined },
    ];
    for (const value of [good, ...bad]) {
      // A fresh schema each: zod compiles its fast path on the first parse that asks for it.
      const schema = schemaOf();
      const first = checkWire(schema, value);
      const compiled = checkWire(schema, value);
      assert.deepEqual(first, compiled);
    }
    // What safeParse asks zod for: no compiled fast path on a schema's first check only.
    const schema = schemaOf();
    const asked: unknown[] = [];
    const zodSafeParse = schema.safeParse.bind(schema);
    schema.safeParse = ((value: unknown, options?: unknown) => {
      asked.push(options);
      return zodSafeParse(value, options as never);
    }) as typeof schema.safeParse;
    for (let i = 0; i < 3; i++) assert.ok(safeParse(schema, good).success);
    assert.deepEqual(asked, [{ jitless: true }, undefined, undefined]);
  });

  test("a page pays a RawJson its UTF-8 bytes: fits at the bound, not one byte past", () => {
    const text = `{"type":"ü","ts":"${TS}"}`;
    const item = new RawJson(text, { type: "ü", ts: TS });
    assert.equal(jsonBytes(item), Buffer.byteLength(text));
    const envelope = 10;
    const fitting = new PageBuilder<RawJson>(envelope, {
      entries: 10,
      bytes: envelope + 2 * item.bytes + 1,
    });
    assert.ok(fitting.tryAdd(item) && fitting.tryAdd(item));
    const tight = new PageBuilder<RawJson>(envelope, {
      entries: 10,
      bytes: envelope + 2 * item.bytes,
    });
    assert.ok(tight.tryAdd(item));
    assert.equal(tight.tryAdd(item), false);
  });
});

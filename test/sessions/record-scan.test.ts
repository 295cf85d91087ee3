import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { scanString, scanValue } from "../../src/sessions/records/json-syntax.js";
import { parseFacts } from "../../src/sessions/records/parse-facts.js";
import { factsOnThisThread } from "../../src/sessions/records/read-facts.js";
import { scanFacts } from "../../src/sessions/records/scan-facts.js";
import { readOptions } from "../helpers/read-options.js";

/**
 * The byte scanner's edge cases (src/sessions/records/json-syntax.ts, scan-facts.ts), each next to the
 * JSON.parse path's answer: the scanner either vouches for a record with the very same facts,
 * or leaves it to the parse. The differential fuzz (test/fuzz/record-scan.fuzz.test.ts) covers
 * the rest.
 */
const TS = "2026-01-01T00:00:00.000Z";
const bytes = (text: string) => Buffer.from(text, "utf8");

/** The scanner's own answer and the parse path's, for `text`. */
function both(text: string | Buffer, wantUserLine = true) {
  const source = typeof text === "string" ? bytes(text) : text;
  return {
    scanned: scanFacts(source, 0, source.length, wantUserLine),
    parsed: parseFacts(source, 0, source.length, readOptions(0, wantUserLine)),
    combined: factsOnThisThread(source, 0, source.length, readOptions(0, wantUserLine, false)),
  };
}

/** The scanner answers, with exactly the parse path's facts. */
function vouches(text: string | Buffer, wantUserLine = true) {
  const { scanned, parsed, combined } = both(text, wantUserLine);
  assert.notEqual(scanned, null, `the scanner answers for ${String(text).slice(0, 80)}`);
  assert.deepEqual(scanned, parsed);
  assert.deepEqual(combined, parsed);
  return parsed;
}

/** The scanner defers, and the record is invalid. */
function refuses(text: string | Buffer) {
  const { scanned, parsed, combined } = both(text);
  assert.equal(scanned, null, `the scanner defers on ${JSON.stringify(String(text).slice(0, 80))}`);
  assert.equal(parsed.valid, false);
  assert.deepEqual(combined, { valid: false });
}

describe("the record scanner", () => {
  it("reads a row's facts: ts, cwd, title, first user line", () => {
    const user = vouches(`{"type":"user_message","ts":"${TS}","cwd":"/w","text":"one\\ntwo"}`);
    assert.deepEqual(user.valid && [user.ts, user.cwd, user.userLine], [TS, "/w", "one"]);
    const title = vouches(`{"type":"title","ts":"${TS}","title":"T","cwd":""}`);
    assert.deepEqual(title.valid && [title.title, title.cwd], ["T", null]);
    vouches(`{"type":"title","ts":"${TS}","title":""}`);
    vouches(`{"type":"title","ts":"${TS}","title":7}`);
    vouches(`{"type":"user_message","ts":"${TS}","text":"x"}`, false);
    vouches(`{"type":"user_message","ts":"${TS}","text":null}`);
  });

  it("keeps the last of duplicate keys, as JSON.parse does", () => {
    const facts = vouches(
      `{"type":"mode","ts":"a","cwd":"/a","type":"title","title":"x","ts":"${TS}","title":"y","cwd":"/b"}`,
    );
    assert.deepEqual(facts.valid && [facts.ts, facts.title, facts.cwd], [TS, "y", "/b"]);
    // A null cwd later replaced by a string is valid; the other way round is not.
    vouches(`{"type":"x","ts":"${TS}","cwd":null,"cwd":"/w"}`);
    refuses(`{"type":"x","ts":"${TS}","cwd":"/w","cwd":null}`);
  });

  it("decodes escaped keys and values as JSON.parse does", () => {
    const facts = vouches(
      `{"t\\u0079pe":"title","\\u0074s":"${TS}","title":"\\ud83c\\udf89 \\ud800"}`,
    );
    assert.equal(facts.valid && facts.title, "\u{1F389} \uD800");
    vouches(`{"type":"user_message","ts":"${TS}","text":"a\\u000Ab","cwd":"\\/w"}`);
    vouches(`{"type":"x","ts":"${TS}","\\"":1,"\\\\":2,"\\/\\b\\f\\n\\r\\t":3}`);
  });

  it("reads each record's own cwd and type, record after record (the scanner compares bytes)", () => {
    // One buffer, records written over each other as the reader's buffer is reused.
    const source = Buffer.alloc(4096);
    const cwdOf = (text: string) => {
      source.fill(0x20);
      const length = source.write(text);
      const scanned = scanFacts(source, 0, length, true);
      const parsed = parseFacts(source, 0, length, readOptions(0, true));
      assert.deepEqual(scanned, parsed);
      return scanned?.valid ? [scanned.cwd, scanned.title, scanned.userLine] : null;
    };
    const record = (cwd: string, type = "user_message") =>
      `{"type":"${type}","ts":"${TS}","cwd":"${cwd}","text":"u","title":"t"}`;
    assert.deepEqual(cwdOf(record("/w/a")), ["/w/a", null, "u"]);
    assert.deepEqual(cwdOf(record("/w/a")), ["/w/a", null, "u"]);
    // The same length, other bytes: never the last record's cwd.
    assert.deepEqual(cwdOf(record("/w/b")), ["/w/b", null, "u"]);
    assert.deepEqual(cwdOf(record("/w/b\u00e9")), ["/w/b\u00e9", null, "u"]);
    assert.deepEqual(cwdOf(record("/w/b\\u0061")), ["/w/ba", null, "u"]);
    assert.deepEqual(cwdOf(record("/w/ba")), ["/w/ba", null, "u"]);
    assert.deepEqual(cwdOf(record("/w")), ["/w", null, "u"]);
    // At the compared cwd's bound (1024 bytes), one past it, and far past it.
    for (const length of [1024, 1025, 2000]) {
      const long = `/${"d".repeat(length - 1)}`;
      const other = `${long.slice(0, -1)}e`;
      assert.deepEqual(cwdOf(record(long)), [long, null, "u"]);
      assert.deepEqual(cwdOf(record(long)), [long, null, "u"]);
      assert.deepEqual(cwdOf(record(other)), [other, null, "u"]);
    }
    // The type as bytes: only exactly `title` and `user_message` count, an escaped one too.
    assert.deepEqual(cwdOf(record("/w", "title")), ["/w", "t", null]);
    assert.deepEqual(cwdOf(record("/w", "t\\u0069tle")), ["/w", "t", null]);
    assert.deepEqual(cwdOf(record("/w", "titles")), ["/w", null, null]);
    assert.deepEqual(cwdOf(record("/w", "Title")), ["/w", null, null]);
    assert.deepEqual(cwdOf(record("/w", "user_messag")), ["/w", null, null]);
    assert.deepEqual(cwdOf(record("/w", "user_m\\u0065ssage")), ["/w", null, "u"]);
  });

  it("takes a ts of 64 characters and leaves one of 65 to the parse (invalid)", () => {
    vouches(`{"type":"x","ts":"${"t".repeat(64)}"}`);
    refuses(`{"type":"x","ts":"${"t".repeat(65)}"}`);
    // Characters, not bytes: 64 two-byte characters are within the bound.
    vouches(`{"type":"x","ts":"${"é".repeat(64)}"}`);
  });

  it("refuses what is not a SessionEvent: no object, wrong types", () => {
    for (const text of [
      "",
      " ",
      "{}",
      "[]",
      "null",
      `"x"`,
      `{"ts":"${TS}"}`,
      `{"type":"x"}`,
      `{"type":1,"ts":"${TS}"}`,
      `{"type":"x","ts":null}`,
      `{"type":"x","ts":"${TS}","cwd":5}`,
      `{"type":"x","ts":"${TS}","cwd":{}}`,
    ])
      refuses(text);
  });

  it("refuses every syntax error JSON.parse refuses", () => {
    const base = `{"type":"x","ts":"${TS}"`;
    for (const tail of [
      "",
      ",}",
      ",",
      ',"a"}',
      ',"a":}',
      ',"a":1,}',
      ',"a":[1,]}',
      ',"a":[,1]}',
      ',"a":01}',
      ',"a":1.}',
      ',"a":.5}',
      ',"a":-}',
      ',"a":+1}',
      ',"a":1e}',
      ',"a":1e+}',
      ',"a":0x10}',
      ',"a":NaN}',
      ',"a":Infinity}',
      ',"a":tru}',
      ',"a":nulls}',
      ',"a":"\\x"}',
      ',"a":"\\u12"}',
      ',"a":"\\u12g4"}',
      ',"a":"tab\there"}',
      ',"a":"\u0000"}',
      ',"a":[}',
      ',"a":{]}',
      ',"a":{"b"}}',
      ',"a":{"b":1 "c":2}}',
      "}}",
      "} x",
      "}\u00a0",
      ",'a':1}",
      ",a:1}",
    ])
      refuses(base + tail);
  });

  it("takes JSON's whitespace and only it, a CR before the LF included", () => {
    vouches(` \t\r{ "type" : "x" ,\t"ts":"${TS}" } \r`);
    refuses(`\u00a0{"type":"x","ts":"${TS}"}`);
    refuses(`\uFEFF{"type":"x","ts":"${TS}"}`);
    refuses(`{"type":"x",\f"ts":"${TS}"}`);
  });

  it("takes every number JSON allows", () => {
    for (const n of [
      "0",
      "-0",
      "1",
      "-1",
      "0.5",
      "1e5",
      "1E-5",
      "-1.5e+300",
      "1e400",
      "12345678901234567890123",
    ])
      vouches(`{"type":"x","ts":"${TS}","n":${n},"m":[${n}]}`);
  });

  it("checks UTF-8 strictly: overlong forms, encoded surrogates and cut sequences are invalid", () => {
    const head = bytes(`{"type":"x","ts":"${TS}","a":"`);
    const tail = bytes(`"}`);
    for (const bad of [
      [0xc0, 0x80],
      [0xed, 0xa0, 0x80],
      [0xe2, 0x82],
      [0xff],
      [0xf4, 0x90, 0x80, 0x80],
    ])
      refuses(Buffer.concat([head, Buffer.from(bad), tail]));
    // A real U+FFFD and four-byte characters are fine.
    vouches(`{"type":"x","ts":"${TS}","a":"\uFFFD\u{10FFFF}€"}`);
    // Outside a string a non-ASCII byte is a syntax error.
    refuses(`{"type":"x","ts":"${TS}","a":1é}`);
  });

  it("finds special bytes anywhere in a long string, at every alignment", () => {
    for (let before = 0; before < 8; before += 1)
      for (let at = 30; at < 80; at += 1) {
        const run = "x".repeat(at);
        const prefix = " ".repeat(before);
        vouches(`${prefix}{"type":"x","ts":"${TS}","a":"${run}\\n${run}"}`);
        vouches(`${prefix}{"type":"x","ts":"${TS}","a":"${run}é${run}"}`);
        refuses(`${prefix}{"type":"x","ts":"${TS}","a":"${run}\u0001${run}"}`);
        refuses(`${prefix}{"type":"x","ts":"${TS}","a":"${run}`);
      }
  });

  it("never reads past the record's end (the reader's buffer holds more bytes there)", () => {
    const record = `{"type":"x","ts":"${TS}","a":"${"y".repeat(100)}`;
    for (const after of ['"}', '"}\n', "}", '"'])
      for (let cut = 1; cut < record.length; cut += 1) {
        const source = bytes(record.slice(0, cut) + after);
        assert.equal(scanFacts(source, 0, cut, true), null, `cut at ${cut}`);
      }
    const source = bytes(`xx{"type":"x","ts":"${TS}"}yy`);
    assert.notEqual(scanFacts(source, 2, source.length - 2, true), null);
  });

  it("scans any nesting depth in linear time, without recursion", () => {
    for (const depth of [1, 255, 256, 257, 100_000]) {
      vouches(`{"type":"x","ts":"${TS}","a":${"[".repeat(depth)}${"]".repeat(depth)}}`);
      vouches(`{"type":"x","ts":"${TS}","a":${'{"b":'.repeat(depth)}1${"}".repeat(depth)}}`);
      refuses(`{"type":"x","ts":"${TS}","a":${"[".repeat(depth)}${"]".repeat(depth - 1)}}`);
    }
  });

  it("leaves a record to the parse when a page's text or the value is wanted", () => {
    const source = bytes(`{"type":"x","ts":"${TS}"}`);
    const page = factsOnThisThread(source, 0, source.length, readOptions(1024, true, false));
    assert.equal(page.valid && page.event?.text, `{"type":"x","ts":"${TS}"}`);
    const kept = factsOnThisThread(source, 0, source.length, readOptions(0, true, true));
    assert.deepEqual(kept.valid && kept.value, { type: "x", ts: TS });
  });
});

describe("json-syntax's pieces", () => {
  it("scanString and scanValue (of a number, of a container) end where the token ends", () => {
    const text = bytes('"ab\\"c" 12.5e3, [1,{"a":[]}]x');
    assert.equal(scanString(text, 0, text.length), 7);
    assert.equal(scanValue(text, 8, text.length), 14);
    assert.equal(scanValue(text, 16, text.length), 28);
    assert.equal(scanValue(text, 16, 27), -1);
  });
});

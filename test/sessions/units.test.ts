import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { PageBuilder, PageOverflow } from "../../src/protocol/paging.js";
import { type SessionEntry, SessionEvent } from "../../src/protocol/schemas/sessions.js";
import { CwdMatcher } from "../../src/sessions/history/cwd-rule.js";
import { STEP_ENVELOPE_BYTES } from "../../src/sessions/listing/discover-envelope.js";
import { firstLineCut } from "../../src/sessions/records/facts.js";
import { isSessionEvent, parseFacts } from "../../src/sessions/records/parse-facts.js";
import { readOptions } from "../helpers/read-options.js";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "mc-units-")));
after(() => rmSync(dir, { recursive: true, force: true }));

const bytes = (text: string) => new TextEncoder().encode(text);

describe("cwd canonicalisation", () => {
  it("resolves an existing symlinked spelling, normalises a missing one, memoises per string", () => {
    symlinkSync(dir, join(dir, "..", `${dir.split("/").at(-1)}-alias`));
    const alias = `${dir}-alias`;
    const matcher = new CwdMatcher(dir);
    for (let i = 0; i < 10_000; i += 1) assert.ok(matcher.matches(alias));
    assert.equal(matcher.resolutions, 1);
    assert.ok(matcher.matches(`${dir}/./`));
    assert.ok(!matcher.matches("/definitely/not/here"));
    assert.ok(new CwdMatcher("/no/place").matches("/no/such/../place/"));
    assert.ok(new CwdMatcher("relative/path").matches("relative/path"));
    assert.ok(!new CwdMatcher("/no/place").matches("/no/such/place"));
    rmSync(alias);
  });
});

/** The facts of a record given as its own bytes. */
function factsOfBytes(record: Uint8Array) {
  return parseFacts(Buffer.from(record), 0, record.length, readOptions());
}

describe("record facts", () => {
  it("accepts parser-valid events, unknown types included", () => {
    const facts = factsOfBytes(
      bytes(JSON.stringify({ type: "future", ts: "t", cwd: "", extra: [1] })),
    );
    assert.ok(facts.valid);
    assert.equal(facts.valid && facts.cwd, null);
  });

  it("refuses bad JSON, non-objects, missing or non-string fields, invalid UTF-8, a BOM, an overlong ts", () => {
    const invalid = [
      bytes("{"),
      bytes("[1]"),
      bytes("null"),
      bytes('"text"'),
      bytes(""),
      bytes('{"type":"x"}'),
      bytes('{"type":"x","ts":1}'),
      bytes('{"type":"x","ts":"t","cwd":5}'),
      Uint8Array.from([...bytes('{"type":"x","ts":"'), 0xc3, 0x28, ...bytes('"}')]),
      bytes('\ufeff{"type":"x","ts":"t"}'),
      bytes(JSON.stringify({ type: "x", ts: "t".repeat(65) })),
    ];
    for (const record of invalid)
      assert.equal(factsOfBytes(record).valid, false, new TextDecoder().decode(record));
  });

  it("decides UTF-8 exactly as a strict decoder does, a real U+FFFD included", () => {
    const record = (inner: number[]) =>
      Uint8Array.from([...bytes('{"type":"x","ts":"t","title":"'), ...inner, ...bytes('"}')]);
    const strict = new TextDecoder("utf-8", { fatal: true });
    const cases = [
      [0xef, 0xbf, 0xbd], // U+FFFD itself: valid
      [0xe2, 0x82, 0xac], // U+20AC
      [0xf0, 0x9f, 0x98, 0x80], // U+1F600
      [0xc0, 0x80], // overlong NUL
      [0xe0, 0x80, 0xaf], // overlong
      [0xed, 0xa0, 0x80], // an encoded surrogate
      [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
      [0xf5, 0x80, 0x80, 0x80],
      [0xe2, 0x82], // truncated
      [0x80], // a lone continuation byte
      [0xff],
    ];
    for (const inner of cases) {
      const bytesOfRecord = record(inner);
      let valid = true;
      try {
        strict.decode(bytesOfRecord);
      } catch {
        valid = false;
      }
      assert.equal(factsOfBytes(bytesOfRecord).valid, valid, inner.join(","));
    }
  });

  it("reads a record from the middle of a larger buffer, by its range", () => {
    const source = Buffer.from(`junk{"type":"title","ts":"t","title":"Hi"}\nmore`);
    const facts = parseFacts(source, 4, source.indexOf("\n"), readOptions());
    assert.ok(facts.valid);
    assert.equal(facts.valid && facts.title, "Hi");
  });

  it("checks events in place with exactly the SessionEvent schema's verdicts", () => {
    const values = [
      '{"type":"x","ts":"t"}',
      '{"type":"x","ts":"t","cwd":"/w","extra":{"a":[1]}}',
      '{"type":"x","ts":"t","cwd":""}',
      '{"type":"","ts":""}',
      '{"type":"x","ts":"t","cwd":null}',
      '{"type":"x","ts":"t","cwd":5}',
      '{"type":"x","ts":"t","cwd":["/w"]}',
      '{"type":"x","ts":1}',
      '{"type":"x","ts":null}',
      '{"type":1,"ts":"t"}',
      '{"ts":"t"}',
      '{"type":"x"}',
      '{"__proto__":{"type":"x","ts":"t"}}',
      '{"__proto__":{"cwd":5},"type":"x","ts":"t"}',
      '{"type":"x","ts":"t","__proto__":null}',
      "{}",
      "[]",
      '[{"type":"x","ts":"t"}]',
      "null",
      "true",
      "1",
      '"x"',
    ];
    for (const text of values) {
      const value: unknown = JSON.parse(text);
      assert.equal(isSessionEvent(value), SessionEvent().safeParse(value).success, text);
    }
  });

  it("cuts a user message's first line to 80 characters", () => {
    assert.equal(firstLineCut(`${"😀".repeat(90)}\nnext`), "😀".repeat(80));
    assert.equal(firstLineCut("short\r\nnext"), "short");
  });
});

describe("the pager and discovery_page_bytes", () => {
  const entry = (title: string): SessionEntry => ({
    id: "s1",
    title,
    created_at: null,
    updated_at: null,
    busy: false,
    cwd: "verified",
    open: "exact",
  });

  it("throws PageOverflow for an entry that cannot fit an empty discovery page", () => {
    const page = new PageBuilder<SessionEntry>(STEP_ENVELOPE_BYTES, {
      entries: 100,
      bytes: 32_768,
    });
    assert.throws(() => page.tryAdd(entry("t".repeat(32_768))), PageOverflow);
    assert.equal(page.items.length, 0);
  });

  it("fits an entry exactly at the byte bound and refuses one byte more", () => {
    const fixed = JSON.stringify(entry("")).length;
    const room = 32_768 - STEP_ENVELOPE_BYTES - fixed;
    assert.ok(
      new PageBuilder<SessionEntry>(STEP_ENVELOPE_BYTES, { entries: 100, bytes: 32_768 }).tryAdd(
        entry("t".repeat(room)),
      ),
    );
    assert.throws(
      () =>
        new PageBuilder<SessionEntry>(STEP_ENVELOPE_BYTES, { entries: 100, bytes: 32_768 }).tryAdd(
          entry("t".repeat(room + 1)),
        ),
      PageOverflow,
    );
  });
});

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { sandbox } from "../../src/conformance/harness.js";
import { streamBytes, streamChunks } from "./stream-generators.js";
import { historyFileProblems, loneSurrogate } from "./turn-checks.js";

/** The turn fuzzers' own checks can fail: each catches what it is for. */
describe("turn fuzz checks", () => {
  test("a lone surrogate anywhere in a frame is found, a whole pair is not", () => {
    assert.equal(loneSurrogate({ a: ["ok 🎉", { b: "x" }] }), null);
    assert.match(loneSurrogate({ a: ["ok", { title: "cut \ud83c" }] }) ?? "", /\$\.a\[1\]\.title/);
    assert.ok(loneSurrogate({ "\udc00": 1 }), "in a key too");
  });

  test("a history line that is not a record fails; a torn tail only where allowed", () => {
    const box = sandbox("mc-fz-check-");
    try {
      const path = join(box.root, "h.jsonl");
      writeFileSync(path, '{"type":"session_meta"}\n{"type":"turn_st');
      assert.deepEqual(historyFileProblems(path, true), []);
      assert.deepEqual(historyFileProblems(path), ["the history ends without LF"]);
      writeFileSync(path, '{"type":"session_meta"}\n{"type":"turn_start"}');
      assert.deepEqual(historyFileProblems(path, true), [
        "a whole record without its LF at the end",
      ]);
      writeFileSync(path, '{"type":"a"}\nnot json\n{"no":"type"}\n{"type":"x","t":"\\ud800"}\n');
      assert.deepEqual(historyFileProblems(path), [
        "history line 2 is not JSON",
        "history line 3 has no type",
        'history line 4 has a lone surrogate at $.t: "\\ud800"',
      ]);
      writeFileSync(path, Buffer.from([0x7b, 0xff, 0x7d, 0x0a]));
      assert.deepEqual(historyFileProblems(path), ["the history is not valid UTF-8"]);
    } finally {
      box.cleanup();
    }
  });

  test("chunking cuts inside multibyte characters and loses no byte", () => {
    const c = {
      format: "anthropic" as const,
      text: "é🎉日本",
      withCall: true,
      eol: "\r\n" as const,
      edits: [],
      truncateAt: null,
      ending: "end" as const,
      chunking: { kind: "cuts" as const, at: [], insideChars: true },
    };
    const chunks = streamChunks(c);
    assert.deepEqual(Buffer.concat(chunks), streamBytes(c));
    const splitChar = chunks.some((chunk) => (chunk[0] ?? 0) >> 6 === 0b10);
    assert.ok(splitChar, "some chunk starts inside a character");
  });
});

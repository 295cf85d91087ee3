import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BoundedLines } from "../../src/acp/line-bound.js";

/** The lines `new BoundedLines(max)` gives for `chunks` then the input's end, a cut line as "!". */
function through(max: number, chunks: string[]): string[] {
  const lines = new BoundedLines(max);
  const out: string[] = [];
  const text = (line: Uint8Array | null) =>
    line === null ? "!" : Buffer.from(line).toString("latin1");
  for (const chunk of chunks)
    for (const line of lines.push(Buffer.from(chunk, "latin1"))) out.push(text(line));
  const last = lines.flush();
  if (last !== undefined) out.push(text(last));
  return out;
}

describe("acp: the line bound of the agent's input", () => {
  it("passes a line at the bound whole and cuts one byte past it", () => {
    assert.deepEqual(through(4, ["abcd\n", "efgh\n"]), ["abcd", "efgh"]);
    assert.deepEqual(through(4, ["abcde\n", "ok\n"]), ["!", "ok"]);
  });

  it("drops the rest of a long line across chunks, holding nothing, then goes on", () => {
    assert.deepEqual(through(4, ["ab", "cd", "ef", "gh", "\nnext\n"]), ["!", "next"]);
    assert.deepEqual(through(4, ["abcd", "e", "fff\nx\n"]), ["!", "x"]);
    assert.deepEqual(through(4, ["a\nbcdefg", "\n\n"]), ["a", "!", ""]);
  });

  it("reports a long line the moment it passes the bound, before its end", () => {
    const lines = new BoundedLines(4);
    assert.deepEqual([...lines.push(Buffer.from("abc"))], []);
    assert.deepEqual([...lines.push(Buffer.from("de"))], [null]);
    assert.deepEqual([...lines.push(Buffer.from("fgh"))], []);
    assert.deepEqual([...lines.push(Buffer.from("i\nj\n"))].map(String), ["j"]);
  });

  it("counts a CR before the LF and drops it from the line, as the SDK's reader", () => {
    assert.deepEqual(through(4, ["abc\r\n", "abcd\r\n", "a\rb\n"]), ["abc", "!", "a\rb"]);
    assert.deepEqual(through(4, ["ab\r", "\ncd\n"]), ["ab", "cd"]);
  });

  it("a last line without LF is bounded too", () => {
    assert.deepEqual(through(4, ["abc"]), ["abc"]);
    assert.deepEqual(through(4, ["abcdef"]), ["!"]);
    assert.deepEqual(through(4, ["abc\n"]), ["abc"]);
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { boundedLines } from "../../src/acp/line-bound.js";

/** The bytes `boundedLines(max)` passes on for `chunks`, as one string. */
async function through(max: number, chunks: string[]): Promise<string> {
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });
  let out = "";
  const reader = input.pipeThrough(boundedLines(max)).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return out;
    out += Buffer.from(value).toString("latin1");
  }
}

describe("acp: the line bound in front of the SDK", () => {
  it("passes a line at the bound whole and cuts one byte past it", async () => {
    assert.equal(await through(4, ["abcd\n", "efgh\n"]), "abcd\nefgh\n");
    assert.equal(await through(4, ["abcde\n", "ok\n"]), "abcd\u0000\nok\n");
  });

  it("drops the rest of a long line across chunks, holding nothing, then goes on", async () => {
    assert.equal(await through(4, ["ab", "cd", "ef", "gh", "\nnext\n"]), "abcd\u0000\nnext\n");
    assert.equal(await through(4, ["abcd", "e", "fff\nx\n"]), "abcd\u0000\nx\n");
    assert.equal(await through(4, ["a\nbcdefg", "\n\n"]), "a\nbcde\u0000\n\n");
  });

  it("a last line without LF is bounded too", async () => {
    assert.equal(await through(4, ["abc"]), "abc");
    assert.equal(await through(4, ["abcdef"]), "abcd\u0000\n");
  });
});

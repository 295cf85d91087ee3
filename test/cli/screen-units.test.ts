import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MarkdownStream } from "../../src/cli/turn/markdown-stream.js";
import { ShellFold } from "../../src/cli/turn/shell-fold.js";
import { count, usageLine } from "../../src/cli/turn/usage-line.js";

// The screen's parts and the shell fold, as docs/cli.md ("exec", the screen) gives them.
const CODE_LINES_PER_PART = 12;
const PROSE_LINES_PER_PART = 40;
const HEAD_LINES = 4;
const TAIL_LINES = 3;

/** Streams `text` in pieces of `size` characters; each rendered block shows as [block]. */
function blocks(text: string, size = 3): string[] {
  const written: string[] = [];
  const stream = new MarkdownStream(
    (block) => `[${block}]\n\n`,
    (t) => written.push(t),
  );
  for (let i = 0; i < text.length; i += size) stream.push(text.slice(i, i + size));
  stream.end();
  return written;
}

describe("MarkdownStream: one completed block at a time", () => {
  it("a blank line ends a block; blank lines inside a fence do not; a closing fence does", () => {
    assert.deepEqual(blocks("# T\n\npara one\nstill one\n\n```js\na\n\nb\n```\nafter"), [
      "[# T]\n",
      "\n",
      "[para one\nstill one]\n",
      "\n",
      "[```js\na\n\nb\n```]\n",
      "\n",
      "[after]\n",
    ]);
  });

  it("nothing is written before a block is complete; the end writes the rest", () => {
    const written: string[] = [];
    const stream = new MarkdownStream(
      (b) => `<${b}>`,
      (t) => written.push(t),
    );
    stream.push("Hello wor");
    stream.push("ld\nmore");
    assert.deepEqual(written, []);
    stream.push("\n\n");
    assert.deepEqual(written, ["<Hello world\nmore>\n"]);
    stream.push("tail without newline");
    stream.end();
    assert.deepEqual(written.slice(1), ["\n", "<tail without newline>\n"]);
  });

  it("a fence closes only with its own kind and at least its length", () => {
    assert.deepEqual(blocks("````\n```\nstill code\n~~~\n````\nx", 5), [
      "[````\n```\nstill code\n~~~\n````]\n",
      "\n",
      "[x]\n",
    ]);
  });

  it(`a long code block comes in re-fenced parts of ${CODE_LINES_PER_PART} lines, no blank line between`, () => {
    const code = Array.from({ length: CODE_LINES_PER_PART * 2 }, (_, i) => `l${i}`);
    const out = blocks(`\`\`\`py\n${code.join("\n")}\n\`\`\`\n`, 7);
    assert.equal(out.length, 3, JSON.stringify(out));
    assert.equal(
      out[0],
      `[\`\`\`py\n${code.slice(0, CODE_LINES_PER_PART - 1).join("\n")}\n\`\`\`]\n`,
    );
    assert.ok(out[1]?.startsWith("[```py\n"), out[1]);
    assert.ok(
      out.every((part) => part !== "\n"),
      "no blank line inside one code block",
    );
    assert.ok(out.join("").includes(`l${CODE_LINES_PER_PART * 2 - 1}`));
  });

  it(`prose without a blank line is written every ${PROSE_LINES_PER_PART} lines`, () => {
    const lines = Array.from({ length: PROSE_LINES_PER_PART + 1 }, (_, i) => `p${i}`);
    const out = blocks(lines.join("\n"), 50);
    assert.equal(out.filter((o) => o !== "\n").length, 2);
  });

  it("CRLF line ends read as LF; empty and blank-only messages write nothing", () => {
    assert.deepEqual(blocks("a\r\n\r\nb"), ["[a]\n", "\n", "[b]\n"]);
    assert.deepEqual(blocks(""), []);
    assert.deepEqual(blocks("\n\n  \n"), []);
  });
});

describe("ShellFold: the first lines live, a count, the last lines", () => {
  const fold = (text: string, piece = 5) => {
    const f = new ShellFold();
    let live = "";
    for (let i = 0; i < text.length; i += piece) live += f.feed(text.slice(i, i + piece));
    return { live, ...f.finish() };
  };
  const numbered = (n: number) => Array.from({ length: n }, (_, i) => `${i + 1}\n`).join("");

  it("at the edge: head plus tail lines fold nothing; one more folds one", () => {
    const edge = fold(numbered(HEAD_LINES + TAIL_LINES));
    assert.equal(edge.live, numbered(HEAD_LINES));
    assert.equal(edge.folded, null);
    assert.deepEqual(edge.tail, ["5", "6", "7"]);
    const over = fold(numbered(HEAD_LINES + TAIL_LINES + 1));
    assert.equal(over.folded, "… 1 more line");
    assert.deepEqual(over.tail, ["6", "7", "8"]);
    assert.equal(fold(numbered(100)).folded, `… ${100 - HEAD_LINES - TAIL_LINES} more lines`);
  });

  it("short output is all live; a last line without a newline is kept; long lines are cut", () => {
    assert.deepEqual(fold("a\nb\n"), { live: "a\nb\n", folded: null, tail: [] });
    const partial = fold(`${numbered(HEAD_LINES)}x\ny`);
    assert.deepEqual(partial.tail, ["x", "y"]);
    const long = fold(`${numbered(HEAD_LINES)}${"z".repeat(5000)}\n`, 700);
    assert.equal(long.tail[0]?.length, 400);
  });
});

describe("the usage line", () => {
  const result = (input: number, output: number, cached = 0) => ({
    turn_id: "t-1",
    session_id: "s",
    status: "completed" as const,
    stop_reason: "end_turn" as const,
    error: null,
    steps: 2,
    usage: {
      input_tokens: input,
      output_tokens: output,
      cached_input_tokens: cached,
      reasoning_tokens: 0,
    },
  });
  const usage = (input: number, output: number, window: number | null) => ({
    type: "usage" as const,
    input_tokens: input,
    output_tokens: output,
    cached_input_tokens: 0,
    reasoning_tokens: 0,
    context_window: window,
  });

  it("totals, cached input, and the last call's fill of the window", () => {
    assert.equal(
      usageLine(result(120_500, 999, 2000), usage(60_000, 4_000, 128_000)),
      "2 steps · 121k in (2k cached) / 999 out tokens · context 50% of 128k",
    );
    assert.equal(usageLine(result(5, 5), usage(5, 5, null)), "2 steps · 5 in / 5 out tokens");
    assert.equal(usageLine(result(5, 5), null), "2 steps · 5 in / 5 out tokens");
    assert.match(usageLine(result(1, 1), usage(300_000, 0, 200_000)), /context 100% of 200k$/);
    assert.deepEqual(
      [count(999), count(1000), count(1250), count(15_400), count(2_500_000)],
      ["999", "1k", "1.3k", "15k", "2.5M"],
    );
  });
});

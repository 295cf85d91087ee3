import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { LineSplitter } from "../../src/conformance/line-splitter.js";
import { type Sandbox, sandbox, TestChild } from "../helpers/child.js";

/**
 * The harness cuts a child's stdout into lines searching each chunk once (line-splitter.ts).
 * It searched its whole buffer again at every chunk before: quadratic in a line's length, so a
 * one-line answer of hundreds of MB (Codex's thread/resume of a big rollout) never finished.
 * What is counted here is the text String.prototype.indexOf is asked to search, while installed:
 * the search itself still runs.
 */
class SearchedChars {
  chars = 0;
  private readonly original = String.prototype.indexOf;

  install(): void {
    const original = this.original;
    const self = this;
    String.prototype.indexOf = function (this: string, search: string, from?: number) {
      self.chars += this.length - Math.max(0, Math.min(from ?? 0, this.length));
      return original.call(this, search, from);
    };
  }

  uninstall(): void {
    String.prototype.indexOf = this.original;
  }
}

function split(chunks: string[]): string[] {
  const splitter = new LineSplitter();
  return chunks.flatMap((chunk) => splitter.push(chunk));
}

describe("the harness's line splitter", () => {
  const text = '{"a":1}\n\n{"b":"two\\nlines"}\nplain\n{"c":3}\n';
  const lines = text.split("\n").slice(0, -1);

  it("gives each line once, whole, wherever the chunks are cut (one cut, then two)", () => {
    for (let at = 0; at <= text.length; at += 1)
      assert.deepEqual(split([text.slice(0, at), text.slice(at)]), lines, `cut at ${at}`);
    for (let a = 0; a <= text.length; a += 1)
      for (let b = a; b <= text.length; b += 1)
        assert.deepEqual(
          split([text.slice(0, a), text.slice(a, b), text.slice(b)]),
          lines,
          `cuts at ${a} and ${b}`,
        );
  });

  it("holds a line without its LF back until the LF comes", () => {
    const splitter = new LineSplitter();
    assert.deepEqual(splitter.push("no end yet"), []);
    assert.deepEqual(splitter.push(" still"), []);
    assert.deepEqual(splitter.push("\nnext"), ["no end yet still"]);
    assert.deepEqual(splitter.push("\n"), ["next"]);
  });

  it("searches a long line's chunks once each: linear in the line, not quadratic", () => {
    const piece = "x".repeat(4096);
    const chunks = Array.from({ length: 1024 }, () => piece);
    chunks.push('"\n');
    const searched = new SearchedChars();
    searched.install();
    let got: string[];
    try {
      got = split(chunks);
    } finally {
      searched.uninstall();
    }
    assert.equal(got.length, 1);
    assert.equal(got[0]?.length, 4096 * 1024 + 1);
    assert.ok(got[0]?.endsWith('x"'));
    // Every chunk searched once: 4 MiB. The whole buffer at each chunk: 2 GiB.
    assert.ok(searched.chars <= 4096 * 1024 + 16, `searched ${searched.chars} characters`);
  });
});

describe("TestChild reading a long line in many chunks", () => {
  let box: Sandbox;
  before(() => {
    box = sandbox("mc-harness-lines-");
  });
  after(() => box.cleanup());

  it("parses an 8 MiB frame written in 4 KiB pieces once and right", async () => {
    // A stand-in child: writes one frame of 8 MiB in 2,048 writes, a frame after it, and exits.
    const script = `
      const piece = "y".repeat(4096);
      let left = 2048;
      process.stdout.write('{"id":"long","result":{"text":"');
      const more = () => {
        if (left === 0) {
          process.stdout.write('"}}\\n{"id":"after","result":{}}\\n');
          return;
        }
        left -= 1;
        process.stdout.write(piece, () => setImmediate(more));
      };
      more();
    `;
    const searched = new SearchedChars();
    const child = new TestChild({
      cwd: box.workspace,
      home: box.home,
      command: [process.execPath, "-e", script],
    });
    const last = child.waitFor((f) => f.id === "after", 60_000);
    searched.install();
    try {
      await last;
      await child.exited;
    } finally {
      searched.uninstall();
    }
    assert.equal(child.frames.length, 2);
    assert.deepEqual(child.garbage, []);
    const long = child.frames[0] as { id: string; result: { text: string } };
    assert.equal(long.id, "long");
    assert.equal(long.result.text, "y".repeat(8 * 1_048_576));
    assert.equal(child.rawLines[0]?.length, 8 * 1_048_576 + 34);
    // Each chunk of stdout searched once (8 MiB and change), where the old buffer search went
    // over everything so far at every chunk (gigabytes for this line).
    assert.ok(searched.chars < 9 * 1_048_576 + 1_048_576, `searched ${searched.chars} characters`);
  });
});

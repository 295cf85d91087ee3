import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { EVENT_BYTES, EVENT_TEXT_BYTES } from "../../src/agent/event-bounds.js";
import { TurnEvents } from "../../src/agent/turn-events.js";
import type { TurnEventParams } from "../../src/protocol/schemas/turns.js";
import {
  chunkChars,
  clipChars,
  fitChars,
  headBytes,
  headChars,
  headJsonBytes,
  jsonTextBytes,
  splitUtf8,
  tailBytes,
  tailChars,
} from "../../src/protocol/text-cut.js";
import {
  isWellFormed,
  parseJson,
  strictJsonProblem,
  wellFormed,
} from "../../src/protocol/well-formed.js";
import { firstLineCut } from "../../src/sessions/records/facts.js";
import { fuzzSeed } from "./fuzz-driver.js";

/**
 * Properties of every cut a frame or record text goes through (src/protocol/text-cut.ts) and of
 * the lone-surrogate rules (well-formed.ts): a cut never splits a surrogate pair, so a
 * well-formed text stays well-formed, and a strict UTF-8 round trip keeps it. Seeded: fixed under
 * `npm test`, fresh under `npm run fuzz` (MC_FUZZ_SEED replays; MC_FUZZ_CUT_RUNS sets the runs).
 */
const seed = fuzzSeed();
const runs = Number(process.env.MC_FUZZ_CUT_RUNS ?? 2000);
const options = { seed, numRuns: runs, includeErrorInReport: true };

/** Texts where cuts go wrong: pairs, lone halves, control characters, escapes, multibyte. */
const piece = fc.oneof(
  fc.constantFrom(
    "\u{1F389}",
    "\u{10FFFF}",
    "\uD83C",
    "\uDF89",
    "\u0001",
    "\n",
    '"',
    "\\",
    "é",
    "€",
  ),
  fc.string({ maxLength: 4 }),
  fc.string({ unit: "binary", maxLength: 4 }),
);
const anyText = fc.array(piece, { maxLength: 40 }).map((parts) => parts.join(""));
const wellFormedText = anyText.map(wellFormed);
const size = fc.integer({ min: 0, max: 60 });

const codePoints = (text: string) => Array.from(text).length;
const roundTrips = (text: string) => Buffer.from(text, "utf8").toString("utf8") === text;

describe(`text cuts (seed ${seed}, replay: MC_FUZZ_SEED=${seed})`, () => {
  test("wellFormed: no lone surrogate, a strict round trip, the text itself when already so", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const fixed = wellFormed(text);
        assert.ok(isWellFormed(fixed) && roundTrips(fixed));
        assert.equal(fixed.length, text.length);
        assert.equal(isWellFormed(text), roundTrips(text));
        if (isWellFormed(text)) assert.equal(fixed, text);
      }),
      options,
    );
  });

  test("headChars, tailChars, clipChars, fitChars: whole characters, a well-formed text stays so", () => {
    fc.assert(
      fc.property(wellFormedText, size, (text, max) => {
        const head = headChars(text, max);
        const tail = tailChars(text, max);
        assert.ok(text.startsWith(head) && text.endsWith(tail));
        assert.equal(codePoints(head), Math.min(max, codePoints(text)));
        assert.equal(codePoints(tail), Math.min(max, codePoints(text)));
        for (const cut of [head, tail, clipChars(text, max), fitChars(text, Math.max(1, max))])
          assert.ok(isWellFormed(cut) && roundTrips(cut), JSON.stringify(cut));
        assert.ok(codePoints(fitChars(text, Math.max(1, max))) <= Math.max(1, max));
      }),
      options,
    );
  });

  test("a session title from any first message (another tool's too) is well-formed", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const title = firstLineCut(text);
        assert.ok(isWellFormed(title) && codePoints(title) <= 80 && !title.includes("\n"));
      }),
      options,
    );
  });

  test("a cut never splits a pair even in a text with lone halves", () => {
    fc.assert(
      fc.property(anyText, size, (text, max) => {
        const head = headChars(text, max);
        const next = text.charCodeAt(head.length);
        const last = head.charCodeAt(head.length - 1);
        const split = last >= 0xd800 && last <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
        assert.ok(!split, "the head ends inside a pair");
      }),
      options,
    );
  });

  test("chunkChars and splitUtf8: the pieces join to the text, each whole characters in bound", () => {
    fc.assert(
      fc.property(wellFormedText, fc.integer({ min: 4, max: 40 }), (text, max) => {
        const chunks = chunkChars(text, max);
        const pieces = splitUtf8(text, max);
        assert.equal(chunks.join(""), text);
        assert.equal(pieces.join(""), text);
        for (const p of [...chunks, ...pieces]) assert.ok(p !== "" && isWellFormed(p));
        for (const p of pieces) assert.ok(Buffer.byteLength(p) <= max);
        for (const c of chunks) assert.ok(c.length <= max + 1);
      }),
      options,
    );
  });

  test("headBytes and tailBytes: whole UTF-8 characters within the byte bound", () => {
    fc.assert(
      fc.property(wellFormedText, fc.integer({ min: 0, max: 120 }), (text, max) => {
        const bytes = Buffer.from(text, "utf8");
        const head = Buffer.from(headBytes(bytes, max)).toString("utf8");
        const tail = Buffer.from(tailBytes(bytes, max)).toString("utf8");
        assert.ok(text.startsWith(head) && text.endsWith(tail), "whole characters only");
        assert.ok(Buffer.byteLength(head) <= max && Buffer.byteLength(tail) <= max);
        assert.ok(Buffer.byteLength(head) > max - 4 || head === text);
      }),
      options,
    );
  });

  test("headJsonBytes: the longest head within the JSON budget, whole characters", () => {
    fc.assert(
      fc.property(wellFormedText, fc.integer({ min: 0, max: 200 }), (text, max) => {
        const head = headJsonBytes(text, max);
        assert.ok(text.startsWith(head) && isWellFormed(head));
        assert.ok(jsonTextBytes(head) <= max);
        if (head.length < text.length) {
          const oneMore = headChars(text, codePoints(head) + 1);
          assert.ok(jsonTextBytes(oneMore) > max, "not the longest head");
        }
      }),
      options,
    );
  });

  test("parseJson: outside JSON comes back well-formed, keys too; strictJsonProblem agrees", () => {
    const value = fc.dictionary(anyText, fc.oneof(anyText, fc.array(anyText, { maxLength: 3 })), {
      maxKeys: 4,
    });
    fc.assert(
      fc.property(value, (v) => {
        const text = JSON.stringify(v);
        const strings = [...Object.keys(v), ...Object.values(v).flat()];
        assert.equal(strictJsonProblem(text) === null, strings.every(isWellFormed));
        const parsed = parseJson(text);
        assert.equal(strictJsonProblem(JSON.stringify(parsed)), null);
        if (strings.every(isWellFormed)) assert.deepEqual(parsed, JSON.parse(text));
      }),
      options,
    );
  });

  test("every non-delta event's whole frame fits event_bytes, well-formed, whatever its texts", async () => {
    const big = fc
      .tuple(wellFormedText, fc.integer({ min: 0, max: 3000 }))
      .map(([text, times]) => text.repeat(Math.min(times, Math.ceil(40_000 / (text.length || 1)))));
    await fc.assert(
      fc.asyncProperty(big, big, big, big, async (title, command, diff, path) => {
        const frames: string[] = [];
        const notify = async (params: TurnEventParams) => {
          frames.push(JSON.stringify({ method: "turn.event", params }));
        };
        const events = new TurnEvents(notify, "r".repeat(64), "t".repeat(64));
        const item_id = "i".repeat(64);
        await events.approvalRequested({
          type: "approval_requested",
          approval_id: "a".repeat(64),
          item_id,
          kind: "command",
          title,
          command,
          path,
          diff,
          truncated: false,
          rule: null,
        });
        await events.toolDone({
          type: "tool_done",
          item_id,
          status: "completed",
          summary: command,
          exit_code: 0,
          diff,
        });
        await events.toolCall({
          type: "tool_call",
          item_id,
          tool: "shell",
          title,
          input: { command },
        });
        await events.output(item_id, "stdout", command);
        for (const frame of frames) {
          assert.ok(
            Buffer.byteLength(frame) <= EVENT_BYTES,
            `a frame of ${Buffer.byteLength(frame)}`,
          );
          assert.equal(strictJsonProblem(frame), null);
        }
      }),
      { ...options, numRuns: Math.max(1, Math.floor(runs / 20)) },
    );
    assert.ok(EVENT_TEXT_BYTES * 6 < EVENT_BYTES);
  });
});

import fc from "fast-check";
import { answerEvents } from "../../src/conformance/chat-server.js";
import { anthropicEvents } from "../fixtures/anthropic-server.js";
import { responsesEvents } from "../fixtures/responses-server.js";
import type { SseEvent } from "../fixtures/scripted-sse.js";

/**
 * Generators of provider streams for the stream fuzzer: a real stream of one of the three wire
 * formats (Chat Completions chunks, Responses events, Anthropic Messages events, as the
 * fixtures' servers send them) carrying text with multibyte characters and maybe a tool call,
 * then mutated. A mutation is either benign (every reader must give the same reply: chunks cut
 * at any byte, inside multibyte characters, one byte each; CR, LF or CRLF line ends; comments
 * and unknown events) or hostile (garbage events, duplicated, reordered or dropped events,
 * truncation anywhere, a reset at the end), where only the turn invariants must hold.
 */

export type Format = "chat" | "responses" | "anthropic";
export const FORMATS: readonly Format[] = ["chat", "responses", "anthropic"];
export type Eol = "\n" | "\r\n" | "\r";

/** One SSE event as its field lines (`event: x`, `data: {...}`, `: comment`), without line ends. */
type EventLines = string[];

export interface StreamCase {
  format: Format;
  /** The reply's text, as the model streamed it in pieces. */
  text: string;
  /** A read_file call after the text (the engine then calls the model again). */
  withCall: boolean;
  eol: Eol;
  /** Event-level mutations, applied in order. */
  edits: EventEdit[];
  /** The byte at which the stream stops (null: the whole stream). */
  truncateAt: number | null;
  ending: "end" | "reset";
  chunking: Chunking;
}

export type EventEdit =
  | { kind: "comment"; at: number }
  | { kind: "unknown"; at: number }
  | { kind: "garbage"; at: number; line: string }
  | { kind: "duplicate"; at: number }
  | { kind: "swap"; at: number }
  | { kind: "drop"; at: number };

export type Chunking =
  | { kind: "whole" }
  | { kind: "every-byte" }
  /** Cut points as fractions of the stream, plus cuts inside multibyte characters. */
  | { kind: "cuts"; at: number[]; insideChars: boolean };

const BENIGN_EDITS = new Set(["comment", "unknown"]);

/** A benign case must give exactly the unmutated reply. */
export function isBenign(c: StreamCase): boolean {
  return (
    c.truncateAt === null && c.ending === "end" && c.edits.every((e) => BENIGN_EDITS.has(e.kind))
  );
}

const piece = fc.constantFrom(
  "a",
  "Hello ",
  "é",
  "ß",
  "日本語",
  "🎉",
  "👩‍💻",
  "e\u0301",
  "\n",
  '"',
  "\\",
  "\t",
  "€",
  "𝄞",
  " ",
  "z",
);
const shortText = fc.array(piece, { minLength: 1, maxLength: 24 }).map((p) => p.join(""));
/**
 * Now and then a text past one delta's budget (event_bytes / 6), to be split at code points,
 * and one over a `session.history` page (32,768 bytes): its `assistant_message` record comes as
 * a stub, read back whole through `session.record` (history-records.ts).
 */
const longPiece = fc.constantFrom(
  "🎉".repeat(3000),
  "é".repeat(7000),
  "\u0001".repeat(3000),
  "x".repeat(40_000),
);
const text = fc.oneof(
  { weight: 9, arbitrary: shortText },
  { weight: 1, arbitrary: fc.tuple(shortText, longPiece).map(([a, b]) => a + b) },
);

const edit: fc.Arbitrary<EventEdit> = fc.oneof(
  fc.record({ kind: fc.constant("comment" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("unknown" as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant("garbage" as const),
    at: fc.nat(),
    line: fc.constantFrom(
      "data: {not json",
      "data: [1,2",
      "data: null",
      'data: {"type":42}',
      "data: \u00ff\u00fe",
      "event: error",
      "retry: x",
      "id: \u0000",
      "nonsense without a colon",
    ),
  }),
  fc.record({ kind: fc.constant("duplicate" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("swap" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("drop" as const), at: fc.nat() }),
);

const chunking: fc.Arbitrary<Chunking> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: "whole" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "every-byte" as const }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("cuts" as const),
      at: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 }),
      insideChars: fc.boolean(),
    }),
  },
);

export const streamCase: fc.Arbitrary<StreamCase> = fc
  .record({
    format: fc.constantFrom(...FORMATS),
    text,
    withCall: fc.boolean(),
    eol: fc.constantFrom<Eol>("\n", "\r\n", "\r"),
    benign: fc.boolean(),
    edits: fc.array(edit, { maxLength: 4 }),
    benignEdits: fc.array(
      fc.oneof(
        fc.record({ kind: fc.constant("comment" as const), at: fc.nat() }),
        fc.record({ kind: fc.constant("unknown" as const), at: fc.nat() }),
      ),
      { maxLength: 3 },
    ),
    truncate: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
    reset: fc.boolean(),
    chunking,
  })
  .map((r) => {
    const base = {
      format: r.format,
      text: r.text,
      withCall: r.withCall,
      eol: r.eol,
      chunking: r.chunking,
    };
    if (r.benign)
      return { ...base, edits: r.benignEdits, truncateAt: null, ending: "end" as const };
    const bytes = streamBytes({ ...base, edits: r.edits, truncateAt: null, ending: "end" });
    const truncateAt = r.truncate === null ? null : Math.floor(r.truncate * bytes.length);
    return {
      ...base,
      edits: r.edits,
      truncateAt,
      ending: r.reset ? ("reset" as const) : ("end" as const),
    };
  });

/** The unmutated events of the case's format. */
function baseEvents(c: Pick<StreamCase, "format" | "text" | "withCall">): EventLines[] {
  // Pieces cut at code points (a real API never sends half a surrogate pair), at most ~40.
  const pieces = splitCodePoints(c.text, Math.max(3, Math.ceil(Array.from(c.text).length / 40)));
  const args = JSON.stringify({ path: "missing-é.txt" });
  if (c.format === "chat") {
    const lines = answerEvents({
      text: pieces,
      ...(c.withCall ? { calls: [{ name: "read_file", input: args, id: "call_fz1" }] } : {}),
    });
    return lines.map((l) => [l.trimEnd()]);
  }
  const events: SseEvent[] =
    c.format === "responses"
      ? responsesEvents({
          text: pieces,
          ...(c.withCall
            ? { calls: [{ call_id: "call_fz1", name: "read_file", arguments: args }] }
            : {}),
        })
      : anthropicEvents({
          text: pieces,
          ...(c.withCall
            ? { tools: [{ id: "toolu_fz1", name: "read_file", json: splitCodePoints(args, 5) }] }
            : {}),
          ...(c.withCall ? { stop_reason: "tool_use" } : {}),
        });
  return events.map((e) => [
    `event: ${e.event}`,
    `data: ${typeof e.data === "string" ? e.data : JSON.stringify(e.data)}`,
  ]);
}

function unknownEvent(format: Format): EventLines {
  if (format === "chat")
    return ['data: {"id":"x","object":"chat.completion.glimmer","choices":[]}'];
  const type = format === "responses" ? "response.glimmer.delta" : "content_block_glimmer";
  return [`event: ${type}`, `data: ${JSON.stringify({ type, hint: "a future event ✨" })}`];
}

function applyEdit(events: EventLines[], e: EventEdit, format: Format): EventLines[] {
  const out = [...events];
  const at = out.length === 0 ? 0 : e.at % (out.length + 1);
  const i = Math.min(at, Math.max(0, out.length - 1));
  switch (e.kind) {
    case "comment":
      out.splice(at, 0, [": keep-alive ping"]);
      break;
    case "unknown":
      out.splice(at, 0, unknownEvent(format));
      break;
    case "garbage":
      out.splice(at, 0, [e.line]);
      break;
    case "duplicate":
      if (out[i]) out.splice(i, 0, out[i] as EventLines);
      break;
    case "swap":
      if (i + 1 < out.length)
        [out[i], out[i + 1]] = [out[i + 1] as EventLines, out[i] as EventLines];
      break;
    case "drop":
      out.splice(i, 1);
      break;
  }
  return out;
}

/** The whole mutated stream's bytes (before truncation). */
export function streamBytes(c: StreamCase): Buffer {
  let events = baseEvents(c);
  for (const e of c.edits) events = applyEdit(events, e, c.format);
  const text = events.map((lines) => lines.join(c.eol) + c.eol + c.eol).join("");
  const bytes = Buffer.from(text, "utf8");
  return c.truncateAt === null ? bytes : bytes.subarray(0, c.truncateAt);
}

/** The stream as the chunks the server writes, one write each. */
export function streamChunks(c: StreamCase): Buffer[] {
  const bytes = streamBytes(c);
  const ch = c.chunking;
  if (ch.kind === "whole" || bytes.length === 0) return [bytes];
  if (ch.kind === "every-byte") return Array.from(bytes, (b) => Buffer.from([b]));
  const cuts = new Set(ch.at.map((f) => Math.floor(f * bytes.length)));
  if (ch.insideChars) {
    // Every continuation byte of a multibyte character is a cut inside it; take a few.
    const inside: number[] = [];
    bytes.forEach((b, i) => {
      if ((b & 0xc0) === 0x80) inside.push(i);
    });
    for (let k = 0; k < inside.length; k += Math.max(1, Math.floor(inside.length / 8)))
      cuts.add(inside[k] as number);
  }
  const points = [...cuts].filter((p) => p > 0 && p < bytes.length).sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const p of points) {
    chunks.push(bytes.subarray(from, p));
    from = p;
  }
  chunks.push(bytes.subarray(from));
  return chunks;
}

/** The text's code points in groups of up to `size` (never a surrogate pair split). */
function splitCodePoints(text: string, size = 3): string[] {
  const points = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(""));
  return out;
}

/** A short readable description for a failure report. */
export function describeCase(c: StreamCase): string {
  const chunks = streamChunks(c);
  return `${JSON.stringify({ ...c, text: c.text })}\n${chunks.length} chunks; stream: ${JSON.stringify(
    streamBytes(c).toString("utf8").slice(0, 1500),
  )}`;
}

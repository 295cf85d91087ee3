import fc from "fast-check";

/**
 * History records as bytes, for the scanner's differential fuzz (record-scan.fuzz.test.ts):
 * records a reader could meet, spelled the many ways JSON allows (escapes, whitespace, number
 * forms, duplicate keys, deep nesting, unicode), and the same records damaged (bytes flipped,
 * cut, spliced), so that both verdicts and facts are compared on valid and on invalid input.
 */
const TS = "2026-01-01T00:00:00.000Z";

/** Strings where decoding goes wrong: escapes, pairs, lone halves, controls, multibyte. */
const tricky = fc.oneof(
  fc.constantFrom(
    "",
    "x",
    "a\nb",
    "\r\nline",
    "line\r",
    "\u2028",
    '"',
    "\\",
    "/",
    "\u0000",
    "\u001f",
    "\u007f",
    "é",
    "€",
    "\u{1F389}",
    "\uD83C",
    "\uDF89",
    "\uFEFF",
    "title",
    "user_message",
  ),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 8 }),
  fc.string({ unit: "grapheme", maxLength: 8 }),
);
const text = fc.array(tricky, { maxLength: 6 }).map((parts) => parts.join(""));
/**
 * Texts long enough for the scanner's four-bytes-at-a-time path, specials anywhere in them; some
 * past its long-run threshold (1,056 plain bytes: records/json-syntax.ts `skipLongRun`).
 */
const runLength = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 300 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 2200 }) },
);
const longText = fc
  .tuple(runLength, text, runLength)
  .map(([before, middle, after]) => `${"x".repeat(before)}${middle}${"y".repeat(after)}`);
const anyText = fc.oneof(text, longText);

/** JSON text of a string: JSON.stringify's, or with some characters written as \u escapes. */
function spellString(value: string, escapeEvery: number): string {
  const plain = JSON.stringify(value);
  if (escapeEvery === 0) return plain;
  let out = '"';
  for (let i = 0; i < value.length; i += 1) {
    const unit = value.charCodeAt(i);
    const asEscape = i % escapeEvery === 0;
    const hex = unit.toString(16).padStart(4, "0");
    // Both cases of hex digits, as JSON allows.
    out += asEscape
      ? `\\u${i % 2 ? hex.toUpperCase() : hex}`
      : JSON.stringify(value[i]).slice(1, -1);
  }
  return `${out}"`;
}

const numberText = fc.oneof(
  fc.constantFrom(
    "0",
    "-0",
    "1e400",
    "-1e-400",
    "0.0e-0",
    "1E+2",
    "123456789012345678901234567890",
    "0.1",
    "-12.5e3",
  ),
  fc.double().map((n) => JSON.stringify(n)),
  fc.integer().map(String),
);

/** Any JSON value's text, with the spellings above (deep nesting comes separately). */
const valueText: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    numberText,
    fc.constantFrom("true", "false", "null"),
    fc.tuple(anyText, fc.nat(4)).map(([s, every]) => spellString(s, every)),
    fc.array(tie("value"), { maxLength: 4 }).map((items) => `[${items.join(",")}]`),
    fc
      .array(fc.tuple(fc.constantFrom("a", "type", "ts", "cwd", "k", "__proto__"), tie("value")), {
        maxLength: 4,
      })
      .map((members) => `{${members.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`),
  ),
})).value;

const space = fc.constantFrom("", "", "", " ", "\t", "\r", "\n", " \r\t ");

/** A member: a key (wanted or not, escaped or not) and its value. */
const wantedKey = fc.constantFrom("type", "ts", "cwd", "title", "text");
const keyText = fc.oneof(
  wantedKey.map((k) => JSON.stringify(k)),
  wantedKey.map((k) => spellString(k, 3)),
  fc.constantFrom('"t\\u0079pe"', '"\\u0074s"', '"cw\\u0064"', '"__proto__"', '"Type"', '"ts "'),
  fc.string({ maxLength: 6 }).map((k) => JSON.stringify(k)),
);
const memberValue = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(anyText, fc.nat(5)).map(([s, e]) => spellString(s, e)) },
  { weight: 1, arbitrary: fc.constantFrom('"title"', '"user_message"', `"${TS}"`) },
  { weight: 2, arbitrary: valueText },
);
const member = fc
  .tuple(space, keyText, space, space, memberValue, space)
  .map(([a, k, b, c, v, d]) => `${a}${k}${b}:${c}${v}${d}`);

/** A record as a reader meets it: type and ts first or anywhere, extra members, duplicates. */
export const recordText: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom("title", "user_message", "mode", "assistant_message", ""),
    fc.oneof(fc.constant(TS), text, fc.constant("t".repeat(64)), fc.constant("t".repeat(65))),
    fc.option(fc.oneof(fc.constant("/work/space"), text), { nil: undefined }),
    anyText,
    fc.array(member, { maxLength: 6 }),
    fc.nat(),
    space,
    space,
  )
  .map(([type, ts, cwd, body, extra, order, lead, trail]) => {
    const head: Record<string, string> = { type, ts };
    if (cwd !== undefined) head.cwd = cwd;
    if (type === "title") head.title = body;
    else head.text = body;
    const members = Object.entries(head).map(
      ([k, v]) => `${JSON.stringify(k)}:${spellString(v, order % 4)}`,
    );
    // Extra members (duplicates among them: JSON.parse keeps the last) go before or after.
    const all = order % 2 === 0 ? [...members, ...extra] : [...extra, ...members];
    return `${lead}{${all.join(",")}}${trail}`;
  });

/** Nesting deep enough that any recursion would show (the scanner's stack grows). */
export const deepRecord = fc
  .tuple(fc.integer({ min: 1, max: 3000 }), fc.boolean(), fc.boolean())
  .map(([depth, objects, balanced]) => {
    const open = objects ? '{"a":'.repeat(depth) : "[".repeat(depth);
    const close = (objects ? "}" : "]").repeat(balanced ? depth : depth - 1);
    return `{"type":"deep","ts":"${TS}","v":${open}1${close}}`;
  });

/** One damage to a record's bytes. */
export type Damage =
  | { kind: "flip"; at: number; byte: number }
  | { kind: "cut"; at: number }
  | { kind: "drop"; at: number; length: number }
  | { kind: "splice"; at: number; insert: string }
  | { kind: "bom" }
  | { kind: "surrogate"; at: number };

/** Bytes a flip writes: the grammar's own, controls, and invalid UTF-8. */
const flipByte = fc.oneof(
  fc.constantFrom(0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x2c, 0x3a, 0x20, 0x00, 0x1f, 0x0d),
  fc.constantFrom(0x80, 0xbf, 0xc0, 0xc3, 0xe2, 0xed, 0xf0, 0xf4, 0xf8, 0xff),
  fc.integer({ min: 0, max: 255 }),
);

export const damage: fc.Arbitrary<Damage> = fc.oneof(
  fc.record({ kind: fc.constant("flip" as const), at: fc.nat(), byte: flipByte }),
  fc.record({ kind: fc.constant("cut" as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant("drop" as const),
    at: fc.nat(),
    length: fc.integer({ min: 1, max: 4 }),
  }),
  fc.record({
    kind: fc.constant("splice" as const),
    at: fc.nat(),
    insert: fc.oneof(
      fc.constantFrom(
        ',"ts":1',
        ',"type":null',
        ',"cwd":null',
        ',"cwd":"/x"',
        "\\u12",
        "\\x",
        ",",
        "}",
        "]",
        "01",
        "1.",
        "-",
        "tru",
        "nul",
      ),
      member.map((m) => `,${m}`),
    ),
  }),
  fc.constant({ kind: "bom" as const }),
  fc.record({ kind: fc.constant("surrogate" as const), at: fc.nat() }),
);

/** The record's bytes with the damages applied in turn. */
export function damaged(text: string, damages: Damage[]): Buffer {
  let bytes = Buffer.from(text, "utf8");
  for (const d of damages) {
    const at = bytes.length === 0 ? 0 : ("at" in d ? d.at : 0) % (bytes.length + 1);
    if (d.kind === "flip" && bytes.length > 0) {
      bytes = Buffer.from(bytes);
      bytes[at % bytes.length] = d.byte;
    } else if (d.kind === "cut") bytes = bytes.subarray(0, at);
    else if (d.kind === "drop")
      bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + d.length)]);
    else if (d.kind === "splice")
      bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(d.insert), bytes.subarray(at)]);
    else if (d.kind === "bom") bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
    // A surrogate encoded as UTF-8 (ED A0 80): invalid UTF-8 that a lenient decoder replaces.
    else if (d.kind === "surrogate")
      bytes = Buffer.concat([
        bytes.subarray(0, at),
        Buffer.from([0xed, 0xa0, 0x80]),
        bytes.subarray(at),
      ]);
  }
  return bytes;
}

/**
 * The record inside a larger buffer, at an offset of any alignment, with bytes after it that
 * would end a string or the record (a reader's buffer holds the next record's bytes there).
 */
export const placement = fc.record({
  before: fc.integer({ min: 0, max: 7 }),
  after: fc.constantFrom("", '"', '"}', "\\", "}\n{", "xxxx"),
});

/**
 * Well-formed text: no lone surrogate. JavaScript strings may hold half of a surrogate pair;
 * JSON.stringify then writes it as an escape (`"\ud83c"`) that strict decoders (serde_json,
 * Swift's JSONDecoder) refuse, so no frame or record may carry one.
 *
 * Text decoded from bytes (stdin, files, HTTP bodies) never has one: the decoder turns invalid
 * UTF-8 into U+FFFD. Only a JSON escape brings one in, so every JSON that enters from outside
 * (a client's frame, a provider's stream, a model's tool arguments) is read with `parseJson`,
 * which replaces each lone surrogate by U+FFFD, as a lenient UTF-8 decoder does with half a
 * character. And every cut of a text (`text-cut.ts`) falls between code points, so no cut makes
 * one.
 */

// Without the `u` flag a regex sees UTF-16 units, so it can see a surrogate on its own.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, "g");
const ANY_SURROGATE = /[\uD800-\uDFFF]/;

const REPLACEMENT_CHARACTER = "\uFFFD";

/** True when `text` has no lone surrogate (every surrogate is half of a pair, in order). */
export function isWellFormed(text: string): boolean {
  return !ANY_SURROGATE.test(text) || !LONE_SURROGATE.test(text);
}

/** `text` with every lone surrogate replaced by U+FFFD (String.prototype.toWellFormed). */
export function wellFormed(text: string): string {
  return isWellFormed(text) ? text : text.replace(LONE_SURROGATES, REPLACEMENT_CHARACTER);
}

/** `\uD800` to `\uDFFF` as a JSON escape: the only way JSON text without one yields one. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * JSON.parse for JSON from outside, whose strings (values and keys) come back well-formed.
 * `text` must itself be well-formed (decoded from bytes): then only an escape can make a lone
 * surrogate, and JSON without a surrogate escape (nearly all) takes the plain parse.
 */
export function parseJson(text: string): unknown {
  if (!SURROGATE_ESCAPE.test(text)) return JSON.parse(text);
  return JSON.parse(text, reviveWellFormed);
}

function reviveWellFormed(_key: string, value: unknown): unknown {
  if (typeof value === "string") return wellFormed(value);
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (keys.every(isWellFormed)) return value;
  // fromEntries defines own properties, so a "__proto__" key stays a key, as JSON.parse made it.
  return Object.fromEntries(
    keys.map((key) => [wellFormed(key), (value as Record<string, unknown>)[key]]),
  );
}

/**
 * Whether `line` (a frame or a record, as written) is JSON that a strict UTF-8 JSON decoder
 * accepts: it parses, and no string in it (key or value) holds a lone surrogate, whether raw
 * (which UTF-8 cannot encode) or escaped. Null when it does, else what is wrong.
 */
export function strictJsonProblem(line: string): string | null {
  if (!isWellFormed(line)) return "a lone surrogate in the text";
  if (!SURROGATE_ESCAPE.test(line)) {
    try {
      JSON.parse(line);
      return null;
    } catch {
      return "not JSON";
    }
  }
  let bad: string | null = null;
  try {
    JSON.parse(line, (key, value) => {
      if (bad === null && !isWellFormed(key)) bad = "a lone surrogate escape in a key";
      if (bad === null && typeof value === "string" && !isWellFormed(value))
        bad = "a lone surrogate escape in a string";
      return value;
    });
  } catch {
    return "not JSON";
  }
  return bad;
}

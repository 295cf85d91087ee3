import { PROVIDER_MESSAGE_CHARS } from "../../protocol/schemas/turns.js";
import { headChars } from "../../protocol/text-cut.js";

/** How much of the text is looked at before redaction (the regexes' work stays bounded). */
const SCANNED_CHARS = 2000;
const REDACTED = "[redacted]";

/**
 * The provider's own words about a failure ("model 'x' not found, try pulling it first"), from
 * an error body or an in-stream error object, made safe to show: control characters and runs of
 * white space become one space; URLs, host addresses, file paths, e-mail addresses and anything
 * that looks like a credential are replaced by "[redacted]"; at most PROVIDER_MESSAGE_CHARS
 * characters. Null when the body says nothing readable (no message field, an HTML page).
 */
export function providerText(body: unknown): string | null {
  const raw = messageOf(body);
  if (raw === null) return null;
  const flat = raw
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are dropped
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return bounded(redact(headChars(flat, SCANNED_CHARS)));
}

/** Null for nothing (or nothing but a redaction), else at most PROVIDER_MESSAGE_CHARS units. */
function bounded(text: string): string | null {
  const safe = text.trim();
  if (safe === "" || safe === REDACTED) return null;
  return safe.length > PROVIDER_MESSAGE_CHARS
    ? `${headUnits(safe, PROVIDER_MESSAGE_CHARS - 1)}…`
    : safe;
}

/** At most `max` UTF-16 units (the schema's measure), never half of a surrogate pair. */
function headUnits(text: string, max: number): string {
  const high = text.charCodeAt(max - 1);
  return text.slice(0, high >= 0xd800 && high <= 0xdbff ? max - 1 : max);
}

/** What the usual error shapes put their sentence in, else a plain-text body. */
function messageOf(body: unknown): string | null {
  const parsed = typeof body === "string" ? parseOrText(body) : body;
  if (typeof parsed === "string") return looksLikeText(parsed) ? parsed : null;
  if (typeof parsed !== "object" || parsed === null) return null;
  const record = parsed as Record<string, unknown>;
  // OpenAI, llama.cpp, Anthropic: {error: {message}}; Ollama: {error: "..."}; vLLM and others:
  // {message}; FastAPI-style servers: {detail: "..."}.
  const error = record.error;
  if (typeof error === "string") return error;
  if (typeof error === "object" && error !== null) {
    const inner = (error as Record<string, unknown>).message;
    if (typeof inner === "string") return inner;
  }
  for (const key of ["message", "detail"])
    if (typeof record[key] === "string") return record[key] as string;
  return null;
}

function parseOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A plain-text body is kept; an HTML page or binary noise is not a message. */
function looksLikeText(text: string): boolean {
  const trimmed = text.trim();
  return trimmed !== "" && !trimmed.startsWith("<") && !trimmed.includes("\ufffd");
}

/** Each rule replaces what it matches; order matters (URLs before hosts before paths). */
const RULES: RegExp[] = [
  // Authorization values and key=value credentials.
  /\b(?:bearer|basic)\s+[^\s,;"']+/gi,
  /\b(?:api[_-]?key|access[_-]?token|refresh[_-]?token|secret|password|passwd|authorization|x-api-key|key)\b\s*[:=]\s*["']?[^\s,;"']+/gi,
  // Well-known key shapes: sk-..., sk-ant-..., ghp_..., xoxb-..., AIza..., JWTs.
  /\b(?:sk|pk|rk|ghp|gho|ghs|ghu|glpat|xox[abprs])[-_][A-Za-z0-9_-]{6,}/g,
  /\bAIza[0-9A-Za-z_-]{20,}/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{4,}(?:\.[A-Za-z0-9_-]+)?/g,
  // URLs of any scheme, then bare addresses (IPv4, [IPv6], localhost, host names with a port).
  /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s"'<>]*/gi,
  /\[[0-9a-f:]{2,}\](?::\d+)?/gi,
  /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g,
  /\blocalhost(?::\d+)?\b/gi,
  // E-mail addresses, then dotted host and file names (api.example.com, config.json).
  /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g,
  /\b(?:[A-Za-z0-9_-]+\.)+[A-Za-z]{2,}(?::\d+)?\b(?:\/[^\s"']*)?/g,
  // Paths: absolute, home-relative, Windows, and relative ones ending in a file name.
  /(?:^|(?<=[\s"'(=:,]))(?:~|\.{1,2})?\/[^\s"',)]+/g,
  /\b[A-Za-z]:\\[^\s"',)]*/g,
  /\b[\w.-]+(?:\/[\w.-]+)*\/[\w-]+\.[A-Za-z0-9]{1,8}\b/g,
  // Anything else long and key-like: 24+ characters of a token alphabet with letters and digits.
  /\b(?=[A-Za-z0-9+/_=-]*\d)(?=[A-Za-z0-9+/_=-]*[A-Za-z])[A-Za-z0-9+/_=-]{24,}/g,
];

function redact(text: string): string {
  let out = text;
  for (const rule of RULES) out = out.replace(rule, REDACTED);
  // Runs of redactions read as one.
  return out.replace(/\[redacted\](?:[\s/:.]*\[redacted\])+/g, REDACTED);
}

/**
 * `text` without any of `secrets`: each occurrence, and a beginning of one (4+ characters) cut
 * off by the bound at the end, becomes "[redacted]". Null when nothing else is left.
 */
export function withoutSecrets(text: string, secrets: string[]): string | null {
  let out = text;
  for (const secret of secrets) {
    out = out.split(secret).join(REDACTED);
    const body = out.endsWith("…") ? out.slice(0, -1) : out;
    for (let n = Math.min(secret.length - 1, body.length); n >= 4; n--)
      if (body.endsWith(secret.slice(0, n))) {
        out = `${body.slice(0, -n)}${REDACTED}${out.endsWith("…") ? "…" : ""}`;
        break;
      }
  }
  return bounded(out.replace(/\[redacted\](?:[\s/:.]*\[redacted\])+/g, REDACTED));
}

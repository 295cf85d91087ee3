import { hash } from "node:crypto";
import { type BigIntStats, closeSync, constants, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { errorCode } from "../../store/safe-read.js";
import type { SummaryState } from "../history/summary.js";

/**
 * One cached verdict file, `<cache root>/sessions-<home digest>/<id>.json` (verdict-root.ts;
 * docs/store.md, "The verdict cache"): the verdict of one full read of a primary
 * history, keyed by that history's full signature. The file is `<SHA-256 of the body, 64 lowercase hex>\n<body: one JSON object>\n`;
 * the digest makes a truncated or corrupted file a miss, whatever the corruption happens to
 * leave parseable. Any doubt (missing, unsafe, oversized, wrong digest, wrong shape, another
 * signature) is a miss: the caller reads the history, as without a cache.
 */

/** Where the in-order read of the history stopped (history/history-scan.ts). */
type VerdictEnd = "eligible" | "invalid" | "over_limit" | "mismatch";

export interface VerdictRecord {
  format: "mc-session-verdict";
  /** Bumped whenever the validation rules change: an older verdict is then a miss. */
  version: 1;
  /** The history's name, `<id>.jsonl`. */
  name: string;
  dev: string;
  ino: string;
  mode: number;
  size: string;
  mtime_ns: string;
  ctime_ns: string;
  end: VerdictEnd;
  /** The distinct nonempty cwds of the valid records read, in first-seen order. */
  cwds: string[];
  /** The row's summary; only for `eligible`. */
  summary: SummaryState | null;
}

/** A verdict file larger than this is never read (a title of 32,768 characters fits). */
export const VERDICT_FILE_BYTES = 192 * 1024;
const DIGEST_CHARS = 64;

function verdictName(id: string): string {
  return `${id}.json`;
}

export function signatureFields(stats: BigIntStats) {
  return {
    dev: stats.dev.toString(),
    ino: stats.ino.toString(),
    mode: Number(stats.mode),
    size: stats.size.toString(),
    mtime_ns: stats.mtimeNs.toString(),
    ctime_ns: stats.ctimeNs.toString(),
  };
}

/** The file's bytes for `record`, or null when it would exceed the bound (not cached then). */
export function encodeVerdict(record: VerdictRecord): Buffer | null {
  const body = JSON.stringify(record);
  const text = `${hash("sha256", body, "hex")}\n${body}\n`;
  const bytes = Buffer.from(text);
  return bytes.length <= VERDICT_FILE_BYTES ? bytes : null;
}

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Reads `folder/<id>.json` into `buffer` (at least VERDICT_FILE_BYTES + 1 bytes) and decodes
 * it; null on any doubt. Synchronous: a lookup is one open, one read of a few hundred bytes and
 * one close, microseconds on a local disk (the same reasoning as the scan's reads).
 */
export function readVerdict(folder: string, id: string, buffer: Buffer): VerdictRecord | null {
  let fd: number;
  try {
    fd = openSync(join(folder, verdictName(id)), READ_FLAGS);
  } catch {
    return null; // missing (the common miss), a symlink (ELOOP), unreadable
  }
  try {
    // No fstat: O_NOFOLLOW refuses a symlink, a folder fails the read (EISDIR), a FIFO opened
    // O_NONBLOCK reads nothing; whatever else a read returns must pass the digest.
    const length = readSync(fd, buffer, 0, VERDICT_FILE_BYTES + 1, 0);
    if (length > VERDICT_FILE_BYTES) return null;
    return decodeVerdict(buffer.subarray(0, length));
  } catch (error) {
    if (errorCode(error) === undefined) throw error;
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The record in a verdict file's bytes, or null when they are not exactly one valid file. */
function decodeVerdict(bytes: Buffer): VerdictRecord | null {
  if (bytes.length < DIGEST_CHARS + 3 || bytes[bytes.length - 1] !== 0x0a) return null;
  if (bytes[DIGEST_CHARS] !== 0x0a) return null;
  const digest = bytes.toString("latin1", 0, DIGEST_CHARS);
  const body = bytes.subarray(DIGEST_CHARS + 1, bytes.length - 1);
  if (hash("sha256", body, "hex") !== digest) return null;
  let value: unknown;
  try {
    value = JSON.parse(body.toString("utf8"));
  } catch {
    return null;
  }
  return isVerdictRecord(value) ? value : null;
}

const RECORD_KEYS = [
  "format",
  "version",
  "name",
  "dev",
  "ino",
  "mode",
  "size",
  "mtime_ns",
  "ctime_ns",
  "end",
  "cwds",
  "summary",
];
const SUMMARY_KEYS = [
  "title",
  "title_oversize",
  "user_line",
  "created_at",
  "updated_at",
  "saw_cwd",
  "records",
];
const ENDS: readonly string[] = ["eligible", "invalid", "over_limit", "mismatch"];
const DECIMAL = /^(0|-?[1-9][0-9]{0,19})$/;

function exactKeys(value: unknown, keys: string[]): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((key) => Object.hasOwn(value, key));
}

function isVerdictRecord(value: unknown): value is VerdictRecord {
  if (!exactKeys(value, RECORD_KEYS)) return false;
  const v = value;
  const decimals = [v.dev, v.ino, v.size, v.mtime_ns, v.ctime_ns];
  if (v.format !== "mc-session-verdict" || v.version !== 1 || typeof v.name !== "string")
    return false;
  if (!decimals.every((d) => typeof d === "string" && DECIMAL.test(d))) return false;
  if (!Number.isSafeInteger(v.mode) || typeof v.end !== "string" || !ENDS.includes(v.end))
    return false;
  if (!Array.isArray(v.cwds) || !v.cwds.every((c) => typeof c === "string" && c !== ""))
    return false;
  return v.end === "eligible" ? isSummary(v.summary) : v.summary === null;
}

function isSummary(value: unknown): value is SummaryState {
  if (!exactKeys(value, SUMMARY_KEYS)) return false;
  const nullableText = (x: unknown) => x === null || typeof x === "string";
  return (
    nullableText(value.title) &&
    nullableText(value.user_line) &&
    nullableText(value.created_at) &&
    nullableText(value.updated_at) &&
    typeof value.title_oversize === "boolean" &&
    typeof value.saw_cwd === "boolean" &&
    Number.isSafeInteger(value.records) &&
    (value.records as number) >= 0
  );
}

/** Whether `record` was made for the history `name` as `stats` shows it now. */
export function sameSignature(record: VerdictRecord, name: string, stats: BigIntStats): boolean {
  const now = signatureFields(stats);
  return (
    record.name === name &&
    record.dev === now.dev &&
    record.ino === now.ino &&
    record.mode === now.mode &&
    record.size === now.size &&
    record.mtime_ns === now.mtime_ns &&
    record.ctime_ns === now.ctime_ns
  );
}

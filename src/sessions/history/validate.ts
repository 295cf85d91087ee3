import type { Hash } from "node:crypto";
import { type BigIntStats, fstatSync, lstatSync } from "node:fs";
import { ProtocolError } from "../../protocol/codes.js";
import { fileSignature, sameFile } from "../../store/inventory.js";
import { primaryName } from "../../store/layout.js";
import { closeQuietly, errorCode, openPrimary } from "../../store/safe-open.js";
import { RECORD_BYTES } from "../records/facts.js";
import { READ_BUFFER_BYTES, RecordReader } from "../records/record-reader.js";
import type { Slicer } from "../slicer.js";
import type { CachedOutcome, VerdictSession } from "../verdicts/verdict-cache.js";
import {
  type CwdRule,
  HistoryScan,
  type RecordSink,
  type ScanStart,
  unboundedBudget,
} from "./history-scan.js";
import { outcomeOf, type ScanOutcome, type SplitReading, splitScan } from "./split-scan.js";
import type { SummaryBuilder } from "./summary.js";

/**
 * Reads one primary history whole, safely opened, and decides it: the base for `session.list`
 * (with a byte ceiling) and for `session.open` / `session.history` (without one). A `sink` is
 * handed each accepted record of the same pass (history-scan.ts).
 */
export type Validation =
  | { kind: "missing" }
  /** Unsafe (not a regular file, a symlink, swapped), unreadable, or not parser-valid. */
  | { kind: "invalid" }
  | { kind: "mismatch" }
  /** A single record over RECORD_BYTES. */
  | { kind: "over_record_limit" }
  /** The history is longer than the caller's ceiling. */
  | { kind: "over_history_limit" }
  | { kind: "eligible"; summary: SummaryBuilder; signature: string };

/** A listing's verdict cache (session.list only: session.open always reads the history). */
interface CachedValidation {
  session: VerdictSession;
  /** Taken before this history's lstat (verdict-cache.ts, the ctime margin). */
  checkedAtNs: bigint;
}

/**
 * A scan that may begin past a prefix read before (admission-memo.ts): `begin` is handed the
 * opened history and says where its scan starts, `end` is told of a scan that read to the end
 * of the file and found the history eligible.
 */
export interface ScanResume {
  begin(fd: number, size: number, cwd: CwdRule, slicer: Slicer): Promise<ScanBegin>;
  end(scan: ScanOutcome): void;
}

export interface ScanBegin {
  /** The file position the scan starts at (0: from the start). */
  start: number;
  /** The summary and cwds of the records before `start` (none at 0). */
  from?: ScanStart;
  /** Updated with every byte the scan reads. */
  digest?: Pick<Hash, "update">;
  /** Handed each accepted record from `start` on. */
  sink?: RecordSink;
  /** A big history read from the start may be read on two threads (split-scan.ts). */
  split?: SplitReading;
}

export interface ValidateOptions {
  /** The caller's byte ceiling (`over_history_limit` past it). */
  maxBytes?: number;
  /** Handed each accepted record (history-scan.ts); a `resume` brings its own. */
  sink?: RecordSink;
  /** The reader's buffer size: READ_BUFFER_BYTES unless given (record-reader.ts says when). */
  readBytes?: number;
  cache?: CachedValidation;
  resume?: ScanResume;
}

export async function validateHistory(
  root: string,
  id: string,
  cwd: CwdRule,
  slicer: Slicer,
  options: ValidateOptions = {},
): Promise<Validation> {
  const { maxBytes = Number.POSITIVE_INFINITY, cache, resume } = options;
  const seen = cache ? lstatOf(root, id) : undefined;
  if (cache && seen?.isFile() && seen.size <= maxBytes) {
    const cached = cache.session.lookup(id, seen, cwd);
    if (cached) return validationOf(cached, seen);
  }
  const opened = openPrimary(root, primaryName(id), seen ?? undefined);
  if (!opened.ok) return { kind: opened.problem === "missing" ? "missing" : "invalid" };
  try {
    if (opened.stats.size > maxBytes) return { kind: "over_history_limit" };
    const begin: ScanBegin = resume
      ? await resume.begin(opened.fd, Number(opened.stats.size), cwd, slicer)
      : { start: 0, ...(options.sink ? { sink: options.sink } : {}) };
    const { split } = begin;
    const size = Number(opened.stats.size);
    const readBytes = options.readBytes ?? READ_BUFFER_BYTES;
    // Only an unbounded, uncached read from the start: what session.open's is.
    if (split && begin.start === 0 && !begin.from && !cache && maxBytes === Infinity) {
      if (size >= split.fromBytes) {
        const outcome = await splitScan(opened.fd, size, cwd, slicer, begin, split, readBytes);
        return decided(outcome, resume, opened.fd);
      }
    }
    const reader = new RecordReader(
      opened.fd,
      RECORD_BYTES,
      begin.start,
      Buffer.allocUnsafe(readBytes),
      undefined,
      begin.digest,
    );
    const scan = new HistoryScan(reader, cwd, begin.sink, begin.from);
    // One byte past the ceiling: reading it proves the file grew beyond the limit.
    const budget = { ...unboundedBudget(), bytes: maxBytes + 1 - begin.start };
    const stop = await scan.advance(budget, slicer);
    const length = begin.start + scan.bytesRead;
    if (stop === "bytes" || length > maxBytes) return { kind: "over_history_limit" };
    // Cached only when the file is still what lstat saw: the verdict is then of those bytes.
    if (cache && seen && sameFile(fstatSync(opened.fd, { bigint: true }), seen))
      cache.session.remember(id, seen, scan, cache.checkedAtNs);
    return decided(outcomeOf(scan, null, begin.start), resume, opened.fd);
  } catch (error) {
    // An I/O error mid-read (EIO, EISDIR on odd filesystems) makes the history unreadable.
    if (error instanceof ProtocolError) throw error;
    if (errorCode(error)?.startsWith("E")) return { kind: "invalid" };
    throw error;
  } finally {
    closeQuietly(opened.fd);
  }
}

/** The validation of what a scan read (the memo told of an eligible one). */
function decided(outcome: ScanOutcome, resume: ScanResume | undefined, fd: number): Validation {
  if (outcome.verdict === "invalid") return { kind: "invalid" };
  if (outcome.verdict === "mismatch") return { kind: "mismatch" };
  if (outcome.verdict === "over_limit") return { kind: "over_record_limit" };
  resume?.end(outcome);
  const signature = fileSignature(fstatSync(fd, { bigint: true }));
  return { kind: "eligible", summary: outcome.summary, signature };
}

/** The lstat a cached lookup needs, or undefined (openPrimary then reports the problem). */
function lstatOf(root: string, id: string): BigIntStats | undefined {
  try {
    return lstatSync(`${root}/${primaryName(id)}`, { bigint: true });
  } catch {
    return undefined;
  }
}

function validationOf(cached: CachedOutcome, stats: BigIntStats): Validation {
  if (cached.kind === "over_limit") return { kind: "over_record_limit" };
  if (cached.kind !== "eligible") return cached;
  return { kind: "eligible", summary: cached.summary, signature: fileSignature(stats) };
}

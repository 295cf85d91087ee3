import type { Hash } from "node:crypto";
import { readSync } from "node:fs";
import type { SessionEvent } from "../../protocol/schemas/sessions.js";
import { RECORD_BYTES } from "../records/facts.js";
import { factsOnThisThread } from "../records/read-facts.js";
import { RecordReader, WHOLE_READ_BUFFER_BYTES } from "../records/record-reader.js";
import { isTornTail } from "../records/torn-tail.js";
import { CwdMatcher } from "./cwd-rule.js";
import { FINGERPRINT_READ_BYTES, FingerprintKey, type FingerprintMaterial } from "./fingerprint.js";
import { acceptRecord } from "./history-scan.js";
import { CwdLog } from "./recorded-cwds.js";
import { SummaryBuilder, type SummaryState } from "./summary.js";
import { turnCostOf } from "./turn-cost.js";

/**
 * The second range of a split open (split-scan.ts), read on a worker thread (split-worker.ts):
 * the history's bytes from `from` (a record's start, just after an LF) to the end of the file,
 * read and checked record by record exactly as a single pass reads them (history-scan.ts): the
 * same `factsOnThisThread` the loop and the record worker use, the same torn-tail rule, the same
 * cwd rule (a CwdMatcher of the same canonical cwd: the rule follows symlinks, so it is applied
 * on this thread), the same record bound. What it hands back is what the main thread needs to
 * finish as a single pass would have: the range's verdict, its summary and cwds, the known
 * costs of its turns in order, the keyed fingerprint of every byte it read, and, for the
 * replay, only byte positions (records cross threads as positions, never as values).
 */
export interface SplitRequest {
  fd: number;
  from: number;
  canonicalCwd: string;
  /** The memo's fingerprint key (fingerprint.ts), when the open keeps a point. */
  fingerprint: FingerprintMaterial | null;
}

/** A record's bytes in the file: [start, start + bytes), its LF not counted. */
export interface RecordAt {
  start: number;
  bytes: number;
}

export type RangeVerdict = "eligible" | "mismatch" | "invalid" | "over_limit";

export interface SplitReply {
  /** False when the byte before `from` is no longer an LF: the file was rewritten meanwhile. */
  aligned: boolean;
  verdict: RangeVerdict;
  summary: SummaryState;
  cwds: string[];
  cwdsOverflow: boolean;
  /** The last record read had no LF (history-scan.ts `openEnd`). */
  openEnd: boolean;
  /** Bytes read from `from` (a torn tail's included: a single pass reads them too). */
  bytesRead: number;
  /** Where the range's accepted records end: before a torn tail, else at `from + bytesRead`. */
  acceptedEnd: number;
  /** The known costs of the range's turns, in file order (turn-cost.ts), zeros left out. */
  costs: number[];
  /** The fingerprint of [from, from + bytesRead), when asked for. */
  fingerprint: Uint8Array | null;
  /**
   * The range's last compaction-typed records, oldest first, each with the user messages (not
   * steers) before it in the range, newest last: the candidates for the replay's restart and
   * its turn's input, which the main thread checks against their schema (replay.ts). The worker
   * loads no schema (zod: its load alone was a third of the worker's start, and checking every
   * user message on the way a sixth of its scan).
   */
  compactions: Compaction[];
}

export interface Compaction {
  at: RecordAt;
  inputs: RecordAt[];
  /** User messages before it were left out of `inputs` (older than those kept). */
  inputsDropped: boolean;
}

/** Compactions kept at most, and user messages kept before each: far more than any real need. */
const KEPT_COMPACTIONS = 32;
const KEPT_INPUTS = 16;

const VALUES = { keepEventBytes: 0, wantUserLine: true, keepValue: true } as const;
const VALUES_NO_USER_LINE = { keepEventBytes: 0, wantUserLine: false, keepValue: true } as const;

/** Reads and checks [from, end of file) of `request.fd`; blocking (a worker thread's whole job). */
export function scanRange(request: SplitRequest): SplitReply {
  const { fd, from } = request;
  const summary = new SummaryBuilder();
  const cwds = new CwdLog();
  const reply: SplitReply = {
    aligned: lfBefore(fd, from),
    verdict: "eligible",
    summary: summary.state(),
    cwds: [],
    cwdsOverflow: false,
    openEnd: false,
    bytesRead: 0,
    acceptedEnd: from,
    costs: [],
    fingerprint: null,
    compactions: [],
  };
  if (!reply.aligned) return reply;
  const fingerprint = request.fingerprint
    ? new FingerprintKey(request.fingerprint).start()
    : undefined;
  const buffer = Buffer.allocUnsafe(WHOLE_READ_BUFFER_BYTES);
  // The reader only calls update(bytes) and ignores what it returns (record-reader.ts).
  const digest = fingerprint as unknown as Pick<Hash, "update"> | undefined;
  const reader = new RecordReader(fd, RECORD_BYTES, from, buffer, undefined, digest);
  const rule = new CwdMatcher(request.canonicalCwd);
  const allowance = { bytes: Number.POSITIVE_INFINITY };
  const inputs: RecordAt[] = [];
  let inputsDropped = false;
  for (;;) {
    const read = reader.next(allowance);
    if (read.kind === "paused") continue;
    if (read.kind === "over_limit") reply.verdict = "over_limit";
    if (read.kind !== "record") break;
    if (!read.terminated) reply.openEnd = true;
    const options = summary.wantsUserLine ? VALUES : VALUES_NO_USER_LINE;
    const facts = factsOnThisThread(read.source, read.from, read.to, options);
    if (isTornTail(read, facts)) break;
    const accepted = acceptRecord(facts, rule, cwds, summary);
    if (typeof accepted === "string") {
      reply.verdict = accepted;
      break;
    }
    const at = { start: read.start, bytes: read.to - read.from };
    reply.acceptedEnd = read.start + at.bytes + (read.terminated ? 1 : 0);
    const event = accepted.value as SessionEvent;
    const cost = turnCostOf(event);
    if (cost) reply.costs.push(cost);
    // The candidates the replay's collector could restart at, or keep as a turn's input.
    if (event.type === "user_message" && event.steer !== true) {
      inputs.push(at);
      if (inputs.length > KEPT_INPUTS) inputsDropped = inputs.shift() !== undefined;
    } else if (event.type === "compaction") {
      reply.compactions.push({ at, inputs: [...inputs], inputsDropped });
      // With none of the kept ones valid, the loop replays every record of the range.
      if (reply.compactions.length > KEPT_COMPACTIONS) reply.compactions.shift();
    }
  }
  reply.summary = summary.state();
  reply.cwds = cwds.values;
  reply.cwdsOverflow = cwds.overflow;
  reply.bytesRead = reader.bytesRead;
  reply.fingerprint = fingerprint?.finish() ?? null;
  return reply;
}

/** A later ask of a kept worker (split-scan.ts, RangeHelper): fingerprint [from, to) again. */
export interface RangeAsk {
  fd: number;
  from: number;
  to: number;
}

/**
 * The fingerprint of [from, to) of `ask.fd` under the key of `material`, every byte read now, as
 * the memo's check of a segment makes it (admission-memo.ts); null when the file ends short of
 * `to` or cannot be read.
 */
export function fingerprintRange(ask: RangeAsk, material: FingerprintMaterial): Uint8Array | null {
  const fingerprint = new FingerprintKey(material).start();
  const buffer = Buffer.allocUnsafe(
    Math.min(FINGERPRINT_READ_BYTES, Math.max(ask.to - ask.from, 1)),
  );
  try {
    for (let at = ask.from; at < ask.to; ) {
      const got = readSync(ask.fd, buffer, 0, Math.min(buffer.length, ask.to - at), at);
      if (got === 0) return null;
      fingerprint.update(buffer.subarray(0, got));
      at += got;
    }
  } catch {
    return null;
  }
  return fingerprint.finish();
}

/** Whether the byte just before `from` is an LF (the boundary split-scan.ts chose). */
function lfBefore(fd: number, from: number): boolean {
  const byte = Buffer.alloc(1);
  return readSync(fd, byte, 0, 1, from - 1) === 1 && byte[0] === 0x0a;
}

import type { Hash } from "node:crypto";
import { readSync } from "node:fs";
import { ProtocolError } from "../../protocol/codes.js";
import type { SessionEvent } from "../../protocol/schemas/sessions.js";
import { RECORD_BYTES } from "../records/facts.js";
import { parsedEvent } from "../records/read-facts.js";
import { RecordReader, WHOLE_READ_BUFFER_BYTES } from "../records/record-reader.js";
import type { Slicer } from "../slicer.js";
import type { FingerprintMaterial } from "./fingerprint.js";
import { type CwdRule, HistoryScan, type RecordSink, unboundedBudget } from "./history-scan.js";
import type { CwdLog } from "./recorded-cwds.js";
import { asReplayRecord, isInput } from "./replay.js";
import type { RangeAsk, RecordAt, SplitReply, SplitRequest } from "./split-range.js";
import type { SummaryBuilder } from "./summary.js";

/**
 * An exact open of a big history on two threads (docs/store.md, "Opening a big history on two
 * threads"): the
 * file is cut at a record boundary; a worker thread reads and checks the second range
 * (split-range.ts) while this thread reads the first exactly as a single pass does (the scan,
 * the replay's sink, the fingerprint), and the two are then joined into what one pass over the
 * whole file would have decided:
 * - the verdict: the first range's refusal if it has one (it comes first in the file), else the
 *   second range's (a torn tail can only be the file's last line, so only there);
 * - the summary and cwds: the first range's, followed by the second's (SummaryBuilder.followedBy);
 * - the replay: a valid compaction in the second range drops everything before it but the
 *   latest turn input, so this thread parses only that input and the records from the second
 *   range's latest valid compaction on (found among the worker's candidates, checked here
 *   against the replay schema, which the worker does not load); with none, every record there;
 * - the turns' costs, added in file order (a float sum depends on its order);
 * - the fingerprint: the memo's point keeps two segments, the first range's (this thread's
 *   digest) and the second's (the worker's, under the same key): every byte fingerprinted once.
 * Every byte is still read and checked by one of the two threads, each record by the same rules.
 * When the worker fails or finds the boundary moved (the file rewritten under the open), this
 * thread reads on past the boundary as a single pass.
 */

/**
 * Histories of at least this many bytes are split. The split takes about 1.2 ms of CPU a MB off
 * this thread (110-130 ms at 94 MB) and costs the worker's start (its thread and 46 KB of modules,
 * 10-15 ms of CPU); the process spends 80-90 ms of CPU more in all at 94 MB, 0-360 at 936 MB (a
 * second heap collected): below some 20 MB the loop gains little.
 */
export const SPLIT_FROM_BYTES = 32 * 1_048_576;
/**
 * The first range's share of the file. This thread's range costs more a byte (the replay's
 * collector, the fingerprint) and it has the replay's records after the join; the worker has its
 * start (10-13 ms of CPU): measured on a 94 MB history of soak-like turns, the two threads' CPU
 * times met near 0.45 (this thread 165-175 ms, the worker 145-160 ms; 0.5: 180-190 and 140-165).
 */
export const SPLIT_SHARE = 0.45;

/** What an open that may split is given (admission-memo.ts). */
export interface SplitReading {
  fromBytes: number;
  share: number;
  canonicalCwd: string;
  /** The memo's fingerprint key, when the open keeps a point. */
  fingerprint: FingerprintMaterial | null;
  /** The replay's collector: handed the second range's records it needs, after the first's. */
  replay: RecordSink | null;
  /** Handed the known cost of each turn of the second range, in order. */
  cost: ((cost: number) => void) | null;
  /**
   * Started (and not awaited) when this thread has read its range and the worker has not yet
   * answered: work of the caller's that the wait would otherwise leave the loop idle for.
   */
  whileWaiting?: (() => void) | undefined;
}

/** What validate.ts decides from, whichever way the history was read. */
export interface ScanOutcome {
  verdict: HistoryScan["verdict"];
  summary: SummaryBuilder;
  cwds: CwdLog;
  openEnd: boolean;
  /** Bytes read from the start. */
  length: number;
  /** The second range's fingerprint, of [from, length); the digest then ends at `from`. */
  tail: { from: number; fingerprint: Buffer } | null;
  /** The worker that read the second range, kept to fingerprint it again (eligible only). */
  helper?: RangeHelper;
}

/**
 * The worker of a split open, kept after it for the first turn's admission (admission-memo.ts):
 * each of its passes reads and fingerprints the whole history again, and asks this thread to
 * do the range it read while the loop does the rest (every byte still read, by one of the two).
 */
export interface RangeHelper {
  /** Its segment of the history: [from, to). */
  readonly from: number;
  readonly to: number;
  /** The fingerprint of [from, to) of `fd` read now, or null (a short read, the thread ended). */
  fingerprint(fd: number): Promise<Uint8Array | null>;
  stop(): void;
  /** Settles once its thread has ended. */
  readonly ended: Promise<void>;
}

/** Asks a kept worker answers before it is ended: the first admission's two passes. */
const HELPER_ASKS = 2;
/** How long a kept worker waits for them before it is ended (the first turn may never come). */
const HELPER_IDLE_MS = 30_000;

export async function splitScan(
  fd: number,
  size: number,
  cwd: CwdRule,
  slicer: Slicer,
  begin: { digest?: Pick<Hash, "update">; sink?: RecordSink },
  split: SplitReading,
  readBytes: number,
): Promise<ScanOutcome> {
  const buffer = Buffer.allocUnsafe(readBytes);
  const reader = new RecordReader(fd, RECORD_BYTES, 0, buffer, undefined, begin.digest);
  const scan = new HistoryScan(reader, cwd, begin.sink);
  const at = boundaryNear(fd, size, Math.floor(size * split.share));
  if (at === null) return single(scan, slicer);
  const worker = startRange({
    fd,
    from: at,
    canonicalCwd: split.canonicalCwd,
    fingerprint: split.fingerprint,
  });
  let kept = false;
  try {
    await scan.advance({ ...unboundedBudget(), bytes: at }, slicer);
    if (scan.verdict !== null) return outcomeOf(scan, null);
    // The file was rewritten under the open: the boundary is no longer one.
    if (reader.midRecord || scan.bytesRead !== at) return single(scan, slicer);
    if (!worker.answered) split.whileWaiting?.();
    const reply = await answered(worker.reply, slicer.signal);
    if (reply === null || !reply.aligned) return single(scan, slicer);
    const outcome = await joined(fd, scan, at, reply, split, slicer);
    if (outcome.verdict === "eligible" && outcome.tail && outcome.length > at) {
      outcome.helper = keptAsHelper(worker, at, outcome.length);
      kept = true;
    }
    return outcome;
  } finally {
    if (!kept) await worker.stop();
  }
}

function keptAsHelper(worker: RangeWorker, from: number, to: number): RangeHelper {
  let asks = 0;
  // The kept thread holds the process open for nothing: its end is this timer's or a caller's.
  worker.unref();
  const timer = setTimeout(() => void worker.stop(), HELPER_IDLE_MS);
  timer.unref();
  const stop = () => {
    clearTimeout(timer);
    void worker.stop();
  };
  return {
    from,
    to,
    fingerprint: (fd) => {
      asks += 1;
      const answer = worker.ask({ fd, from, to });
      if (asks >= HELPER_ASKS) void answer.then(stop);
      return answer;
    },
    stop,
    ended: worker.ended,
  };
}

/** Reads on to the end of the file on this thread. */
async function single(scan: HistoryScan, slicer: Slicer): Promise<ScanOutcome> {
  await scan.advance(unboundedBudget(), slicer);
  return outcomeOf(scan, null);
}

/** What `scan` decided, its reader having begun at `start` (validate.ts resumes past a prefix). */
export function outcomeOf(scan: HistoryScan, tail: ScanOutcome["tail"], start = 0): ScanOutcome {
  const { verdict, summary, cwds, openEnd, bytesRead } = scan;
  return { verdict, summary, cwds, openEnd, length: start + bytesRead, tail };
}

/** The first range (`scan`, up to `at`) and the worker's second joined as one pass. */
async function joined(
  fd: number,
  scan: HistoryScan,
  at: number,
  reply: SplitReply,
  split: SplitReading,
  slicer: Slicer,
): Promise<ScanOutcome> {
  const cwds = scan.cwds.copy();
  for (const value of reply.cwds) cwds.add(value);
  if (reply.cwdsOverflow) cwds.overflow = true;
  const outcome: ScanOutcome = {
    verdict: reply.verdict,
    summary: scan.summary.followedBy(reply.summary),
    cwds,
    openEnd: reply.openEnd,
    length: at + reply.bytesRead,
    tail: reply.fingerprint ? { from: at, fingerprint: Buffer.from(reply.fingerprint) } : null,
  };
  if (reply.verdict !== "eligible") return outcome;
  if (split.cost) for (const cost of reply.costs) split.cost(cost);
  if (split.replay) await replayTail(fd, at, reply, split.replay, slicer);
  return outcome;
}

/**
 * Hands the replay what the second range adds to it (replay.ts): with a valid compaction there,
 * the latest turn input before it (when in the range: else the collector already holds the
 * first range's) and the records from the compaction on; without one, every record.
 */
async function replayTail(
  fd: number,
  at: number,
  reply: SplitReply,
  replay: RecordSink,
  slicer: Slicer,
): Promise<void> {
  const restart = restartOf(fd, reply);
  if (restart?.input) replay(restart.input.event, restart.input.bytes);
  const from = restart?.compaction.start ?? at;
  const buffer = Buffer.allocUnsafe(WHOLE_READ_BUFFER_BYTES);
  // Past `acceptedEnd` lie only a torn tail or bytes appended since: never handed over.
  const reader = new RecordReader(fd, RECORD_BYTES, from, buffer, reply.acceptedEnd);
  const allowance = { bytes: Number.POSITIVE_INFINITY };
  for (;;) {
    const read = reader.next(allowance);
    if (read.kind === "paused") continue;
    if (read.kind !== "record" || read.start >= reply.acceptedEnd) return;
    replay(parsedEvent(read.source, read.from, read.to), read.to - read.from);
    if (slicer.due(read.to - read.from + 64)) await slicer.yieldNow();
  }
}

interface Restart {
  compaction: RecordAt;
  input: { event: SessionEvent; bytes: number } | null;
}

/**
 * The second range's latest compaction that matches its schema, and the latest turn input
 * before it in the range (null: none there), checked here from the worker's candidates, newest
 * first, as the collector checks them; null when the range has none or its candidates were
 * cut short of deciding (then every record of the range is replayed: the same result, slower).
 */
function restartOf(fd: number, reply: SplitReply): Restart | null {
  for (const candidate of reply.compactions.toReversed()) {
    if (asReplayRecord(eventAt(fd, candidate.at)) === null) continue;
    for (const at of candidate.inputs.toReversed()) {
      const event = eventAt(fd, at);
      const record = asReplayRecord(event);
      if (record !== null && isInput(record))
        return { compaction: candidate.at, input: { event, bytes: at.bytes } };
    }
    return candidate.inputsDropped ? null : { compaction: candidate.at, input: null };
  }
  return null;
}

function eventAt(fd: number, at: RecordAt): SessionEvent {
  const bytes = recordAt(fd, at);
  return parsedEvent(bytes, 0, bytes.length);
}

function recordAt(fd: number, at: RecordAt): Buffer {
  const bytes = Buffer.allocUnsafe(at.bytes);
  let done = 0;
  while (done < at.bytes) {
    const got = readSync(fd, bytes, done, at.bytes - done, at.start + done);
    if (got === 0) throw new ProtocolError("session_invalid");
    done += got;
  }
  return bytes;
}

/**
 * The start of the first record at or after `target` (just past the first LF from `target - 1`
 * on), or null when there is none short of the file's end within one record's bound.
 */
function boundaryNear(fd: number, size: number, target: number): number | null {
  if (target < 1 || target >= size) return null;
  const buffer = Buffer.allocUnsafe(65_536);
  let position = target - 1;
  while (position < size && position - target <= RECORD_BYTES) {
    const got = readSync(fd, buffer, 0, buffer.length, position);
    if (got === 0) return null;
    const lf = buffer.subarray(0, got).indexOf(0x0a);
    if (lf !== -1) return position + lf + 1 < size ? position + lf + 1 : null;
    position += got;
  }
  return null;
}

/**
 * The worker's young generation at most: what the loop's may grow to while it reads a history
 * whole (boot/heap-flags.ts, WHOLE_READ_YOUNG_BYTES). The flags that hold the loop's there are the
 * process's, and nothing watches the worker's heap.
 */
const WORKER_YOUNG_MB = 16;

interface RangeWorker {
  /** The worker's answer, or null when it failed or ended without one. */
  reply: Promise<SplitReply | null>;
  /** Whether `reply` has settled. */
  readonly answered: boolean;
  /** A fingerprint of its range again (split-range.ts `fingerprintRange`); null once ended. */
  ask(request: RangeAsk): Promise<Uint8Array | null>;
  unref(): void;
  /** Settles once the thread has ended. */
  ended: Promise<void>;
  /** Ends the thread (when it has not ended already); resolves once it has. */
  stop(): Promise<void>;
}

function startRange(request: SplitRequest): RangeWorker {
  const { Worker } = process.getBuiltinModule("node:worker_threads");
  const thread = new Worker(new URL("./split-worker.js", import.meta.url), {
    workerData: request,
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_MB },
  });
  let answered = false;
  let ended = false;
  /** Unreferenced (kept for the first admission): referenced only while an ask is answered. */
  let weak = false;
  let settle: (value: SplitReply | null) => void = () => {};
  const reply = new Promise<SplitReply | null>((resolve) => {
    settle = (value) => {
      answered = true;
      resolve(value);
    };
  });
  // Its first message is the reply; each later one answers the oldest ask (one at a time).
  const asked: ((fingerprint: Uint8Array | null) => void)[] = [];
  thread.on("message", (message: SplitReply | Uint8Array | null) => {
    if (!answered) settle(message as SplitReply);
    else asked.shift()?.(message as Uint8Array | null);
    if (weak && asked.length === 0) thread.unref();
  });
  thread.once("error", () => settle(null));
  const exited = new Promise<void>((resolve) =>
    thread.once("exit", () => {
      ended = true;
      settle(null);
      for (const done of asked.splice(0)) done(null);
      resolve();
    }),
  );
  return {
    reply,
    get answered() {
      return answered;
    },
    ask: (request) => {
      if (ended) return Promise.resolve(null);
      return new Promise((resolve) => {
        asked.push(resolve);
        thread.ref();
        thread.postMessage(request);
      });
    },
    unref: () => {
      weak = true;
      thread.unref();
    },
    ended: exited,
    stop: () => {
      ended = true;
      return thread.terminate().then(
        () => undefined,
        () => undefined,
      );
    },
  };
}

/** `answer`, or operation_cancelled as soon as `signal` aborts (the worker is then stopped). */
function answered<T>(answer: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new ProtocolError("operation_cancelled"));
  return new Promise<T>((resolve, reject) => {
    const cancel = () => reject(new ProtocolError("operation_cancelled"));
    signal.addEventListener("abort", cancel, { once: true });
    void answer.then((value) => {
      signal.removeEventListener("abort", cancel);
      resolve(value);
    });
  });
}

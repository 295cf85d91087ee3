import type { Hash } from "node:crypto";
import { readSync } from "node:fs";
import type { SessionEvent } from "../../protocol/schemas/sessions.js";
import type { Slicer } from "../slicer.js";
import { FINGERPRINT_READ_BYTES, type Fingerprint, FingerprintKey } from "./fingerprint.js";
import type { CwdRule } from "./history-scan.js";
import { openExact } from "./open.js";
import type { CwdLog } from "./recorded-cwds.js";
import { REPLAY_BYTES, ReplayCollector } from "./replay.js";
import type { Replay } from "./replay-window.js";
import {
  type RangeHelper,
  type ScanOutcome,
  SPLIT_FROM_BYTES,
  SPLIT_SHARE,
  type SplitReading,
} from "./split-scan.js";
import { SummaryBuilder, type SummaryState } from "./summary.js";
import { turnCostOf } from "./turn-cost.js";
import type { ScanBegin, ScanResume } from "./validate.js";

/**
 * What a turn's admission read of its session's history last time, so that the next admission
 * reads the history whole but parses only what was appended since (docs/store.md, "Turn
 * admission"). Every turn revalidates the attached history twice (turn-admission.ts), and every
 * record of it was parsed and checked each time: a cost, and garbage, that grew with the
 * session, paid at the start of every turn.
 *
 * The memo keeps, for one history: keyed fingerprints (fingerprint.ts) of its first `length`
 * bytes, cut in a few segments, and the state a scan of exactly those bytes ended in (the
 * summary, the distinct cwds, the replay collected so far). A later exact open of the same
 * history, through the file it opened, reads those bytes again and fingerprints each segment;
 * only when every segment is the same does its scan begin at `length`, in that state. The
 * verdict of a history is a function of its bytes and of the cwd rule, and the rule (which
 * follows symlinks outside the history) is applied again to the kept cwds, as the listings'
 * verdict cache does: so a resumed scan decides exactly what a full one would. A file replaced,
 * cut, rewritten or grown by another writer is read as it is now: a changed prefix reads from
 * the start, appended records are parsed and checked.
 *
 * Segments, so that each byte is fingerprinted once per pass (a fingerprint cannot be copied and
 * go on, as a SHA-256 state could): a pass that keeps a point adds one segment for the bytes it
 * read past the old point, and at MAX_SEGMENTS it folds the newest segments (or all of them,
 * once those outweigh the first) into the new one, fingerprinting their bytes a second time in
 * that pass only: once in MAX_SEGMENTS - 1 turns, a few bytes per byte of history over its life.
 *
 * Kept only after a replay pass that read to the end of an eligible history ending in an LF,
 * with at most 16 distinct cwds (CwdLog's bound) and a replay of at most MEMO_REPLAY_BYTES:
 * the kept replay's records are what the child holds between turns.
 */
const MEMO_REPLAY_BYTES = 2 * 1_048_576;

/** A point's segments at most: a pass verifies each with a fingerprint of its own. */
export const MAX_SEGMENTS = 16;

/** [previous segment's end, end) of the history, and its fingerprint. */
interface Segment {
  end: number;
  fingerprint: Buffer;
}

interface Point {
  id: string;
  cwd: string;
  maxBytes: number;
  length: number;
  /** Cover [0, length) in order; the last one ends at `length`. */
  segments: Segment[];
  summary: SummaryState;
  cwds: CwdLog;
  replay: ReplayCollector;
  /** The known cost of the turns in [0, length) (turn-cost.ts): the budget's check reads it. */
  cost: number;
}

/** When an open from the start reads on two threads (split-scan.ts): tests move both. */
export interface SplitPlan {
  fromBytes: number;
  share: number;
}

export class HistoryMemo {
  private point: Point | null = null;
  /** The worker of the split open that made the point, kept for its segment (split-scan.ts). */
  private helper: RangeHelper | null = null;
  /** @internal Drawn when the memo is made, never shown: fingerprint.ts says why that matters. */
  readonly key = new FingerprintKey();

  constructor(
    /** @internal */
    readonly split: SplitPlan = { fromBytes: SPLIT_FROM_BYTES, share: SPLIT_SHARE },
  ) {}

  /**
   * Exact open (open.ts) of `id`, beginning past what the memo holds when it still holds. With
   * `costs`, returns the known cost of the history's turns (the sum session.usage makes) from
   * the same pass: the budget's check (budget.ts) no longer reads the whole history again at
   * every turn; without, 0.
   */
  async exact(
    home: string,
    canonicalCwd: string,
    id: string,
    slicer: Slicer,
    costs = false,
  ): Promise<number> {
    const use = new MemoUse(this, id, canonicalCwd, REPLAY_BYTES, false, costs);
    await openExact(home, canonicalCwd, id, slicer, { resume: use });
    return use.cost;
  }

  /** Exact open and the replay (replay.ts) from one pass, remembering what it read. */
  async exactReplay(
    home: string,
    canonicalCwd: string,
    id: string,
    slicer: Slicer,
    maxBytes = REPLAY_BYTES,
  ): Promise<Replay> {
    const use = new MemoUse(this, id, canonicalCwd, maxBytes, true, true);
    await openExact(home, canonicalCwd, id, slicer, { resume: use });
    return use.replay();
  }

  /**
   * session.open's exact open (open.ts), remembering what it read as an admission's replay pass
   * does: the first turn's admission then fingerprints the history's bytes again but parses
   * none of them (issue 44: it parsed the whole history twice more). Its result is openExact's.
   */
  async open(
    home: string,
    canonicalCwd: string,
    id: string,
    slicer: Slicer,
    /** Started while a split read waits for its worker (split-scan.ts `whileWaiting`). */
    whileWaiting?: () => void,
  ): ReturnType<typeof openExact> {
    const use = new MemoUse(this, id, canonicalCwd, REPLAY_BYTES, true, true);
    use.whileWaiting = whileWaiting;
    return openExact(home, canonicalCwd, id, slicer, { resume: use });
  }

  /** Bytes of the history the memo holds (for tests): 0 when it holds none. */
  get heldBytes(): number {
    return this.point?.length ?? 0;
  }

  /** How many segments the held bytes are fingerprinted in (for tests). */
  get heldSegments(): number {
    return this.point?.segments.length ?? 0;
  }

  /** @internal The point for this history, cwd and bound, if any. */
  pointFor(id: string, cwd: string, maxBytes: number): Point | null {
    const p = this.point;
    return p && p.id === id && p.cwd === cwd && p.maxBytes === maxBytes ? p : null;
  }

  /** A split open's worker kept for the next passes: its thread's end (for tests), or null. */
  get helperEnded(): Promise<void> | null {
    return this.helper?.ended ?? null;
  }

  /** @internal The helper of the point's segment it read, if still kept. */
  helperOf(point: Point): RangeHelper | null {
    return point === this.point ? this.helper : null;
  }

  /**
   * @internal A new point (or none), and the worker a split open kept for one of its segments:
   * without one the kept worker stays (a later pass's point keeps that segment), with no point
   * none does.
   */
  keep(point: Point | null, helper?: RangeHelper): void {
    this.point = point;
    const next = point === null ? null : (helper ?? this.helper);
    if (this.helper !== next) this.helper?.stop();
    if (helper && helper !== next) helper.stop();
    this.helper = next;
  }
}

/** One exact open's use of the memo: the ScanResume validateHistory calls. */
class MemoUse implements ScanResume {
  private collector: ReplayCollector | null = null;
  /** The segments the next point keeps before `fresh`, and `fresh`, which the scan goes on. */
  private kept: Segment[] = [];
  private fresh: Fingerprint | null = null;
  /** The known cost of the turns read so far, the memo's share included (with `costs`). */
  cost = 0;
  /** Handed to a split read (split-scan.ts). */
  whileWaiting: (() => void) | undefined;

  constructor(
    private readonly memo: HistoryMemo,
    private readonly id: string,
    private readonly cwd: string,
    private readonly maxBytes: number,
    private readonly collects: boolean,
    private readonly costs: boolean,
  ) {}

  private readonly addCost = (event: SessionEvent): void => {
    this.cost += turnCostOf(event) ?? 0;
  };

  async begin(fd: number, size: number, rule: CwdRule, slicer: Slicer): Promise<ScanBegin> {
    const point = this.memo.pointFor(this.id, this.cwd, this.maxBytes);
    const candidate =
      point && size >= point.length && point.cwds.values.every((c) => rule.matches(c))
        ? point
        : null;
    // A pass that keeps a point carries the folded segments' bytes into its new one.
    const fold = candidate && this.collects ? foldFrom(candidate.segments) : 0;
    const carry = this.collects ? this.memo.key.start() : null;
    const helper = candidate ? this.memo.helperOf(candidate) : null;
    const resumed =
      candidate &&
      (await sameSegments(fd, this.memo.key, candidate.segments, slicer, fold, carry, helper))
        ? candidate
        : null;
    if (this.collects) {
      this.collector = resumed ? resumed.replay.copy() : new ReplayCollector(this.maxBytes);
      this.kept = resumed ? resumed.segments.slice(0, fold) : [];
      // Fed the folded bytes only when the prefix held; from the start otherwise.
      this.fresh = resumed ? carry : this.memo.key.start();
    }
    this.cost = resumed?.cost ?? 0;
    const reading = { ...this.digestAndSink() };
    if (!resumed) return { start: 0, ...reading, split: this.splitReading() };
    return {
      start: resumed.length,
      from: { summary: SummaryBuilder.restore(resumed.summary), cwds: resumed.cwds.copy() },
      ...reading,
    };
  }

  /** What the scan hands its bytes and records to: the replay's collector, the costs' sum. */
  private digestAndSink(): Pick<ScanBegin, "digest" | "sink"> {
    const { collector, fresh, costs, addCost } = this;
    if (collector && fresh) {
      const add = collector.add;
      const sink = costs
        ? (event: SessionEvent, bytes: number) => {
            addCost(event);
            add(event, bytes);
          }
        : add;
      // The reader only calls update(bytes) and ignores what it returns (record-reader.ts).
      return { digest: fresh as unknown as Pick<Hash, "update">, sink };
    }
    return costs ? { sink: addCost } : {};
  }

  /** How a read from the start may split (split-scan.ts): what the second range hands back to. */
  private splitReading(): SplitReading {
    return {
      ...this.memo.split,
      canonicalCwd: this.cwd,
      fingerprint: this.fresh ? this.memo.key.material() : null,
      replay: this.collector?.add ?? null,
      cost: this.costs
        ? (cost) => {
            this.cost += cost;
          }
        : null,
      whileWaiting: this.whileWaiting,
    };
  }

  end(scan: ScanOutcome): void {
    const { collector, fresh } = this;
    if (!this.collects || !collector || !fresh) return scan.helper?.stop();
    const { length, tail } = scan;
    const keepable =
      !scan.openEnd && !scan.cwds.overflow && collector.keptBytes <= MEMO_REPLAY_BYTES;
    const start = this.kept.at(-1)?.end ?? 0;
    // A split read's digest ends where its second range, fingerprinted on the worker, starts.
    const digested = tail?.from ?? length;
    const segments =
      digested > start
        ? [...this.kept, { end: digested, fingerprint: fresh.finish() }]
        : [...this.kept];
    if (tail && length > tail.from) segments.push({ end: length, fingerprint: tail.fingerprint });
    this.memo.keep(
      keepable && segments.length > 0
        ? {
            id: this.id,
            cwd: this.cwd,
            maxBytes: this.maxBytes,
            length,
            segments,
            summary: scan.summary.state(),
            cwds: scan.cwds.copy(),
            // Kept as it is: the caller only reads its result, and a later use copies it.
            replay: collector,
            cost: this.cost,
          }
        : null,
      scan.helper,
    );
  }

  replay(): Replay {
    return (this.collector as ReplayCollector).result();
  }
}

/**
 * The index of the first of `segments` that the next point folds into its new segment (their
 * number when it folds none): below MAX_SEGMENTS none; at it, all but the first, or all of them
 * once the others hold more bytes than the first (so the first stays the larger part, and the
 * bytes fingerprinted twice are at most half the history, once in MAX_SEGMENTS - 1 passes).
 */
function foldFrom(segments: Segment[]): number {
  if (segments.length < MAX_SEGMENTS) return segments.length;
  const first = (segments[0] as Segment).end;
  const length = (segments.at(-1) as Segment).end;
  return length - first > first ? 0 : 1;
}

/**
 * Whether the file's first bytes, read through `fd`, are those `segments` fingerprint: each
 * segment's bytes are fingerprinted once and compared at its end (the first difference stops the
 * read). `carry`, when given, is also fed the bytes of the segments from index `fold` on. The
 * segment a kept worker read (`helper`, split-scan.ts), when not fed to `carry`, is read and
 * fingerprinted on that thread meanwhile (on this one if it cannot), and compared last.
 */
async function sameSegments(
  fd: number,
  key: FingerprintKey,
  segments: Segment[],
  slicer: Slicer,
  fold: number,
  carry: Fingerprint | null,
  helper: RangeHelper | null,
): Promise<boolean> {
  const last = segments.at(-1);
  if (!last) return false;
  const buffer = Buffer.allocUnsafe(Math.min(FINGERPRINT_READ_BYTES, Math.max(last.end, 1)));
  const helped = helper
    ? segments.findIndex(
        (segment, index) =>
          (carry === null || index < fold) &&
          segment.end === helper.to &&
          (segments[index - 1]?.end ?? 0) === helper.from,
      )
    : -1;
  const asked = helper && helped !== -1 ? helper.fingerprint(fd) : null;
  let same = true;
  let theirs: Uint8Array | null = null;
  try {
    for (const [index, segment] of segments.entries()) {
      const from = segments[index - 1]?.end ?? 0;
      if (index === helped) continue;
      const folded = index >= fold ? carry : null;
      const fingerprint = await segmentPrint(fd, buffer, from, segment.end, slicer, folded, key);
      same = fingerprint?.equals(segment.fingerprint) ?? false;
      if (!same) break;
    }
  } finally {
    // Awaited whatever the rest decided (a cancellation too): the worker reads through `fd`,
    // which the caller closes once this returns.
    theirs = asked ? await asked : null;
  }
  if (!same || !asked || !helper) return same;
  const segment = segments[helped] as Segment;
  const print =
    theirs === null
      ? await segmentPrint(fd, buffer, helper.from, segment.end, slicer, null, key)
      : Buffer.from(theirs);
  return print?.equals(segment.fingerprint) ?? false;
}

/** The fingerprint of [from, to) of `fd` read now (`folded` fed it too), or null if short. */
async function segmentPrint(
  fd: number,
  buffer: Buffer,
  from: number,
  to: number,
  slicer: Slicer,
  folded: Fingerprint | null,
  key: FingerprintKey,
): Promise<Buffer | null> {
  const fingerprint = key.start();
  for (let at = from; at < to; ) {
    const got = readSync(fd, buffer, 0, Math.min(buffer.length, to - at), at);
    if (got === 0) return null;
    const bytes = buffer.subarray(0, got);
    fingerprint.update(bytes);
    folded?.update(bytes);
    at += got;
    if (slicer.due(got)) await slicer.yieldNow();
  }
  return fingerprint.finish();
}

import { createHash, type Hash } from "node:crypto";
import { readSync } from "node:fs";
import type { SessionEvent } from "../../protocol/schemas/sessions.js";
import type { Slicer } from "../slicer.js";
import type { CwdRule, HistoryScan } from "./history-scan.js";
import { openExact } from "./open.js";
import type { CwdLog } from "./recorded-cwds.js";
import { REPLAY_BYTES, ReplayCollector } from "./replay.js";
import type { Replay } from "./replay-window.js";
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
 * The memo keeps, for one history: its first `length` bytes' SHA-256, and the state a scan of
 * exactly those bytes ended in (the summary, the distinct cwds, the replay collected so far).
 * A later exact open of the same history, through the file it opened, reads those bytes again
 * and hashes them; only when they are the same bytes does its scan begin at `length`, in that
 * state. The verdict of a history is a function of its bytes and of the cwd rule, and the rule
 * (which follows symlinks outside the history) is applied again to the kept cwds, as the
 * listings' verdict cache does: so a resumed scan decides exactly what a full one would. A file
 * replaced, cut, rewritten or grown by another writer is read as it is now: a changed prefix
 * reads from the start, appended records are parsed and checked.
 *
 * Kept only after a replay pass that read to the end of an eligible history ending in an LF,
 * with at most 16 distinct cwds (CwdLog's bound) and a replay of at most MEMO_REPLAY_BYTES:
 * the kept replay's records are what the child holds between turns.
 */
const MEMO_REPLAY_BYTES = 2 * 1_048_576;

/** The prefix is read back in reads of this size, the slicer consulted between them. */
const VERIFY_READ_BYTES = 65_536;

interface Point {
  id: string;
  cwd: string;
  maxBytes: number;
  length: number;
  /** SHA-256 state over [0, length): copied to go on, never finished. */
  hash: Hash;
  digest: Buffer;
  summary: SummaryState;
  cwds: CwdLog;
  replay: ReplayCollector;
  /** The known cost of the turns in [0, length) (turn-cost.ts): the budget's check reads it. */
  cost: number;
}

export class HistoryMemo {
  private point: Point | null = null;

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
   * does: the first turn's admission then hashes the history's bytes again but parses none of
   * them (issue 44: it parsed the whole history twice more). Its result is openExact's.
   */
  async open(
    home: string,
    canonicalCwd: string,
    id: string,
    slicer: Slicer,
  ): ReturnType<typeof openExact> {
    const use = new MemoUse(this, id, canonicalCwd, REPLAY_BYTES, true, true);
    return openExact(home, canonicalCwd, id, slicer, { resume: use });
  }

  /** Bytes of the history the memo holds (for tests): 0 when it holds none. */
  get heldBytes(): number {
    return this.point?.length ?? 0;
  }

  /** @internal The point for this history, cwd and bound, if any. */
  pointFor(id: string, cwd: string, maxBytes: number): Point | null {
    const p = this.point;
    return p && p.id === id && p.cwd === cwd && p.maxBytes === maxBytes ? p : null;
  }

  /** @internal */
  keep(point: Point | null): void {
    this.point = point;
  }
}

/** One exact open's use of the memo: the ScanResume validateHistory calls. */
class MemoUse implements ScanResume {
  private collector: ReplayCollector | null = null;
  private hash: Hash | null = null;
  /** The known cost of the turns read so far, the memo's share included (with `costs`). */
  cost = 0;

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
    const hash =
      point && size >= point.length && point.cwds.values.every((c) => rule.matches(c))
        ? await samePrefix(fd, point, slicer)
        : null;
    const resumed = point && hash ? point : null;
    if (this.collects) {
      this.collector = resumed ? resumed.replay.copy() : new ReplayCollector(this.maxBytes);
      this.hash = hash ?? createHash("sha256");
    }
    this.cost = resumed?.cost ?? 0;
    const reading = { ...this.digestAndSink() };
    if (!resumed) return { start: 0, ...reading };
    return {
      start: resumed.length,
      from: { summary: SummaryBuilder.restore(resumed.summary), cwds: resumed.cwds.copy() },
      ...reading,
    };
  }

  /** What the scan hands its bytes and records to: the replay's collector, the costs' sum. */
  private digestAndSink(): Pick<ScanBegin, "digest" | "sink"> {
    const { collector, hash, costs, addCost } = this;
    if (collector && hash) {
      const add = collector.add;
      const sink = costs
        ? (event: SessionEvent, bytes: number) => {
            addCost(event);
            add(event, bytes);
          }
        : add;
      return { digest: hash, sink };
    }
    return costs ? { sink: addCost } : {};
  }

  end(scan: HistoryScan, length: number): void {
    const { collector, hash } = this;
    if (!this.collects || !collector || !hash) return;
    const keepable =
      !scan.openEnd && !scan.cwds.overflow && collector.keptBytes <= MEMO_REPLAY_BYTES;
    this.memo.keep(
      keepable
        ? {
            id: this.id,
            cwd: this.cwd,
            maxBytes: this.maxBytes,
            length,
            hash,
            digest: hash.copy().digest(),
            summary: scan.summary.state(),
            cwds: scan.cwds.copy(),
            // Kept as it is: the caller only reads its result, and a later use copies it.
            replay: collector,
            cost: this.cost,
          }
        : null,
    );
  }

  replay(): Replay {
    return (this.collector as ReplayCollector).result();
  }
}

/**
 * The SHA-256 state over the file's first `point.length` bytes, read through `fd`, when they
 * hash to the point's digest; else null (the file is shorter, or those bytes changed).
 */
async function samePrefix(fd: number, point: Point, slicer: Slicer): Promise<Hash | null> {
  const hash = createHash("sha256");
  const buffer = Buffer.allocUnsafe(Math.min(VERIFY_READ_BYTES, Math.max(point.length, 1)));
  for (let at = 0; at < point.length; ) {
    const got = readSync(fd, buffer, 0, Math.min(buffer.length, point.length - at), at);
    if (got === 0) return null;
    hash.update(buffer.subarray(0, got));
    at += got;
    if (slicer.due(got)) await slicer.yieldNow();
  }
  return hash.copy().digest().equals(point.digest) ? hash : null;
}

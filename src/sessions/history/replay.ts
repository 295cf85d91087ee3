import type { SessionEvent } from "../../protocol/schemas/sessions.js";
import { ReplayRecord } from "../records/turn-records.js";
import { type Replay, ReplayWindow } from "./replay-window.js";

/**
 * The records the turn engine builds its next context from (turns.md sections 5, 8 and 10):
 * the history read in constant memory beyond what is kept, keeping, in file order,
 * - the latest `compaction` record and every record after it (everything, without one), with
 *   the `user_message` of the compaction's own turn right after it (that input stays whole);
 * - of those, the turn records that match their schema (turn-records.ts), and the
 *   `user_message` / `assistant_message` records other tools write (no `turn_id`);
 * - nothing else: `session_meta`, `title`, `mode`, `model`, unknown types, and records of a
 *   turn type that do not match its schema are skipped;
 * - a torn tail ends the history (torn-tail.ts);
 * - at most `maxBytes` of kept records' lines: past that, the newest that fit, starting at a
 *   turn boundary, and `truncated` (replay-window.ts). More than any model's context window, so
 *   the engine compacts before its first call.
 * The records come from the history scan that validates the history (history-scan.ts), so
 * validity, torn tails and the 8 MiB record bound are exactly exact open's.
 * A turn's admission reads with `HistoryMemo.exactReplay` (admission-memo.ts): exact open's
 * every verdict and the replay from one pass.
 */
export const REPLAY_BYTES = 16 * 1024 * 1024;

/**
 * Records since the latest valid compaction wait unchecked up to this many bytes of lines
 * (their parsed values held meanwhile), then are checked and added in order: the bound on what
 * the deferral below holds beyond the window itself.
 */
export const PENDING_BYTES = 4 * 1024 * 1024;

/**
 * Builds the replay record by record, from the records a history scan accepts, in file order.
 *
 * Every record that matches its schema moves the window (replay-window.ts), and one that does
 * not is skipped: so the schema decides the window's edges. But a valid compaction starts the
 * window afresh, and what the records before it leave behind is only the latest turn input
 * (a valid, non-steer `user_message`). So the records after the latest valid compaction wait,
 * unchecked, in `pending`; the next compaction-typed record is checked at once, and when it is
 * valid the pending ones are dropped, only the newest user messages among them checked to find
 * that input. Pending records are checked and added in order once they pass PENDING_BYTES and
 * before anything reads the window. The window is then exactly the one of checking and adding
 * every record (replay-equivalence.test.ts holds the two to it), and the schema, a third of a
 * big history's open (issue 44), runs on about one compaction's worth of records.
 */
export class ReplayCollector {
  private window: ReplayWindow;
  /** The latest turn input: a compaction in its turn keeps it after the summary. */
  private input: { record: ReplayRecord; bytes: number } | null = null;
  /** Records not yet checked, after everything the window and `input` hold. */
  private pending: { event: SessionEvent; bytes: number }[] = [];
  private pendingBytes = 0;

  constructor(
    private readonly maxBytes = REPLAY_BYTES,
    private readonly pendingLimit = PENDING_BYTES,
  ) {
    this.window = new ReplayWindow(maxBytes);
  }

  /** A collector in this one's state, that later adds leave this one without. */
  copy(): ReplayCollector {
    this.settle();
    const collector = new ReplayCollector(this.maxBytes, this.pendingLimit);
    collector.window = this.window.copy();
    collector.input = this.input;
    return collector;
  }

  /** Bytes of the kept records' lines. */
  get keptBytes(): number {
    this.settle();
    return this.window.keptBytes;
  }

  /** A RecordSink (history-scan.ts). */
  readonly add = (event: SessionEvent, bytes: number): void => {
    // Only a record typed `compaction` can match the compaction schema (a literal).
    if (event.type !== "compaction") {
      this.pending.push({ event, bytes });
      this.pendingBytes += bytes;
      if (this.pendingBytes > this.pendingLimit) this.settle();
      return;
    }
    const record = asReplayRecord(event);
    if (record === null) return;
    this.input = this.newestPendingInput() ?? this.input;
    this.pending = [];
    this.pendingBytes = 0;
    this.compact(record, bytes);
  };

  result(): Replay {
    this.settle();
    return this.window.result();
  }

  /** Checks and adds the pending records in order. */
  private settle(): void {
    const pending = this.pending;
    if (pending.length === 0) return;
    this.pending = [];
    this.pendingBytes = 0;
    for (const { event, bytes } of pending) {
      const record = asReplayRecord(event);
      if (record !== null) this.checked(record, bytes);
    }
  }

  /** What adding a record that matches its schema does. */
  private checked(record: ReplayRecord, bytes: number): void {
    if (isInput(record)) this.input = { record, bytes };
    if (record.type === "compaction") this.compact(record, bytes);
    else this.window.add(record, bytes);
  }

  /**
   * Every later context is the latest summary and what follows it (turns.md section 10); the
   * turn that compacted keeps its input whole after the summary, as the engine did.
   */
  private compact(record: ReplayRecord, bytes: number): void {
    const input = this.input;
    const own = input?.record.turn_id !== undefined && input.record.turn_id === record.turn_id;
    this.window.restart(record, bytes, own && input ? input : undefined);
  }

  /** The newest pending record that would have become `input`, or null: checked newest first. */
  private newestPendingInput(): { record: ReplayRecord; bytes: number } | null {
    for (let at = this.pending.length - 1; at >= 0; at -= 1) {
      const { event, bytes } = this.pending[at] as { event: SessionEvent; bytes: number };
      if (event.type !== "user_message") continue;
      const record = asReplayRecord(event);
      if (record !== null && isInput(record)) return { record, bytes };
    }
    return null;
  }
}

/** A steer is inside its turn, not its input (docs/turns.md, "Steering and queueing"). */
export function isInput(record: ReplayRecord): boolean {
  return record.type === "user_message" && record.steer !== true;
}

/**
 * Without zod's compiled fast path (src/protocol/first-parse.ts): the check is the same, and it
 * runs on a compaction's worth of records an open (a few thousand in a 100 MB history), where
 * compiling each record schema's fast path cost more than it saved: the first open of a child
 * paid about 7 ms compiling it, and the checks measured as fast or faster without it (issue 44).
 */
const JITLESS = { jitless: true } as const;

export function asReplayRecord(event: SessionEvent): ReplayRecord | null {
  const parsed = ReplayRecord().safeParse(event, JITLESS);
  return parsed.success ? parsed.data : null;
}

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

/** Builds the replay record by record, from the records a history scan accepts, in file order. */
export class ReplayCollector {
  private window: ReplayWindow;
  /** The latest turn input: a compaction in its turn keeps it after the summary. */
  private input: { record: ReplayRecord; bytes: number } | null = null;

  constructor(maxBytes = REPLAY_BYTES) {
    this.window = new ReplayWindow(maxBytes);
  }

  /** A collector in this one's state, that later adds leave this one without. */
  copy(): ReplayCollector {
    const collector = new ReplayCollector();
    collector.window = this.window.copy();
    collector.input = this.input;
    return collector;
  }

  /** Bytes of the kept records' lines. */
  get keptBytes(): number {
    return this.window.keptBytes;
  }

  /** A RecordSink (history-scan.ts). */
  readonly add = (event: SessionEvent, bytes: number): void => {
    const record = asReplayRecord(event);
    if (record === null) return;
    // A steer is inside its turn, not its input (docs/turns.md, "Steering and queueing").
    if (record.type === "user_message" && record.steer !== true) this.input = { record, bytes };
    // Every later context is the latest summary and what follows it (turns.md section 10); the
    // turn that compacted keeps its input whole after the summary, as the engine did.
    if (record.type === "compaction") {
      const input = this.input;
      const own = input?.record.turn_id !== undefined && input.record.turn_id === record.turn_id;
      this.window.restart(record, bytes, own && input ? input : undefined);
      return;
    }
    this.window.add(record, bytes);
  };

  result(): Replay {
    return this.window.result();
  }
}

function asReplayRecord(event: SessionEvent): ReplayRecord | null {
  const parsed = ReplayRecord().safeParse(event);
  return parsed.success ? parsed.data : null;
}

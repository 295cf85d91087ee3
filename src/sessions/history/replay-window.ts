import type { ReplayRecord } from "../records/turn-records.js";

/**
 * What a replay keeps: the newest records since the latest compaction that fit the replay
 * bound, in file order, whole records only, and whether older ones were left out.
 */
export interface Replay {
  records: ReplayRecord[];
  /** Records since the latest compaction were left out to stay within the bound. */
  truncated: boolean;
}

/** One turn's kept records (or, cut short, the newest whole steps of one). */
interface Segment {
  records: { record: ReplayRecord; bytes: number }[];
  bytes: number;
  /** It starts at a step boundary inside a turn, not at the turn's start. */
  partial: boolean;
}

/**
 * The newest records that fit `maxBytes`, built in file order in memory bounded by it
 * (turns.md section 10, store.md "Replay"). The kept window starts at a turn boundary, so
 * that no provider is shown a tool result without its call:
 * - it keeps the newest whole turns that fit (a turn starts at its `turn_start`, or at a
 *   `user_message` that does not follow its own turn's `turn_start`: another tool's message);
 * - when not even the newest turn fits whole, the newest whole steps of it that fit (a step
 *   starts at an `assistant_message`: its tool calls and their results follow it), and when not
 *   even its newest step fits, nothing of that turn;
 * - a compaction starts the window afresh with the compaction record and its own turn's input
 *   right after it (the engine kept that input whole); the two are kept or left out together.
 */
export class ReplayWindow {
  private segments: Segment[] = [];
  private bytes = 0;
  private truncated = false;
  /** The newest turn's records were cut down to nothing: skip it up to the next boundary. */
  private skipping = false;
  private previous: ReplayRecord | null = null;

  constructor(private readonly maxBytes: number) {}

  /**
   * A window in this one's state, that later adds leave this one without: the segments are
   * copied, the records (never changed once read) shared.
   */
  copy(): ReplayWindow {
    const window = new ReplayWindow(this.maxBytes);
    window.segments = this.segments.map((s) => ({ ...s, records: [...s.records] }));
    window.bytes = this.bytes;
    window.truncated = this.truncated;
    window.skipping = this.skipping;
    window.previous = this.previous;
    return window;
  }

  /** Bytes of the kept records' lines. */
  get keptBytes(): number {
    return this.bytes;
  }

  /** The compaction record and its turn's input (when that input was its own). */
  restart(
    compaction: ReplayRecord,
    bytes: number,
    input?: { record: ReplayRecord; bytes: number },
  ) {
    this.segments = [];
    this.bytes = 0;
    this.truncated = false;
    this.skipping = false;
    this.segments.push({ records: [], bytes: 0, partial: false });
    this.push(compaction, bytes);
    if (input) this.push(input.record, input.bytes);
    this.previous = compaction;
    this.fit();
  }

  add(record: ReplayRecord, bytes: number): void {
    const turnStart = this.startsTurn(record);
    this.previous = record;
    if (turnStart) {
      this.skipping = false;
      this.segments.push({ records: [], bytes: 0, partial: false });
    } else if (this.skipping) {
      if (record.type !== "assistant_message") return;
      this.skipping = false;
      this.segments.push({ records: [], bytes: 0, partial: true });
    } else if (this.segments.length === 0) {
      // Records before any turn boundary (a history that starts mid-turn): a turn of their own.
      this.segments.push({ records: [], bytes: 0, partial: false });
    }
    this.push(record, bytes);
    if (turnStart) this.dropPartial();
    this.fit();
  }

  result(): Replay {
    return {
      records: this.segments.flatMap((s) => s.records.map((r) => r.record)),
      truncated: this.truncated,
    };
  }

  private startsTurn(record: ReplayRecord): boolean {
    if (record.type === "turn_start") return true;
    if (record.type !== "user_message" || record.steer === true) return false;
    const previous = this.previous;
    const own =
      previous?.type === "turn_start" &&
      record.turn_id !== undefined &&
      previous.turn_id === record.turn_id;
    return !own;
  }

  private push(record: ReplayRecord, bytes: number): void {
    const last = this.segments.at(-1) as Segment;
    last.records.push({ record, bytes });
    last.bytes += bytes;
    this.bytes += bytes;
  }

  /** A turn kept only in part is left out once a newer turn starts: windows start at turns. */
  private dropPartial(): void {
    while (this.segments.length > 1 && this.segments[0]?.partial) this.dropOldest();
  }

  /** Leaves out the oldest turns, then the oldest steps of the only one, until it all fits. */
  private fit(): void {
    while (this.bytes > this.maxBytes && this.segments.length > 1) this.dropOldest();
    if (this.bytes <= this.maxBytes) return;
    const only = this.segments[0] as Segment;
    this.truncated = true;
    only.partial = true;
    while (this.bytes > this.maxBytes) {
      const next = only.records.findIndex((r, i) => i > 0 && r.record.type === "assistant_message");
      if (next === -1) {
        this.segments = [];
        this.bytes = 0;
        this.skipping = true;
        return;
      }
      for (const gone of only.records.splice(0, next)) {
        only.bytes -= gone.bytes;
        this.bytes -= gone.bytes;
      }
    }
  }

  private dropOldest(): void {
    const gone = this.segments.shift() as Segment;
    this.bytes -= gone.bytes;
    this.truncated = true;
  }
}

import type { SessionEvent } from "../../protocol/schemas/sessions.js";
import type { RecordFacts, RecordReadOptions } from "../records/facts.js";
import { parsedEvent, readRecordFacts } from "../records/read-facts.js";
import type { ByteAllowance, ReadResult, RecordReader } from "../records/record-reader.js";
import { isTornTail } from "../records/torn-tail.js";
import type { Slicer } from "../slicer.js";
import type { CwdMatcher } from "./cwd-rule.js";
import { CwdLog } from "./recorded-cwds.js";
import { SummaryBuilder } from "./summary.js";

/**
 * One history's validation, as a resumable state machine over a RecordReader: each record is
 * parsed and validated, the cwd rule applied (the first mismatch ends the history at once, the
 * rest is never read) and the summary accumulated. `advance` works until the history is decided
 * or the caller's budget (records, bytes, deadline) runs out; the next call resumes exactly
 * there, between records or mid-record. A torn tail (torn-tail.ts) ends the history as if the
 * file ended before it. A `RecordSink` is handed every record the scan accepts (valid, in scope,
 * before any torn tail), in file order, so that a reader that needs the records themselves (the
 * turn's replay) takes them from the same pass that validates the history.
 */
type HistoryVerdict = "eligible" | "mismatch" | "invalid" | "over_limit";
type AdvanceStop = "done" | "lines" | "bytes" | "deadline";

export interface WorkBudget extends ByteAllowance {
  /** Records this step may still complete. */
  lines: number;
  /** performance.now() after which the step stops. */
  deadline: number;
}

/**
 * The parsed record and its line's bytes (without the LF). Records of a history that is then
 * refused were handed over too: the sink's result is only for an eligible history.
 */
export type RecordSink = (event: SessionEvent, bytes: number) => void;

/** The cwd rule a scan applies (a CwdMatcher; a reader without the rule matches every cwd). */
export type CwdRule = Pick<CwdMatcher, "matches">;

export function unboundedBudget(): WorkBudget {
  return {
    lines: Number.POSITIVE_INFINITY,
    bytes: Number.POSITIVE_INFINITY,
    deadline: Number.POSITIVE_INFINITY,
  };
}

/** Where a scan resumes: the summary and cwds of the records before the reader's start. */
export interface ScanStart {
  summary: SummaryBuilder;
  cwds: CwdLog;
}

export class HistoryScan {
  verdict: HistoryVerdict | null = null;
  readonly summary: SummaryBuilder;
  /** The distinct recorded cwds read so far (what a cached verdict needs: verdict-cache.ts). */
  readonly cwds: CwdLog;
  /** The last record read had no LF (a final record without one, or a torn tail). */
  openEnd = false;
  /** What the scan asks of each record, while it still wants a user line and after. */
  private readonly withUserLine: RecordReadOptions;
  private readonly withoutUserLine: RecordReadOptions;

  constructor(
    private readonly reader: RecordReader,
    private readonly cwd: CwdRule,
    private readonly sink?: RecordSink,
    from?: ScanStart,
  ) {
    this.summary = from?.summary ?? new SummaryBuilder();
    this.cwds = from?.cwds ?? new CwdLog();
    const keepValue = sink !== undefined;
    this.withUserLine = { keepEventBytes: 0, wantUserLine: true, keepValue };
    this.withoutUserLine = { keepEventBytes: 0, wantUserLine: false, keepValue };
  }

  get bytesRead(): number {
    return this.reader.bytesRead;
  }

  async advance(budget: WorkBudget, slicer: Slicer): Promise<AdvanceStop> {
    let weight = 0;
    while (this.verdict === null) {
      if (slicer.due(weight)) await slicer.yieldNow();
      if (slicer.now >= budget.deadline) return "deadline";
      if (budget.lines <= 0) return "lines";
      const before = this.reader.bytesRead;
      const read = this.reader.next(budget);
      weight = this.reader.bytesRead - before + 64;
      if (read.kind === "paused") continue;
      if (read.kind === "out_of_bytes") return "bytes";
      if (read.kind === "over_limit") this.verdict = "over_limit";
      else if (read.kind === "end") this.verdict = "eligible";
      else {
        budget.lines -= 1;
        weight += read.to - read.from;
        if (!read.terminated) this.openEnd = true;
        const options = this.summary.wantsUserLine ? this.withUserLine : this.withoutUserLine;
        const parsed = readRecordFacts(read.source, read.from, read.to, options);
        const facts = parsed instanceof Promise ? await parsed : parsed;
        if (isTornTail(read, facts)) this.verdict = "eligible";
        else this.apply(facts, read);
      }
    }
    return "done";
  }

  private apply(facts: RecordFacts, read: Extract<ReadResult, { kind: "record" }>): void {
    const accepted = acceptRecord(facts, this.cwd, this.cwds, this.summary);
    if (typeof accepted === "string") {
      this.verdict = accepted;
      return;
    }
    // A record the worker parsed comes without its value (read-facts.ts): parsed here again.
    this.sink?.(
      accepted.value ?? parsedEvent(read.source, read.from, read.to),
      read.to - read.from,
    );
  }
}

/**
 * One record's part in its history's verdict, the same for every reader of a whole history
 * (this scan, a split open's second range: split-range.ts): an invalid record refuses the
 * history, a recorded cwd is logged and must match, and an accepted record joins the summary.
 * Returns the refusal, or the accepted record's facts.
 */
export function acceptRecord(
  facts: RecordFacts,
  cwd: CwdRule,
  cwds: CwdLog,
  summary: SummaryBuilder,
): Extract<RecordFacts, { valid: true }> | "invalid" | "mismatch" {
  if (!facts.valid) return "invalid";
  if (facts.cwd !== null) cwds.add(facts.cwd);
  if (facts.cwd !== null && !cwd.matches(facts.cwd)) return "mismatch";
  summary.add(facts);
  return facts;
}

import type { ByteAllowance, RecordReader } from "../store/record-reader.js";
import type { CwdMatcher } from "./cwd.js";
import { parseRecord } from "./record-parser.js";
import type { Slicer } from "./slicer.js";
import { SummaryBuilder } from "./summary.js";
import { isTornTail } from "./torn-tail.js";

/**
 * One history's validation, as a resumable state machine over a RecordReader: each record is
 * parsed and validated, the cwd rule applied (the first mismatch ends the history at once, the
 * rest is never read) and the summary accumulated. `advance` works until the history is decided
 * or the caller's budget (records, bytes, deadline) runs out; the next call resumes exactly
 * there, between records or mid-record. A torn tail (torn-tail.ts) ends the history as if the
 * file ended before it.
 */
export type HistoryVerdict = "eligible" | "mismatch" | "invalid" | "over_limit";
export type AdvanceStop = "done" | "lines" | "bytes" | "deadline";

export interface WorkBudget extends ByteAllowance {
  /** Records this step may still complete. */
  lines: number;
  /** performance.now() after which the step stops. */
  deadline: number;
}

export function unboundedBudget(): WorkBudget {
  return {
    lines: Number.POSITIVE_INFINITY,
    bytes: Number.POSITIVE_INFINITY,
    deadline: Number.POSITIVE_INFINITY,
  };
}

export class HistoryScan {
  verdict: HistoryVerdict | null = null;
  readonly summary = new SummaryBuilder();

  constructor(
    private readonly reader: RecordReader,
    private readonly cwd: CwdMatcher,
  ) {}

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
        const parsed = parseRecord(read.source, read.from, read.to, 0, this.summary.wantsUserLine);
        const facts = parsed instanceof Promise ? await parsed : parsed;
        if (isTornTail(read, facts)) this.verdict = "eligible";
        else this.apply(facts);
      }
    }
    return "done";
  }

  private apply(facts: Awaited<ReturnType<typeof parseRecord>>): void {
    if (!facts.valid) {
      this.verdict = "invalid";
      return;
    }
    if (facts.cwd !== null && !this.cwd.matches(facts.cwd)) {
      this.verdict = "mismatch";
      return;
    }
    this.summary.add(facts);
  }
}

import type { SessionEntry } from "../../protocol/schemas/sessions.js";
import type { RecordFacts } from "../records/facts.js";

/**
 * The listing summary of one history, accumulated record by record: the last `title` event's
 * title, else the first user message's first line; first and last `ts`; whether any record
 * carried a nonempty cwd. Its memory is a few short strings, whatever the history's length.
 */
type ValidFacts = Extract<RecordFacts, { valid: true }>;

/** A title longer than this cannot fit a page; only the fact is kept, not the text. */
const TITLE_KEEP_CHARS = 32_768;

/**
 * The summary a listing row is built from (a cached verdict keeps exactly this state:
 * verdicts/verdict-file.ts).
 */
export interface SummaryState {
  title: string | null;
  title_oversize: boolean;
  user_line: string | null;
  created_at: string | null;
  updated_at: string | null;
  saw_cwd: boolean;
  records: number;
}

export class SummaryBuilder {
  private title: string | null = null;
  private titleOversize = false;
  private userLine: string | null = null;
  private created: string | null = null;
  private updated: string | null = null;
  sawCwd = false;
  records = 0;

  add(facts: Pick<ValidFacts, "ts" | "cwd" | "title" | "userLine">): void {
    this.records += 1;
    this.created ??= facts.ts;
    this.updated = facts.ts;
    if (facts.cwd !== null) this.sawCwd = true;
    if (facts.title !== null) {
      this.titleOversize = facts.title.length > TITLE_KEEP_CHARS;
      this.title = this.titleOversize ? null : facts.title;
    }
    this.userLine ??= facts.userLine;
  }

  /** Whether a user message's first line is still of use (only the first one ever is). */
  get wantsUserLine(): boolean {
    return this.userLine === null;
  }

  /** True when the entry would carry a title too long for any page. */
  get oversize(): boolean {
    return this.titleOversize;
  }

  state(): SummaryState {
    return {
      title: this.title,
      title_oversize: this.titleOversize,
      user_line: this.userLine,
      created_at: this.created,
      updated_at: this.updated,
      saw_cwd: this.sawCwd,
      records: this.records,
    };
  }

  /** A builder in exactly the state a full read left another one in. */
  static restore(state: SummaryState): SummaryBuilder {
    const builder = new SummaryBuilder();
    builder.title = state.title;
    builder.titleOversize = state.title_oversize;
    builder.userLine = state.user_line;
    builder.created = state.created_at;
    builder.updated = state.updated_at;
    builder.sawCwd = state.saw_cwd;
    builder.records = state.records;
    return builder;
  }

  /**
   * This builder's records followed by those `later` summarises (the second range of a split
   * open, split-scan.ts): exactly the state of adding all of them to one builder in order.
   */
  followedBy(later: SummaryState): SummaryBuilder {
    const builder = SummaryBuilder.restore(this.state());
    // A title event seen later replaces this one's (an oversize one too: it leaves no text).
    if (later.title !== null || later.title_oversize) {
      builder.title = later.title;
      builder.titleOversize = later.title_oversize;
    }
    builder.userLine ??= later.user_line;
    builder.created ??= later.created_at;
    if (later.records > 0) builder.updated = later.updated_at;
    builder.sawCwd ||= later.saw_cwd;
    builder.records += later.records;
    return builder;
  }

  entry(id: string, busy: boolean): SessionEntry {
    return {
      id,
      title: this.title ?? this.userLine,
      created_at: this.created,
      updated_at: this.updated,
      busy,
      cwd: this.sawCwd ? "verified" : "unverified",
      open: "exact",
    };
  }
}

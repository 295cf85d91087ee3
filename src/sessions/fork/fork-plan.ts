import { ProtocolError } from "../../protocol/codes.js";
import type { SessionEvent } from "../../protocol/schemas/sessions.js";
import { openExact } from "../history/open.js";
import { SummaryBuilder } from "../history/summary.js";
import { summaryFacts } from "../records/facts.js";
import type { Slicer } from "../slicer.js";

/**
 * The first pass of `session.fork` (docs/local-agent-protocol.md "session.fork"): the source is
 * read whole under the exact-open rules (every refusal of `session.open`, before anything is
 * written), and the same pass decides where the fork is cut. Nothing is kept but counters and
 * the fork's listing summary, whatever the history's length.
 *
 * The cut, with a `turn_id`: every record up to and including that turn's `turn_end`; a turn
 * without one (its writer was killed, or it still runs in another process) ends before the next
 * turn's `turn_start`, or at the end of the history. Records another tool wrote without a turn
 * ID are kept where they stand. Without a `turn_id`: every record. Either way the source's
 * opening `session_meta` (its identity) is left out: the fork writes its own.
 */
export interface ForkPlan {
  /** The source's first `records` records are the fork's (a torn tail is never one of them). */
  records: number;
  /** Whether the first of them is the source's own `session_meta`, not copied. */
  skipFirst: boolean;
  /** Turns (`turn_start` records) the fork holds. */
  turns: number;
  /** The source file the plan was made from: the copy must read the very same file. */
  file: { dev: string; ino: string };
  /** The fork's listing summary: its own `session_meta` (`meta`), then the copied records. */
  summary: SummaryBuilder;
  /** The subagents (of `derived`) whose `agent` call is among the copied records, in order. */
  subagents: string[];
}

export async function planFork(
  home: string,
  cwd: string,
  id: string,
  turnId: string | null,
  meta: SessionEvent,
  slicer: Slicer,
  derived: ReadonlySet<string> = new Set(),
): Promise<ForkPlan> {
  const cut = new ForkCut(turnId, meta, derived);
  const { signature } = await openExact(home, cwd, id, slicer, {
    sink: (event) => cut.see(event),
  });
  if (turnId !== null && cut.state === "before")
    throw new ProtocolError("turn_missing", "That session has no turn with that ID.");
  // Only the fork's summary can differ from the source's: an earlier, oversize title.
  if (cut.summary.oversize) throw new ProtocolError("discovery_page_bytes");
  const [dev = "", ino = ""] = signature.split(":");
  return {
    records: cut.kept,
    skipFirst: cut.skipFirst,
    turns: cut.turns,
    file: { dev, ino },
    summary: cut.summary,
    subagents: cut.subagents,
  };
}

/** The cut's state machine, fed every record of the pass in file order. */
class ForkCut {
  state: "before" | "inside" | "after";
  kept = 0;
  turns = 0;
  skipFirst = false;
  readonly summary = new SummaryBuilder();
  readonly subagents: string[] = [];
  private index = 0;

  constructor(
    private readonly target: string | null,
    meta: SessionEvent,
    private readonly derived: ReadonlySet<string>,
  ) {
    this.state = target === null ? "inside" : "before";
    this.summary.add(summaryFacts(meta, false));
  }

  see(event: SessionEvent): void {
    const index = this.index++;
    if (this.state === "after") return;
    const turnId = typeof event.turn_id === "string" ? event.turn_id : null;
    const isStart = event.type === "turn_start";
    if (this.target !== null) {
      if (this.state === "before" && isStart && turnId === this.target) this.state = "inside";
      else if (this.state === "inside" && isStart && turnId !== this.target) {
        this.state = "after";
        return;
      }
    }
    this.kept = index + 1;
    if (index === 0 && event.type === "session_meta") this.skipFirst = true;
    else this.summary.add(summaryFacts(event, this.summary.wantsUserLine));
    if (isStart) this.turns += 1;
    // A kept `agent` call: its subagent's derived history goes with the fork (fork-derived.ts).
    const itemId = event.item_id;
    if (event.type === "tool_call" && event.tool === "agent" && typeof itemId === "string")
      if (this.derived.has(itemId) && !this.subagents.includes(itemId)) this.subagents.push(itemId);
    const endsTarget = this.target !== null && event.type === "turn_end" && turnId === this.target;
    if (this.state === "inside" && endsTarget) this.state = "after";
  }
}

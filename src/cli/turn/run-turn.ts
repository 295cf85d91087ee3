import type { AgentClient, Permissions, TurnResult } from "../../client/index.js";
import type { TurnAttachment } from "../../protocol/schemas/attachments.js";
import type { TurnCommand } from "../../protocol/schemas/skills.js";
import type { Terminal } from "../terminal.js";
import { approvalPrompt } from "./approval-prompt.js";
import type { LineReader } from "./reader-types.js";
import type { TurnView } from "./view.js";

/** Exit codes of a turn's result: a person's Ctrl-C is 130, as shells have it. */
const INTERRUPTED_EXIT = 130;
/** A completed turn in which an approval was denied because no terminal could ask. */
const DENIED_EXIT = 3;

/**
 * 0 completed, 1 failed, 130 interrupted; a completed turn with an approval nobody could answer
 * is DENIED_EXIT, or 1 with `failOnDenial` (docs/cli.md, "exec").
 */
export function exitCodeOf(result: TurnResult, deniedUnasked = 0, failOnDenial = false): number {
  if (result.status === "interrupted") return INTERRUPTED_EXIT;
  if (result.status === "failed") return 1;
  if (deniedUnasked > 0) return failOnDenial ? 1 : DENIED_EXIT;
  return 0;
}

export interface TurnRun {
  term: Terminal;
  view: TurnView;
  /** Where approvals are asked; null (or not interactive) denies them. */
  reader: LineReader | null;
  permissions?: Permissions | undefined;
  /** Called for each approval denied because nobody could be asked. */
  onUnasked?: () => void;
  /** Images sent with the input (`exec --image`, chat's `/image`). */
  attachments?: TurnAttachment[];
}

/**
 * One turn, shown through `view`. The first Ctrl-C interrupts it through the protocol
 * (turn.interrupt) and still waits for its result, which says what was kept; a second one
 * exits at once. Rejects only when the turn was refused before it started.
 */
export async function runTurn(
  client: AgentClient,
  /** The user's words, or a custom command the child expands (docs/skills.md). */
  input: string | { command: TurnCommand },
  { term, view, reader, permissions, onUnasked, attachments }: TurnRun,
): Promise<TurnResult> {
  const controller = new AbortController();
  const interrupt = () => {
    freshLine(term, view);
    if (controller.signal.aborted) {
      term.note("mc-agent: interrupted twice; exiting without waiting for the turn to end.");
      process.exit(INTERRUPTED_EXIT);
    }
    term.note(term.paintNote("Interrupting… (Ctrl-C again exits at once)", "33"));
    controller.abort();
  };
  process.on("SIGINT", interrupt);
  try {
    return await client.startTurn({
      ...(typeof input === "string" ? { input } : input),
      ...(permissions ? { permissions } : {}),
      ...(attachments?.length ? { attachments } : {}),
      onEvent: (event) => view.event(event),
      onApproval: approvalPrompt(term, view, reader, interrupt, onUnasked),
      signal: controller.signal,
    }).result;
  } finally {
    process.off("SIGINT", interrupt);
  }
}

/**
 * Ends the view's line, then on a terminal clears the line the terminal may have echoed "^C"
 * on, so the note that follows starts clean.
 */
function freshLine(term: Terminal, view: TurnView): void {
  view.pause();
  if (term.live) term.io.err.write("\r\x1b[2K");
}

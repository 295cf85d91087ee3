import { isRecordStub, type SessionEvent } from "../../client/index.js";
import { fitChars } from "../../protocol/text-cut.js";
import { oneLine } from "../turn/plan-block.js";
import { type ChatState, note } from "./chat-state.js";
import { cutLines } from "./recap.js";

/** Subagents `/agents` lists; past it a note says how many more there were. */
const AGENTS_SHOWN = 50;
/** What one line of an expanded subagent shows of a message, a call's input or its output. */
const CHARS_EACH = 300;
const LINES_EACH = 6;

interface RanSubagent {
  /** The `agent` call's item ID: the subagent's ID (`session.subagent_history`). */
  id: string;
  description: string;
  /** Its call's end: completed, failed, denied, interrupted; null while none is recorded. */
  status: string | null;
}

/**
 * `/agents [n]`: the subagents this session ran, which the turn showed as one folded line each
 * (docs/cli.md, "Subagents"). Without `n`: one numbered line each, its description and how its
 * call ended, read from the session's history. With `n`: that subagent's own history
 * (`session.subagent_history`), its prompt, each of its tool calls with its outcome, and its
 * answer, each cut to a few lines.
 */
export async function agentsChat(state: ChatState, arg: string): Promise<void> {
  if (!state.client.has("subagents")) {
    note(state, "This backend runs no subagents.", "33");
    return;
  }
  const pick = arg === "" ? null : Number(arg);
  if (pick !== null && !(Number.isInteger(pick) && pick >= 1)) {
    note(state, "Usage: /agents [n] (n: a number /agents listed).", "33");
    return;
  }
  const ran = state.saved ? await subagentsOf(state) : [];
  if (ran.length === 0) {
    note(state, "No subagent has run in this session.");
    return;
  }
  if (pick === null) return listSubagents(state, ran);
  const chosen = ran[pick - 1];
  if (!chosen) {
    note(state, `There is no subagent ${pick}; /agents lists ${ran.length}.`, "33");
    return;
  }
  await expandSubagent(state, chosen);
}

/** Every `agent` call of the session's history, in order, with its result's status. */
async function subagentsOf(state: ChatState): Promise<RanSubagent[]> {
  const ran: RanSubagent[] = [];
  const byId = new Map<string, RanSubagent>();
  for await (const page of state.client.history(state.sessionId))
    for (let event of page) {
      if (isRecordStub(event) && event.type === "tool_call")
        event = await state.client.record(state.sessionId, event.index);
      if (event.type === "tool_call" && event.tool === "agent" && typeof event.item_id === "string")
        addCall(ran, byId, event);
      else if (event.type === "tool_result" && typeof event.item_id === "string") {
        const call = byId.get(event.item_id);
        if (call && typeof event.status === "string") call.status = event.status;
      }
    }
  return ran;
}

function addCall(ran: RanSubagent[], byId: Map<string, RanSubagent>, event: SessionEvent): void {
  const input = event.input as { description?: unknown } | undefined;
  const description =
    typeof input?.description === "string" ? input.description : "(no description)";
  const call = {
    id: event.item_id as string,
    description: fitChars(oneLine(description), CHARS_EACH),
    status: null,
  };
  ran.push(call);
  byId.set(call.id, call);
}

function listSubagents(state: ChatState, ran: RanSubagent[]): void {
  const { term } = state;
  for (const [i, call] of ran.slice(0, AGENTS_SHOWN).entries())
    term.note(
      `${String(i + 1).padStart(3)}  ${call.description}  ${term.paintNote(call.status ?? "no result", "2")}`,
    );
  if (ran.length > AGENTS_SHOWN) note(state, `… ${ran.length - AGENTS_SHOWN} more`);
  note(state, "/agents <n> shows what one of them did.");
}

async function expandSubagent(state: ChatState, call: RanSubagent): Promise<void> {
  const { term } = state;
  term.note(term.paintNote(`── subagent: ${call.description} ──`, "2"));
  for await (const page of state.client.subagentHistory(state.sessionId, call.id))
    for (const event of page) {
      const line = shownLine(event);
      if (line !== null) term.note(line);
    }
  term.note(term.paintNote(`── ${call.status ?? "no result"} ──`, "2"));
}

/** One record as a line of the expanded view; null for the records it leaves out. */
function shownLine(event: SessionEvent): string | null {
  // A record over a history page comes as its stub; a subagent's cannot be read whole.
  if (isRecordStub(event)) return `  (a ${event.type} record too long to show here)`;
  switch (event.type) {
    case "user_message":
      return `prompt: ${cut(String(event.text ?? ""))}`;
    case "assistant_message":
      return String(event.text ?? "").trim() === ""
        ? null
        : `answer: ${cut(String(event.text ?? ""))}`;
    case "tool_call":
      return `  • ${oneLine(String(event.tool))} ${fitChars(oneLine(JSON.stringify(event.input ?? {})), CHARS_EACH)}`;
    case "tool_result":
      return `    → ${String(event.status)}${event.output ? `: ${cut(String(event.output))}` : ""}`;
    default:
      return null;
  }
}

/** A history's text cut to a few lines, each shown as plan-block.ts shows a step (no control character reaches the terminal). */
function cut(text: string): string {
  const shown = text.split("\n").map(oneLine).join("\n");
  return cutLines(shown, CHARS_EACH, LINES_EACH, "      ");
}

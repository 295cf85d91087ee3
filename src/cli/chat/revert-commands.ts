import { fitChars } from "../../protocol/text-cut.js";
import { revertFlow } from "../revert/revert-flow.js";
import { type LiveTurn, liveTurns } from "../revert/session-turns.js";
import { type ChatState, note } from "./chat-state.js";

/** Turns /rewind and /fork list (the newest); older ones are still picked by number. */
const TURNS_SHOWN = 30;

/** /undo: the last live turn, through the dry run and a y/n (revert-flow.ts). */
export async function undoLast(state: ChatState): Promise<void> {
  const turns = await turnsOf(state);
  const last = turns.at(-1);
  if (!last) return note(state, "Nothing to undo: this session has no turn left to undo.");
  await undoFrom(state, turns, turns.length - 1);
}

/** /rewind [n]: a numbered list of the session's turns, then the undo of turn n and every later one. */
export async function rewind(state: ChatState, arg: string): Promise<void> {
  const turns = await turnsOf(state);
  if (turns.length === 0) return note(state, "Nothing to rewind: this session has no turn yet.");
  const index = await pickTurn(state, turns, arg, "Rewind to before which turn?");
  if (index !== null) await undoFrom(state, turns, index);
}

/** /fork [n]: a new session holding this one's history (up to and including turn n), switched to. */
export async function fork(state: ChatState, arg: string): Promise<void> {
  const turns = await turnsOf(state);
  if (turns.length === 0) return note(state, "Nothing to fork: this session has no turn yet.");
  let index = turns.length - 1;
  if (arg !== "") {
    const picked = await pickTurn(state, turns, arg, "Fork after which turn?");
    if (picked === null) return;
    index = picked;
  }
  const turnId = arg !== "" ? turns[index]?.id : undefined;
  const source = state.sessionId;
  const result = await state.client.fork(source, turnId ? { turnId } : {});
  state.sessionId = result.session.id;
  state.saved = true;
  // The fork's `turns` counts every turn_start it copied, undone ones too (their `revert`
  // records come along); the turns it carries on with are the live ones up to the cut.
  const live = index + 1;
  const undone = Math.max(0, result.turns - live);
  note(
    state,
    `Forked: now in session ${result.session.id} (${live} turn(s) of ${source}, which stays as it was; "mc-agent resume ${source}" goes back to it).${
      undone > 0
        ? ` Its history also keeps ${undone} undone turn(s), which the model does not see.`
        : ""
    }`,
  );
}

async function turnsOf(state: ChatState): Promise<LiveTurn[]> {
  return state.saved ? liveTurns(state.client, state.sessionId) : [];
}

async function undoFrom(state: ChatState, turns: LiveTurn[], index: number): Promise<void> {
  const turn = turns[index] as LiveTurn;
  const later = turns.length - 1 - index;
  const quoted = `"${fitChars(turn.firstLine, 40)}"`;
  const what =
    later === 0
      ? `turn ${index + 1} (${quoted})`
      : `turn ${index + 1} (${quoted}) and the ${later} after it`;
  const outcome = await revertFlow(
    state.term,
    state.client,
    state.reader,
    state.sessionId,
    turn.id,
    {
      print: (text) => state.term.note(text),
      color: state.term.noteColor,
      what,
    },
  );
  if (outcome === "declined") note(state, "Nothing was undone.");
  if (outcome === "reverted")
    note(
      state,
      "The conversation goes on from before it: the model no longer sees the undone turns.",
    );
}

/** The turn `arg` names (1-based), else a numbered list and a question; null: cancelled. */
async function pickTurn(
  state: ChatState,
  turns: LiveTurn[],
  arg: string,
  question: string,
): Promise<number | null> {
  const chosen = (text: string) => {
    const n = /^\d+$/.test(text) ? Number(text) : 0;
    return n >= 1 && n <= turns.length ? n - 1 : null;
  };
  if (arg !== "") {
    const index = chosen(arg);
    if (index === null)
      note(state, `There is no turn ${fitChars(arg, 20)}: 1 to ${turns.length}.`, "33");
    return index;
  }
  if (!state.reader.interactive) {
    note(state, "No terminal to pick a turn on: name it by number.", "33");
    return null;
  }
  const first = Math.max(0, turns.length - TURNS_SHOWN);
  if (first > 0) state.term.note(`  … turns 1 to ${first} (pick them by number)`);
  for (let i = first; i < turns.length; i++)
    state.term.note(`  ${String(i + 1).padStart(2)}  ${(turns[i] as LiveTurn).firstLine}`);
  for (;;) {
    const answer = await state.reader.ask(`${question} (number; Enter cancels): `);
    if (answer.kind !== "line" || answer.text.trim() === "") return null;
    const index = chosen(answer.text.trim());
    if (index !== null) return index;
    state.term.note(`A number from 1 to ${turns.length}, please.`);
  }
}

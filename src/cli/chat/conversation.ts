import { ClientError } from "../../client/index.js";
import type { TurnCommand } from "../../protocol/schemas/skills.js";
import { reportFailure } from "../failure.js";
import { HumanView } from "../turn/human-view.js";
import { markdownRenderer, type RenderBlock } from "../turn/markdown.js";
import { runTurn } from "../turn/run-turn.js";
import { type ChatState, note, sessionLabel } from "./chat-state.js";
import { customCommand } from "./custom-commands.js";
import { takeImages } from "./image-command.js";
import { liveTurns } from "./live-turns.js";
import { isBuiltIn, parseInput, runCommand } from "./slash-commands.js";

export function greet(state: ChatState): void {
  if (!state.reader.interactive) return;
  const effort = state.effort ? ` (${state.effort})` : "";
  note(
    state,
    `mc-agent chat · ${state.model}${effort} · ${state.permissions ?? "ask"} · ${sessionLabel(state)}\nEnter sends; Alt-Enter or a trailing \\ adds a line; while a turn runs, Enter steers it and Tab queues for after it; /help lists commands; Ctrl-C interrupts a turn; Ctrl-D or /exit quits.`,
  );
}

/** The loop: one message, one turn, until /exit, Ctrl-D or Ctrl-C at an empty prompt. */
export async function converse(state: ChatState): Promise<void> {
  const { term, reader } = state;
  const prompt = term.bold("› ");
  // While a turn runs the input line talks to it (a steer, a queued message): its own prompt.
  const livePrompt = term.bold("» ");
  const markdown = await markdownRenderer(term);
  // What the input line held when the last live turn ended (typed, or a steer handed back).
  let typed = "";
  for (;;) {
    const answer = await reader.ask(prompt, { message: true, initial: typed });
    typed = "";
    if (answer.kind === "end") return;
    if (answer.kind === "interrupt") {
      if (answer.typed === "") return;
      continue; // Ctrl-C with text on the line drops that text, as shells do
    }
    if (answer.text.trim() === "") continue;
    const input = parseInput(answer.text);
    try {
      if (input.kind === "command") {
        // A custom command (docs/skills.md) is a turn the child expands; built-ins win.
        const command = isBuiltIn(input.name) ? null : await customCommand(state, input);
        if (command) await turn(state, { command }, markdown);
        else if (await runCommand(state, input.name, input.arg)) return;
        continue;
      }
      if (!staysLive(state)) {
        await turn(state, input.text, markdown);
        continue;
      }
      const outcome = await liveTurns(state, input.text, markdown, livePrompt);
      if (outcome.ended) return;
      typed = outcome.typed;
    } catch (error) {
      // A refused turn or command (busy, session_locked, …) is reported and the conversation
      // goes on; a child that died or broke the protocol ends it.
      if (error instanceof ClientError) throw error;
      reportFailure(error, term);
    }
  }
}

/** The input line stays live during a turn when it and the output are on a terminal. */
function staysLive(state: ChatState): boolean {
  const { reader, term } = state;
  return reader.area !== null && Boolean(term.io.out.isTTY) && Boolean(term.io.err.isTTY);
}

async function turn(
  state: ChatState,
  input: string | { command: TurnCommand },
  markdown: RenderBlock | null,
): Promise<void> {
  const { term, client, reader, permissions } = state;
  const view = new HumanView(term, { header: false, markdown });
  try {
    const attachments = takeImages(state);
    const result = await runTurn(client, input, { term, view, reader, permissions, attachments });
    state.saved = true;
    view.result(result);
  } finally {
    view.pause();
  }
}

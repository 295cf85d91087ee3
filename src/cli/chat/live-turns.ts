import {
  ClientError,
  type TurnEventParams,
  type TurnHandle,
  type TurnResult,
} from "../../client/index.js";
import { QUEUED_TURNS } from "../../protocol/schemas/steering.js";
import { reportFailure } from "../failure.js";
import { Terminal } from "../terminal.js";
import { approvalPrompt } from "../turn/approval-prompt.js";
import { HumanView } from "../turn/human-view.js";
import type { LiveArea } from "../turn/live-area.js";
import type { RenderBlock } from "../turn/markdown.js";
import type { LiveInput } from "../turn/reader-types.js";
import type { ChatState } from "./chat-state.js";
import { takeImages } from "./image-command.js";
import { oneLine, queuedLines } from "./queued-list.js";
import { parseInput } from "./slash-commands.js";

const INTERRUPTED_EXIT = 130;
/** The live input line has bracketed paste on; an exit in the middle of it turns it off. */
const PASTE_MODE_OFF = "\x1b[?2004l";
const DIM = "2";
const CYAN = "36";
const YELLOW = "33";

/** One message on its way: the turn it is (running, or waiting in the child's queue) and its view. */
interface Entry {
  text: string;
  turn: TurnHandle;
  view: HumanView;
  /** Events that came before the entry became the one on screen (shown when it does). */
  early: TurnEventParams[] | null;
  /** Taken back with Alt-Up while it waited: its answer is not shown. */
  removed: boolean;
}

/** What the chat goes on with: the text left in the composer, and whether the terminal ended. */
export interface LiveOutcome {
  typed: string;
  ended: boolean;
}

/**
 * Runs `first` and every message queued while it runs, with the input line live under the
 * output (docs/cli.md, "Talking to a running turn"): Enter steers the running turn, Tab queues a
 * message in the child's queue (`turn.start` with `queue: true`), Alt-Up takes the newest
 * queued message back into the input line (`turn.interrupt` of the waiting request), Ctrl-C
 * interrupts the running turn. A steer the turn did not take (`undelivered_steers`, or refused)
 * comes back into the input line; so does the text still in it when the last turn ends.
 */
export async function liveTurns(
  state: ChatState,
  first: string,
  markdown: RenderBlock | null,
  prompt: string,
): Promise<LiveOutcome> {
  const { term, reader, client } = state;
  const area = reader.area as LiveArea;
  // Everything the turns show goes above the live input line.
  const shown = new Terminal({
    out: area.stream(term.io.out),
    err: area.stream(term.io.err),
    env: term.io.env,
  });
  const say = (text: string, color: string) => shown.note(shown.paintNote(text, color));
  const queued: Entry[] = [];
  /** Queued messages the child refused: back to the input line when the running turn ends. */
  const backlog: string[] = [];
  let current: Entry;
  let interrupting = false;
  const showQueue = () =>
    area.setStatus(
      queuedLines(
        shown,
        queued.map((e) => e.text),
        area.width(),
      ),
    );
  const interrupt = () => {
    current.view.pause();
    if (interrupting) {
      say("mc-agent: interrupted twice; exiting without waiting for the turn to end.", YELLOW);
      term.io.out.write(PASTE_MODE_OFF);
      process.exit(INTERRUPTED_EXIT);
    }
    interrupting = true;
    say("Interrupting… (Ctrl-C again exits at once)", YELLOW);
    current.turn.interrupt();
  };
  const start = (text: string, queue: boolean): Entry => {
    const view = new HumanView(shown, { header: false, markdown });
    const early: TurnEventParams[] | null = queue ? [] : null;
    const turn = client.startTurn({
      input: text,
      queue,
      ...(state.images.length > 0 ? { attachments: takeImages(state) } : {}),
      ...(state.permissions ? { permissions: state.permissions } : {}),
      onEvent: (event) => (entry.early ? entry.early.push(event) : show(entry, event)),
      onApproval: approvalPrompt(shown, view, reader, interrupt),
    });
    const entry: Entry = { text, view, turn, early, removed: false };
    if (queue)
      entry.turn.result.catch((error: unknown) => {
        // Refused while waiting (busy: the child's queue was full): out of the list, back to the input line.
        const at = queued.indexOf(entry);
        if (at < 0 || error instanceof ClientError) return;
        queued.splice(at, 1);
        showQueue();
        reportFailure(error, shown);
        backlog.push(text);
      });
    return entry;
  };
  const show = (entry: Entry, event: TurnEventParams) => {
    const body = event.event;
    if (body.type === "steer_applied") {
      entry.view.pause();
      say(`  ✓ steer applied: ${oneLine(body.text)}`, DIM);
    } else entry.view.event(event);
  };

  area.begin();
  showQueue();
  current = start(first, false);
  let typed = "";
  let ended = false;
  try {
    for (;;) {
      const turn = current;
      const returned: string[] = [];
      const inflight: Promise<unknown>[] = [];
      const live: LiveInput = {
        onSend: (typed) => {
          const text = messageOf(typed, say);
          if (text === null) return false;
          turn.view.pause();
          say(`steer: ${text}`, CYAN);
          inflight.push(
            turn.turn.steer(text).catch(() => {
              // The turn ended before it took the steer: the text goes back to the input line.
              returned.push(text);
            }),
          );
          return true;
        },
        onQueue: (typed) => {
          const text = messageOf(typed, say);
          if (text === null) return false;
          if (queued.length >= QUEUED_TURNS) {
            say(
              `The queue is full (${QUEUED_TURNS} waiting); the message stays in the input line.`,
              YELLOW,
            );
            return false;
          }
          queued.push(start(text, true));
          showQueue();
          return true;
        },
        onRecall: () => {
          const last = queued.pop();
          if (!last) return null;
          last.removed = true;
          last.turn.interrupt();
          showQueue();
          return last.text;
        },
        onInterrupt: interrupt,
        until: turn.turn.result.catch(() => {}),
      };
      if (!ended) {
        const answer = await reader.askLive(prompt, live, typed);
        if (answer.kind === "end") ended = true;
        else typed = answer.typed;
      }
      const result = await settle(turn, shown);
      await Promise.allSettled(inflight);
      if (result) {
        if (result.turn_id !== null) state.saved = true;
        turn.view.result(result);
      }
      const back = [...(result?.undelivered_steers ?? []).map((s) => s.input), ...returned];
      if (back.length > 0) {
        say(
          `${back.length === 1 ? "A steer was" : `${back.length} steers were`} not delivered before the turn ended: back in the input line.`,
          YELLOW,
        );
        typed = [...back, ...(typed === "" ? [] : [typed])].join("\n");
      }
      typed = [...backlog.splice(0), ...(typed === "" ? [] : [typed])].join("\n");
      // The child started the oldest waiting message when this turn ended.
      const next = queued.shift();
      showQueue();
      if (!next) break;
      current = next;
      interrupting = false;
      say(`› ${next.text}`, "1");
      for (const event of next.early ?? []) show(next, event);
      next.early = null;
    }
  } finally {
    area.end();
  }
  return { typed, ended };
}

/** The turn's result, or null when it was refused (said on one line; the chat goes on). */
async function settle(entry: Entry, shown: Terminal): Promise<TurnResult | null> {
  try {
    return await entry.turn.result;
  } catch (error) {
    if (error instanceof ClientError) throw error;
    entry.view.pause();
    reportFailure(error, shown);
    return null;
  }
}

/**
 * The message a live line sends: "//text" is "/text"; a slash command runs only at the prompt,
 * so it is refused here (null) and stays in the input line for then.
 */
function messageOf(typed: string, say: (text: string, color: string) => void): string | null {
  const input = parseInput(typed);
  if (input.kind === "message") return input.text;
  say(
    `/${input.name} runs at the prompt: it stays in the input line until this turn ends.`,
    YELLOW,
  );
  return null;
}

import type { AgentClient, Capability } from "../../client/index.js";
import type { Parsed } from "../args.js";
import type { Terminal } from "../terminal.js";
import { HistoryFile } from "../turn/history-file.js";
import { lineReader } from "../turn/line-reader.js";
import type { LineReader } from "../turn/reader-types.js";
import { openTurnSession, permissionsOf } from "../turn/turn-session.js";
import { type ChatState, farewell, note } from "./chat-state.js";
import { converse, greet } from "./conversation.js";
import { showRecap } from "./recap.js";
import { PickerQuit } from "./session-picker.js";
import { askTrust } from "./trust-question.js";

/** What the slash commands need besides the turn's own capabilities. */
const CHAT_CAPABILITIES: Capability[] = [
  "session.create",
  "session.open",
  "session.history",
  "session.record",
  "session.discover",
  "operation.cancel",
  "model.select",
  "turn.revert",
  "session.fork",
  // The live input line: Enter steers the running turn, Tab queues in the child (live-turns.ts).
  "turn.steer",
  "turn.queue",
];

/**
 * chat and resume: a reader (with the history file on a terminal), the session (new, named,
 * or picked by `pick`), a recap of a saved one, the loop, and on quitting how to come back.
 */
export async function startChat(
  term: Terminal,
  args: Parsed,
  pick?: (reader: LineReader) => (client: AgentClient) => Promise<string>,
): Promise<number> {
  const permissions = permissionsOf(args.values.permissions);
  const history = HistoryFile.forHome(term.io.env, (text) => term.note(text));
  const reader = lineReader(process.stdin, term.io.out, history);
  try {
    // Ctrl-C at the trust question: 130, as an interrupt exits (docs/cli.md, exit statuses).
    if ((await askTrust(term, reader)) === "interrupted") return 130;
    let opened: Awaited<ReturnType<typeof openTurnSession>>;
    try {
      opened = await openTurnSession(term, {
        ...stringOption("session", args.values.session),
        ...stringOption("model", args.values.model),
        ...stringOption("effort", args.values.effort),
        ...(pick ? { pick: pick(reader) } : {}),
        capabilities: CHAT_CAPABILITIES,
        // /rename, /status's cost and /search: done without against a backend that lacks them.
        // Skills and custom commands (docs/skills.md), images (/image): where the backend has them.
        optional: ["session.manage", "session.search", "skills", "commands", "attachments"],
      });
    } catch (error) {
      if (error instanceof PickerQuit) return 0;
      throw error;
    }
    const { client, ...session } = opened;
    const state: ChatState = { term, client, reader, permissions, images: [], ...session };
    try {
      greet(state);
      if (state.saved && reader.interactive) await showRecap(state);
      await converse(state);
      if (reader.interactive || state.saved) note(state, farewell(state));
      return 0;
    } finally {
      await client.close();
    }
  } finally {
    reader.close();
  }
}

function stringOption<K extends string>(key: K, value: string | boolean | undefined) {
  return typeof value === "string" ? ({ [key]: value } as Record<K, string>) : {};
}

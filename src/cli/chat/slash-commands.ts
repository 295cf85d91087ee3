import type { Capability } from "../../client/index.js";
import { PERMISSIONS } from "../../protocol/schemas/turns.js";
import { shortTime } from "../commands/format.js";
import { listSessions } from "../sessions/session-list.js";
import { agentsChat } from "./agents-command.js";
import { type ChatState, farewell, note, sessionLabel } from "./chat-state.js";
import { listCustomCommands } from "./custom-commands.js";
import { imageCommand } from "./image-command.js";
import { chatStatus, renameChat } from "./manage-commands.js";
import { pickModel } from "./model-picker.js";
import { fork, rewind, undoLast } from "./revert-commands.js";
import { searchChat } from "./search-command.js";

/** What a line of chat input is: a message for the model, or a command the CLI handles. */
type ChatInput = { kind: "message"; text: string } | { kind: "command"; name: string; arg: string };

interface SlashCommand {
  usage: string;
  summary: string;
  /** Listed by /help only when the backend granted it (run says so when it did not). */
  needs?: Capability;
  /** Returns "exit" to end the chat. */
  run(state: ChatState, arg: string): Promise<"exit" | undefined>;
}

/**
 * A one-line input "/word [arg]" is a command, handled here and never sent to the model;
 * "//text" sends "/text"; anything else ("/etc/hosts: what is it?", several lines) is a message.
 */
export function parseInput(input: string): ChatInput {
  const trimmed = input.trim();
  if (trimmed.startsWith("//")) return { kind: "message", text: trimmed.slice(1) };
  const match = /^\/([A-Za-z0-9][A-Za-z0-9_-]*)(?:[ \t]+(.*))?$/.exec(trimmed);
  if (!match) return { kind: "message", text: input };
  return { kind: "command", name: match[1] as string, arg: (match[2] ?? "").trim() };
}

/** Whether `/name` is one of the chat's own commands (they win over custom ones). */
export function isBuiltIn(name: string): boolean {
  return name === "quit" || Object.hasOwn(COMMANDS, name);
}

/** Runs a command; an unknown one says so and lists nothing to the model. */
export async function runCommand(state: ChatState, name: string, arg: string): Promise<boolean> {
  const key = name === "quit" ? "exit" : name;
  const command = Object.hasOwn(COMMANDS, key) ? COMMANDS[key] : undefined;
  if (!command) {
    note(
      state,
      `Unknown command /${name}; /help lists them (begin with "//" to send a message that starts with "/").`,
      "33",
    );
    return false;
  }
  return (await command.run(state, arg)) === "exit";
}

const SESSIONS_SHOWN = 10;

const COMMANDS: Record<string, SlashCommand> = {
  help: {
    usage: "/help",
    summary: "These commands",
    async run(state) {
      for (const command of Object.values(COMMANDS).filter(
        ({ needs }) => needs === undefined || state.client.has(needs),
      ))
        state.term.note(
          `  ${command.usage.padEnd(22)} ${state.term.paintNote(command.summary, "2")}`,
        );
      await listCustomCommands(state);
      note(
        state,
        "Enter sends; Alt-Enter or a line ending in \\ adds a line; a paste keeps all its lines.\nUp/Down recall earlier messages (kept across runs). Ctrl-C interrupts a turn; Ctrl-D quits.\nWhile a turn runs the input line stays live: Enter steers the turn, Tab queues the message for after it, Alt-Up takes the last queued message back to edit.",
      );
      return undefined;
    },
  },
  new: {
    usage: "/new",
    summary: "Start a new session (the current one stays saved)",
    async run(state) {
      note(state, farewell(state));
      const { session } = await state.client.call("session.create", {});
      state.sessionId = session.id;
      state.saved = false;
      note(state, sessionLabel(state));
      return undefined;
    },
  },
  model: {
    usage: "/model [id [effort]]",
    summary: "Pick the model for the next turns (from the catalog)",
    async run(state, arg) {
      await pickModel(state, arg);
      return undefined;
    },
  },
  image: {
    needs: "attachments",
    usage: "/image <file>",
    summary: "Send an image with your next message (/image clear drops them)",
    async run(state, arg) {
      imageCommand(state, arg);
      return undefined;
    },
  },
  permissions: {
    usage: "/permissions [mode]",
    summary: `Show or set what turns may do: ${PERMISSIONS.join(", ")}`,
    async run(state, arg) {
      if (arg === "") {
        note(
          state,
          `Permissions: ${state.permissions ?? "ask"}. Set with /permissions <${PERMISSIONS.join("|")}>.`,
        );
        return undefined;
      }
      const known: readonly string[] = PERMISSIONS;
      if (!known.includes(arg)) {
        note(state, `"${arg}" is not one of ${PERMISSIONS.join(", ")}; unchanged.`, "33");
        return undefined;
      }
      state.permissions = arg as ChatState["permissions"];
      note(state, `Permissions: ${arg} from the next turn on.`);
      return undefined;
    },
  },
  sessions: {
    usage: "/sessions",
    summary: "This folder's saved sessions, newest first",
    async run(state) {
      const { sessions } = await listSessions(state.term, state.client);
      if (sessions.length === 0) note(state, "No saved sessions for this folder yet.");
      for (const s of sessions.slice(0, SESSIONS_SHOWN)) {
        const mark = s.id === state.sessionId ? "*" : " ";
        state.term.note(`${mark} ${s.id}  ${shortTime(s.updated_at)}  ${s.title ?? "(untitled)"}`);
      }
      if (sessions.length > SESSIONS_SHOWN)
        note(state, `… ${sessions.length - SESSIONS_SHOWN} more ("mc-agent sessions --all")`);
      if (sessions.length > 0) note(state, 'Continue one later with "mc-agent resume <id>".');
      return undefined;
    },
  },
  search: {
    needs: "session.search",
    usage: "/search <text>",
    summary: "Find this folder's sessions that mention a text, and open one",
    async run(state, arg) {
      await searchChat(state, arg);
      return undefined;
    },
  },
  agents: {
    needs: "subagents",
    usage: "/agents [n]",
    summary: "The subagents this session ran; with n, what that one did",
    async run(state, arg) {
      await agentsChat(state, arg);
      return undefined;
    },
  },
  rename: {
    needs: "session.manage",
    usage: "/rename <title>",
    summary: "Give this session a title (what session lists show)",
    async run(state, arg) {
      await renameChat(state, arg.trim());
      return undefined;
    },
  },
  status: {
    usage: "/status",
    summary: "This session, model and permissions, and what it cost so far",
    async run(state) {
      await chatStatus(state);
      return undefined;
    },
  },
  undo: {
    usage: "/undo",
    summary: "Undo the last turn: its file changes (shell's too) and its place in the context",
    async run(state) {
      await undoLast(state);
      return undefined;
    },
  },
  rewind: {
    usage: "/rewind [n]",
    summary: "Undo back to before turn n (picked from a list) and every later turn",
    async run(state, arg) {
      await rewind(state, arg);
      return undefined;
    },
  },
  fork: {
    usage: "/fork [n]",
    summary: "Continue in a copy of this session (whole, or up to turn n); this one stays",
    async run(state, arg) {
      await fork(state, arg);
      return undefined;
    },
  },
  compact: {
    usage: "/compact",
    summary: "Compact the context now, where the backend offers it",
    async run(state) {
      note(
        state,
        "This backend offers no compaction on demand; it compacts a turn's context by itself when the model's window fills.",
      );
      return undefined;
    },
  },
  exit: {
    usage: "/exit",
    summary: "Quit (also /quit, Ctrl-D)",
    async run() {
      return "exit";
    },
  },
};

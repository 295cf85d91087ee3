import { startChat } from "../chat/start-chat.js";
import type { Command } from "../command.js";
import { TURN_OPTIONS, TURN_OPTIONS_HELP } from "../turn/turn-session.js";

export const chatCommand: Command = {
  spec: {
    usage: "mc-agent chat [options]",
    summary: "Talk with the agent in the current folder: each message you send is one turn.",
    help: [
      "Options:",
      ...TURN_OPTIONS_HELP,
      "  -h, --help",
      "",
      "All turns go to one session (new unless --session). Enter sends; Alt-Enter or a line",
      "ending in \\ adds a line, and a paste keeps every line (bracketed paste). Up/Down recall",
      "earlier messages, kept across runs in MC_HOME/chat-history.jsonl. Edits and commands",
      "need your approval under --permissions ask: one key, y once, a for the session, n deny,",
      "w always in this folder, x never (kept rules: mc-agent rules).",
      "Slash commands run here and never reach the model: /help, /new, /model, /permissions,",
      '/undo, /rewind [n], /fork [n] (docs/cli.md "Undo, rewind and fork"),',
      "/sessions, /compact, /exit. Ctrl-C during a turn interrupts it; Ctrl-C or Ctrl-D at an",
      'empty prompt, or /exit, quits and prints the "mc-agent resume <id>" that continues it.',
    ].join("\n"),
    options: TURN_OPTIONS,
  },
  run: (args, term) => startChat(term, args),
};

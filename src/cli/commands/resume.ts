import { UsageError } from "../args.js";
import { sessionPicker } from "../chat/session-picker.js";
import { startChat } from "../chat/start-chat.js";
import type { Command } from "../command.js";
import { TURN_OPTIONS, TURN_OPTIONS_HELP } from "../turn/turn-session.js";

const { session: _session, ...OPTIONS } = TURN_OPTIONS;

export const resumeCommand: Command = {
  spec: {
    usage: "mc-agent resume [--last | <id>] [options]",
    summary: "Continue a saved session of the current folder in a chat.",
    help: [
      "Options:",
      "  --last             The most recently updated session, without asking",
      ...TURN_OPTIONS_HELP.filter((line) => !/--session|it\); default: a new one/.test(line)),
      "  -h, --help",
      "",
      "Without --last or an ID, a picker lists this folder's sessions, newest first, with their",
      "titles and times: type a number or the start of an ID. An ID may be shortened to any",
      "start that only one session of this folder has. The chat shows the last few exchanges,",
      'then goes on as "mc-agent chat" does.',
    ].join("\n"),
    options: { ...OPTIONS, last: { type: "boolean" } },
    optional: "id",
  },
  run(args, term) {
    const [id] = args.positionals;
    const last = args.values.last === true;
    if (last && id !== undefined) throw new UsageError("--last and an ID do not go together");
    if (id !== undefined)
      return startChat(term, { ...args, values: { ...args.values, session: id } });
    return startChat(term, args, (reader) => sessionPicker(term, reader, last));
  },
};

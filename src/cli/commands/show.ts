import type { SessionEvent } from "../../client/index.js";
import type { Command } from "../command.js";
import { connect, interruptible } from "../connect.js";
import { plainLength, type Terminal } from "../terminal.js";
import { shortTime } from "./format.js";

export const showCommand: Command = {
  spec: {
    usage: "mc-agent show <id> [--json]",
    summary: "Open one session of the current folder exactly and print its history.",
    help: [
      "Options:",
      "  --json    Print the session and its events as JSON lines",
      "  -h, --help",
      "",
      "The backend revalidates the session (ownership, history, folder) before anything is",
      'shown. Get IDs from "mc-agent sessions".',
    ].join("\n"),
    options: { json: { type: "boolean" } },
    positionals: ["id"],
  },
  async run(args, term) {
    const id = args.positionals[0] as string;
    const client = await connect(term, ["session.open", "session.history", "operation.cancel"]);
    try {
      await interruptible(term, async (signal) => {
        const session = await client.open(id, { signal });
        if (args.values.json) term.line(JSON.stringify({ session }));
        else {
          term.line(term.bold(session.title ?? "(untitled)"));
          const verified = session.cwd === "verified" ? "" : "  (folder unverified)";
          const busy = session.busy ? "  busy" : "";
          term.line(
            term.dim(
              `${session.id}  ${shortTime(session.created_at)} – ${shortTime(session.updated_at)}${busy}${verified}`,
            ),
          );
          term.line();
        }
        // Page by page: each page is printed as it arrives.
        for await (const events of client.history(id, { signal }))
          for (const event of events)
            if (args.values.json) term.line(JSON.stringify({ event }));
            else for (const line of render(term, event)) term.line(line);
      });
      return 0;
    } finally {
      await client.close();
    }
  },
};

function render(term: Terminal, event: SessionEvent): string[] {
  const time = term.dim(shortTime(event.ts).slice(11) || "     ");
  const text = (key: string) => (typeof event[key] === "string" ? (event[key] as string) : "");
  switch (event.type) {
    case "user_message":
      return block(time, term.bold("you"), text("text"));
    case "assistant_message": {
      const model = text("model") ? term.dim(`  [${text("model")}]`) : "";
      return block(time, term.green("assistant"), text("text") + model);
    }
    case "title":
      return [`${time}  ${term.dim(`title: ${text("title")}`)}`];
    case "mode":
      return [`${time}  ${term.dim(`mode: ${text("mode")}`)}`];
    case "model": {
      const effort = text("effort") ? ` (${text("effort")})` : "";
      return [`${time}  ${term.dim(`model: ${text("model")}${effort}`)}`];
    }
    case "session_meta":
      return [`${time}  ${term.dim("session started")}`];
    default:
      return [`${time}  ${term.dim(`[${event.type}]`)}`];
  }
}

/** A speaker line, with continuation lines indented under the text. */
function block(time: string, who: string, body: string): string[] {
  const [first = "", ...rest] = body.split("\n");
  const prefix = `${time}  ${who}: `;
  const pad = " ".repeat(plainLength(prefix));
  return [`${prefix}${first}`, ...rest.map((line) => `${pad}${line}`)];
}

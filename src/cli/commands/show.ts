import { isRecordStub, type SessionEvent } from "../../client/index.js";
import { fitChars } from "../../protocol/text-cut.js";
import type { Command } from "../command.js";
import { connect, interruptible } from "../connect.js";
import { resolveSessionRef } from "../sessions/session-ref.js";
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
      'shown. Get IDs from "mc-agent sessions"; a unique start of an ID is enough.',
    ].join("\n"),
    options: { json: { type: "boolean" } },
    positionals: ["id"],
  },
  async run(args, term) {
    const client = await connect(term, [
      "session.discover",
      "session.open",
      "session.history",
      "session.record",
      "operation.cancel",
    ]);
    try {
      const id = await resolveSessionRef(term, client, args.positionals[0] as string);
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
        // Page by page: each page is printed as it arrives; a record too long for a page comes
        // as its stub and is read whole (session.record).
        for await (const events of client.history(id, { signal }))
          for (const stored of events) {
            const event = isRecordStub(stored)
              ? await client.record(id, stored.index, { signal })
              : stored;
            if (args.values.json) term.line(JSON.stringify({ event }));
            else for (const line of render(term, event)) term.line(line);
          }
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
      // A step that only called tools has no text: its calls follow on their own lines.
      if (text("text") === "" && event.interrupted !== true) return [];
      const model = text("model") ? term.dim(`  [${text("model")}]`) : "";
      const cut = event.interrupted === true ? term.yellow(" (interrupted)") : "";
      return block(time, term.green("assistant"), text("text") + cut + model);
    }
    case "turn_start":
    case "tool_call":
    case "tool_result":
    case "turn_end":
    case "compaction":
      // Only this backend's turn records (they carry turn_id); other writers' stay opaque.
      if (typeof event.turn_id === "string") return [`${time}  ${turnRecord(term, event, text)}`];
      return [`${time}  ${term.dim(`[${event.type}]`)}`];
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

/** The records a turn writes (docs/turns.md), one short line each. */
function turnRecord(term: Terminal, event: SessionEvent, text: (key: string) => string): string {
  switch (event.type) {
    case "turn_start": {
      const effort = text("effort") ? ` (${text("effort")})` : "";
      return term.dim(`turn · ${text("model")}${effort} · ${text("permissions")}`);
    }
    case "tool_call": {
      const input = JSON.stringify(event.input ?? {});
      return term.dim(`▸ ${text("tool")} ${fitChars(input, 80)}`);
    }
    case "tool_result": {
      const exit = typeof event.exit_code === "number" ? ` (exit ${event.exit_code})` : "";
      return term.dim(`↳ ${text("status")}${exit}`);
    }
    case "turn_end": {
      const usage = event.usage as { input_tokens?: number; output_tokens?: number } | undefined;
      const tokens = usage
        ? ` · ${usage.input_tokens ?? 0} in / ${usage.output_tokens ?? 0} out tokens`
        : "";
      const stop = text("stop_reason") === text("status") ? "" : text("stop_reason");
      const why = text("error_code") || stop;
      const line = `turn ${text("status")}${why ? ` (${why})` : ""}${tokens}`;
      const status = text("status");
      return status === "completed"
        ? term.dim(line)
        : status === "failed"
          ? term.red(line)
          : term.yellow(line);
    }
    default:
      return term.dim(`context compacted (${String(event.tokens_before ?? "?")} tokens before)`);
  }
}

/** A speaker line, with continuation lines indented under the text. */
function block(time: string, who: string, body: string): string[] {
  const [first = "", ...rest] = body.split("\n");
  const prefix = `${time}  ${who}: `;
  const pad = " ".repeat(plainLength(prefix));
  return [`${prefix}${first}`, ...rest.map((line) => `${pad}${line}`)];
}

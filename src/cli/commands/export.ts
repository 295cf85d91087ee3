import { writeFileSync } from "node:fs";
import { isRecordStub, type SessionEvent } from "../../client/index.js";
import { UsageError } from "../args.js";
import type { Command } from "../command.js";
import { connect, interruptible } from "../connect.js";
import { toHtml } from "../export/html.js";
import { toMarkdown } from "../export/markdown.js";
import { partsOf } from "../export/transcript.js";
import { resolveSessionRef } from "../sessions/session-ref.js";

const FORMATS = ["md", "html", "json"] as const;

export const exportCommand: Command = {
  spec: {
    usage: "mc-agent export <id> [--format md|html|json] [-o <file>]",
    summary:
      "Write a session of this folder as Markdown, one self-contained HTML page, or its raw records.",
    help: [
      "Options:",
      "  --format <f>        md (default), html (one page, no script, tool calls folded, diffs",
      "                      shown) or json (the raw records, one JSON object a line)",
      "  -o, --output <file> Write there instead of stdout",
      "  -h, --help",
      "",
      "Read through session.history (and session.record for records over a page): the backend",
      "revalidates the session first. An archived session is named by its exact ID.",
    ].join("\n"),
    options: { format: { type: "string" }, output: { type: "string", short: "o" } },
    positionals: ["id"],
  },
  async run(args, term) {
    const format = (args.values.format ?? "md") as string;
    if (!(FORMATS as readonly string[]).includes(format))
      throw new UsageError("--format must be md, html or json");
    const client = await connect(term, [
      "session.discover",
      "session.open",
      "session.history",
      "session.record",
      "session.manage",
      "operation.cancel",
    ]);
    try {
      const id = await resolveSessionRef(term, client, args.positionals[0] as string);
      const text = await interruptible(term, async (signal) => {
        const events: SessionEvent[] = [];
        for await (const page of client.history(id, { signal }))
          for (const stored of page)
            events.push(
              isRecordStub(stored) ? await client.record(id, stored.index, { signal }) : stored,
            );
        if (format === "json") return events.map((e) => `${JSON.stringify(e)}\n`).join("");
        const session = sessionEntry(id, events);
        const transcript = { session, parts: partsOf(events) };
        return format === "html" ? toHtml(transcript) : toMarkdown(transcript);
      });
      const output = args.values.output;
      if (typeof output === "string") writeFileSync(output, text);
      else term.io.out.write(text);
      return 0;
    } finally {
      await client.close();
    }
  },
};

/** The session's listing entry, from its records (an archived one is not listed). */
function sessionEntry(id: string, events: SessionEvent[]): Parameters<typeof toHtml>[0]["session"] {
  const titles = events.filter(
    (e) => e.type === "title" && typeof (e as { title?: unknown }).title === "string",
  );
  const firstUser = events.find((e) => e.type === "user_message") as { text?: string } | undefined;
  const last = titles.at(-1) as { title?: string } | undefined;
  return {
    id,
    title: last?.title ?? firstUser?.text?.split("\n")[0]?.slice(0, 80) ?? null,
    created_at: events[0]?.ts ?? null,
    updated_at: events.at(-1)?.ts ?? null,
    busy: false,
    cwd: "verified",
    open: "exact",
  };
}

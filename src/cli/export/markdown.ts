import { type Transcript, toolLine } from "./transcript.js";

/** A fence longer than any backtick run in `text`, so the text cannot close it. */
function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return "`".repeat(longest + 1);
}

function block(text: string, lang = ""): string {
  const f = fence(text);
  return `${f}${lang}\n${text.replace(/\n$/, "")}\n${f}`;
}

/**
 * The conversation as Markdown: messages as sections, each tool call a folded `<details>` with
 * its input (or the diff of an edit) and its output, turn costs as notes.
 */
export function toMarkdown({ session, parts }: Transcript): string {
  const out = [
    `# ${session.title ?? "(untitled)"}`,
    "",
    `Session \`${session.id}\`, ${session.created_at ?? "?"} – ${session.updated_at ?? "?"}`,
    "",
  ];
  for (const part of parts) {
    switch (part.kind) {
      case "user":
        out.push("## You", "", part.text, "");
        break;
      case "assistant":
        out.push(`## Assistant${part.model ? ` (${part.model})` : ""}`, "", part.text, "");
        break;
      case "tool":
        out.push("<details>", `<summary>${escapeHtml(toolLine(part))}</summary>`, "");
        out.push(
          part.diff !== null
            ? block(part.diff, "diff")
            : block(JSON.stringify(part.input, null, 2), "json"),
        );
        if (part.output !== null) out.push("", block(part.output));
        out.push("", "</details>", "");
        break;
      case "turn_end":
        out.push(
          `_Turn ${part.status}${part.cost === null ? "" : `, $${part.cost.toFixed(4)}`}._`,
          "",
        );
        break;
      case "title":
        out.push(`_Renamed: ${part.title}_`, "");
        break;
      case "compaction":
        out.push(
          "<details>",
          "<summary>Compacted context</summary>",
          "",
          part.summary,
          "",
          "</details>",
          "",
        );
        break;
    }
  }
  return `${out.join("\n").trimEnd()}\n`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

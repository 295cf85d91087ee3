import { escapeHtml } from "./markdown.js";
import { markdownHtml } from "./markdown-html.js";
import { type Transcript, toolLine } from "./transcript.js";

const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f;background:#fff}
h1{font-size:1.4rem;margin-bottom:.2rem}.meta{color:#666;font-size:.85rem;margin-bottom:1.5rem}
.msg{margin:1rem 0;padding:.6rem .9rem;border-radius:8px;white-space:pre-wrap;overflow-wrap:anywhere}
.md{white-space:normal}.md>:last-child{margin-bottom:0}.md p{margin:.4rem 0}.md code{font-family:ui-monospace,monospace;font-size:.85em}
.md table{border-collapse:collapse}.md th,.md td{border:1px solid #ccc;padding:.2rem .5rem}.md blockquote{margin:.4rem 0;padding-left:.8rem;border-left:3px solid #ccc;color:#555}
.user{background:#eef4ff}.assistant{background:#f6f6f6}.who{font-weight:600;font-size:.8rem;color:#555;margin-bottom:.3rem}
details{margin:.5rem 0;border:1px solid #ddd;border-radius:6px;padding:.3rem .6rem}
summary{cursor:pointer;font-family:ui-monospace,monospace;font-size:.85rem}
pre{background:#fafafa;padding:.5rem;overflow-x:auto;font-size:.8rem;white-space:pre-wrap;overflow-wrap:anywhere}
.add{color:#116329;background:#dafbe1;display:block}.del{color:#82071e;background:#ffebe9;display:block}
.hunk{color:#666;display:block}.note{color:#777;font-size:.8rem;font-style:italic}
@media (prefers-color-scheme:dark){body{background:#111;color:#ddd}.user{background:#1b2636}.assistant{background:#1d1d1d}pre{background:#181818}}
`;

function diffHtml(diff: string): string {
  const lines = diff.split("\n").map((line) => {
    const cls =
      line.startsWith("+++") || line.startsWith("---")
        ? "hunk"
        : line.startsWith("+")
          ? "add"
          : line.startsWith("-")
            ? "del"
            : "";
    return `<span${cls ? ` class="${cls}"` : ""}>${escapeHtml(line)}</span>`;
  });
  return `<pre>${lines.join("")}</pre>`;
}

/**
 * One self-contained HTML page (no script, no request: inline CSS only): messages as blocks (an
 * assistant's Markdown rendered, safely: markdown-html.ts),
 * each tool call folded in `<details>` with the diff of an edit shown in color, turn costs as
 * notes. Every text is escaped; the page reads the same offline.
 */
export function toHtml({ session, parts }: Transcript): string {
  const title = escapeHtml(session.title ?? "(untitled)");
  const body: string[] = [
    `<h1>${title}</h1>`,
    `<div class="meta">Session ${escapeHtml(session.id)} · ${escapeHtml(session.created_at ?? "?")} – ${escapeHtml(session.updated_at ?? "?")}</div>`,
  ];
  for (const part of parts) {
    switch (part.kind) {
      case "user":
        body.push(`<div class="msg user"><div class="who">You</div>${escapeHtml(part.text)}</div>`);
        break;
      case "assistant": {
        // The model writes Markdown: rendered, its raw HTML shown as text (markdown-html.ts).
        const who = `Assistant${part.model ? ` · ${part.model}` : ""}`;
        body.push(
          `<div class="msg assistant md"><div class="who">${escapeHtml(who)}</div>${markdownHtml(part.text)}</div>`,
        );
        break;
      }
      case "tool": {
        const inner =
          part.diff !== null
            ? diffHtml(part.diff)
            : `<pre>${escapeHtml(JSON.stringify(part.input, null, 2))}</pre>`;
        const output = part.output === null ? "" : `<pre>${escapeHtml(part.output)}</pre>`;
        body.push(
          `<details><summary>${escapeHtml(toolLine(part))}</summary>${inner}${output}</details>`,
        );
        break;
      }
      case "turn_end":
        body.push(
          `<div class="note">Turn ${escapeHtml(part.status)}${part.cost === null ? "" : `, $${part.cost.toFixed(4)}`}</div>`,
        );
        break;
      case "title":
        body.push(`<div class="note">Renamed: ${escapeHtml(part.title)}</div>`);
        break;
      case "compaction":
        body.push(
          `<details><summary>Compacted context</summary><pre>${escapeHtml(part.summary)}</pre></details>`,
        );
        break;
    }
  }
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"><title>${title}</title><style>${STYLE}</style></head><body>\n${body.join("\n")}\n</body></html>\n`;
}

import { randomUUID } from "node:crypto";
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";

/**
 * Big histories made of real turn records (issue 44, "Opening a big history"): a short session
 * our child really ran (bench/soak.ts: user messages, tool calls, their output, 2 KB answers,
 * compactions) is its template; its whole turns are written again and again, each copy's turn
 * IDs (and the item IDs made of them) fresh, under one `session_meta` of the new session, until
 * the file reaches its size. So the file is what a session that long would have written, every
 * record one the store's rules accept.
 */

/** A template's turns as text with their turn IDs cut out, to be joined with fresh ones. */
interface Template {
  /** The text between the turn IDs: `pieces[i]`, then a turn ID, then `pieces[i + 1]`, ... */
  pieces: string[];
  /** For each cut, which of the template's turns its ID was (an index into one copy's IDs). */
  slots: number[];
  turns: number;
}

const TURN_ID = /t-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** The template's complete turns (up to its last `turn_end`), its cwd made `cwd`. */
function templateOf(path: string, cwd: string): Template {
  const lines = readFileSync(path, "utf8").split("\n");
  const meta = JSON.parse(lines[0] ?? "{}") as { cwd?: string };
  let end = lines.length - 1;
  while (end > 0 && !(lines[end] ?? "").startsWith('{"type":"turn_end"')) end -= 1;
  const body = `${lines.slice(1, end + 1).join("\n")}\n`.split(`"cwd":${JSON.stringify(meta.cwd)}`);
  const text = body.join(`"cwd":${JSON.stringify(cwd)}`);
  const ids = new Map<string, number>();
  const pieces: string[] = [];
  const slots: number[] = [];
  let at = 0;
  for (const match of text.matchAll(TURN_ID)) {
    pieces.push(text.slice(at, match.index));
    if (!ids.has(match[0])) ids.set(match[0], ids.size);
    slots.push(ids.get(match[0]) as number);
    at = (match.index ?? 0) + match[0].length;
  }
  pieces.push(text.slice(at));
  return { pieces, slots, turns: ids.size };
}

/**
 * Writes session `id`'s history to `out` (at least `bytes` long, whole turns), from the
 * history at `templatePath`, for the workspace `cwd`. Returns the bytes written.
 */
export function writeBigHistory(
  templatePath: string,
  out: string,
  id: string,
  cwd: string,
  bytes: number,
): number {
  const template = templateOf(templatePath, cwd);
  const fd = openSync(out, "w", 0o600);
  try {
    const ts = new Date().toISOString();
    let written = writeSync(fd, `${JSON.stringify({ type: "session_meta", ts, cwd, id })}\n`);
    const chunk: string[] = [];
    let chunkChars = 0;
    const flush = () => {
      written += writeSync(fd, chunk.join(""));
      chunk.length = 0;
      chunkChars = 0;
    };
    while (written + chunkChars < bytes) {
      const fresh = Array.from({ length: template.turns }, () => `t-${randomUUID()}`);
      for (let i = 0; i < template.slots.length; i += 1) {
        chunk.push(template.pieces[i] as string, fresh[template.slots[i] as number] as string);
        chunkChars += (template.pieces[i] as string).length + 38;
      }
      const last = template.pieces[template.pieces.length - 1] as string;
      chunk.push(last);
      chunkChars += last.length;
      if (chunkChars > 8 * 1_048_576) flush();
    }
    flush();
    return written;
  } finally {
    closeSync(fd);
  }
}

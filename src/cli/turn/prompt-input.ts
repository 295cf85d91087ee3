import { fstatSync } from "node:fs";
import { TURN_EXTENSION } from "../../protocol/schemas/turns.js";
import { UsageError } from "../args.js";

/**
 * The prompt of `exec`: its words joined by spaces; with no words, or the single word "-", all
 * of a piped stdin (`git diff | mc-agent exec`); with words and a piped stdin, the words then
 * stdin as context inside `<stdin>` … `</stdin>` (`cat log | mc-agent exec "why does it fail?"`).
 * Checked here against the turn extension's input bound so a long or empty prompt is a usage
 * error naming the bound, not a protocol refusal.
 */
export async function promptInput(
  words: string[],
  stdin: NodeJS.ReadableStream & { fd?: number; isTTY?: boolean },
  limit: number = TURN_EXTENSION.input_bytes,
): Promise<string> {
  const dash = words.length === 1 && words[0] === "-";
  const piped = dash || stdinIsPiped(stdin);
  const given = dash ? "" : words.join(" ");
  const read = piped ? await readBounded(stdin, limit) : "";
  if (given === "" && !piped) throw new UsageError("missing <prompt> (or pipe it on stdin)");
  const text = given === "" ? read : read.trim() === "" ? given : withContext(given, read);
  if (text.trim() === "") throw new UsageError("the prompt is empty");
  const bytes = Buffer.byteLength(text);
  if (bytes > limit)
    throw new UsageError(`the prompt is over ${limit} bytes (the backend's input_bytes)`);
  return text;
}

/** The prompt's words, then what came on stdin, marked off so the model tells them apart. */
function withContext(prompt: string, piped: string): string {
  return `${prompt}\n\n<stdin>\n${piped.replace(/\n$/, "")}\n</stdin>`;
}

/**
 * Whether stdin carries input: a pipe, a file or a socket (a spawning program's pipe). Not a
 * terminal, and not a character device such as /dev/null (`< /dev/null` is how a script says
 * "no input", and a cron job's stdin is one).
 */
function stdinIsPiped(stdin: { fd?: number; isTTY?: boolean }): boolean {
  if (stdin.isTTY) return false;
  try {
    const stat = fstatSync(stdin.fd ?? 0);
    return stat.isFIFO() || stat.isFile() || stat.isSocket();
  } catch {
    return false; // no stdin at all (closed descriptor)
  }
}

/** Reads at most `limit` + 1 bytes: enough to know the input is too long, never more. */
async function readBounded(stdin: NodeJS.ReadableStream, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const piece = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    chunks.push(piece);
    size += piece.length;
    if (size > limit) break;
  }
  return Buffer.concat(chunks)
    .subarray(0, limit + 1)
    .toString("utf8");
}

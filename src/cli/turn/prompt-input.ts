import { TURN_EXTENSION } from "../../protocol/schemas/turns.js";
import { UsageError } from "../args.js";

/**
 * The prompt of `exec`: its words joined by spaces, or with the single word "-" all of stdin
 * (`git diff | mc-agent exec -`). Checked here against the turn extension's input bound so a
 * long or empty prompt is a usage error naming the bound, not a protocol refusal.
 */
export async function promptInput(
  words: string[],
  stdin: NodeJS.ReadableStream,
  limit: number = TURN_EXTENSION.input_bytes,
): Promise<string> {
  const text =
    words.length === 1 && words[0] === "-" ? await readBounded(stdin, limit) : words.join(" ");
  if (text.trim() === "") throw new UsageError("the prompt is empty");
  const bytes = Buffer.byteLength(text);
  if (bytes > limit)
    throw new UsageError(`the prompt is over ${limit} bytes (the backend's input_bytes)`);
  return text;
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

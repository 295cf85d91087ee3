/**
 * What to do with a server's line past the line bound (line-reader.ts): when it is the answer to
 * one of our requests (a tool call's 20 MB result), that request alone fails, with an error
 * response made here in its place (`RESULT_TOO_LARGE`), and the server is kept; anything else
 * is dropped. Only the line's first and last bytes are seen, so the request's id is looked for
 * where JSON-RPC answers put it: at the end (`{"result":...,"jsonrpc":"2.0","id":7}`, the SDK's
 * own servers) or at the start (`{"jsonrpc":"2.0","id":7,"result":...}`). A line whose top
 * level starts with `method` is a request or a notification of the server's, never an answer.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** The JSON-RPC error code of the answer made for an oversized one (implementation range). */
export const RESULT_TOO_LARGE = -32090;

const ID = String.raw`("(?:[^"\\]|\\.){0,256}"|-?\d{1,16})`;
/** `"id": <id>` as the last member of the top-level object. */
const ID_AT_END = new RegExp(String.raw`"id"\s*:\s*${ID}\s*\}\s*$`);
/** `"id": <id>` as the first or second member, followed by `result` or `error`. */
const ID_AT_START = new RegExp(
  String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}\s*,\s*"(?:result|error)"\s*:`,
);
const METHOD_FIRST = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"method"\s*:/;

/** The error answer standing in for an oversized answer, or null when it was none. */
export function oversizedAnswer(head: string, tail: string, bytes: number): JSONRPCMessage | null {
  if (METHOD_FIRST.test(head)) return null;
  const found = ID_AT_START.exec(head) ?? ID_AT_END.exec(tail);
  if (!found) return null;
  let id: string | number;
  try {
    id = JSON.parse(found[1] as string) as string | number;
  } catch {
    return null;
  }
  return {
    jsonrpc: "2.0",
    id,
    error: { code: RESULT_TOO_LARGE, message: `the answer was ${bytes} bytes, over the bound` },
  };
}

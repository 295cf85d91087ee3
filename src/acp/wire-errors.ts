/**
 * The error data of every error the agent writes, normalised on the encoded line.
 */
import type { AnyMessage } from "@agentclientprotocol/sdk";
import type { ErrorCode } from "../protocol/codes.js";

/** Our code for a JSON-RPC error the SDK produced itself (a bad frame, params off its schema). */
const OURS: Record<number, ErrorCode> = {
  [-32700]: "invalid_request",
  [-32600]: "invalid_request",
  [-32601]: "method_not_found",
  [-32602]: "invalid_params",
  [-32603]: "internal_error",
};

/**
 * Every error the agent writes carries our code in `data`, and nothing else there: the SDK's
 * own errors put the offending frame or its schema issues in `data`, which may hold whatever the
 * client sent (paths, text, keys), and our errors never echo input (docs/acp.md, "Errors").
 */
function withOurErrorData(message: AnyMessage): AnyMessage {
  if (!("error" in message) || !message.error) return message;
  const data = message.error.data as { code?: unknown } | undefined;
  if (data && typeof data.code === "string" && Object.keys(data).length === 1) return message;
  const code = OURS[message.error.code] ?? "internal_error";
  return { ...message, error: { ...message.error, data: { code } } };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/**
 * The marker of an error response in an encoded line. Inside a JSON string a quote is always
 * escaped, so this cannot appear in a message's text: lines without it (every update, every
 * result) pass untouched, without being parsed again.
 */
const ERROR_MARK = encoder.encode('"error":');

/**
 * One line the SDK encoded (it writes each message as one chunk, LF included), with
 * `withOurErrorData` applied when it is an error response. This sits below the SDK's own
 * writes, so the errors it writes without passing through the connection (a line that is no
 * JSON, a JSON value that is no object) are covered too.
 */
export function normaliseLine(line: Uint8Array): Uint8Array {
  if (Buffer.from(line.buffer, line.byteOffset, line.byteLength).indexOf(ERROR_MARK) === -1)
    return line;
  let message: AnyMessage;
  try {
    message = JSON.parse(decoder.decode(line)) as AnyMessage;
  } catch {
    return line;
  }
  return encoder.encode(`${JSON.stringify(withOurErrorData(message))}\n`);
}

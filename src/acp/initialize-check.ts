/**
 * The starter's hand check of an editor's first line (starter.ts): an `initialize` request the
 * SDK takes and answers with the result initialize-answer.ts builds, and what that result
 * depends on in its params. zod's schema of the request (the SDK's `zInitializeRequest`)
 * refuses only a `protocolVersion` that is not an integer from 0 to 65535 (every other field
 * falls back to its default when it is off its schema), and the answer reads only
 * `clientCapabilities.auth.terminal`. Anything this leaves out is the SDK's to answer, as if
 * the starter were not there. test/acp/initialize-check.test.ts holds this to the SDK's schema.
 */

/** An initialize the starter may answer: its request ID, and whether terminal auth is offered. */
export interface PlainInitialize {
  id: string | number;
  terminal: boolean;
}

type JsonObject = { [key: string]: unknown };

/** An object as zod's `z.object` takes one (JSON gives no other kind but arrays). */
function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The line as the SDK's NDJSON stream reads it (decoded, trimmed, parsed), when it is a JSON-RPC
 * 2.0 request `initialize` with an ID (a string or a finite number: the SDK answers a null one
 * otherwise) whose params the SDK's schema takes; else null.
 */
export function plainInitialize(line: Uint8Array): PlainInitialize | null {
  let message: unknown;
  try {
    message = JSON.parse(new TextDecoder().decode(line).trim());
  } catch {
    return null;
  }
  if (!isObject(message) || message.jsonrpc !== "2.0" || message.method !== "initialize")
    return null;
  const { id, params } = message;
  if (typeof id !== "string" && !(typeof id === "number" && Number.isFinite(id))) return null;
  if (!isObject(params)) return null;
  const version = params.protocolVersion;
  if (typeof version !== "number" || !Number.isSafeInteger(version)) return null;
  if (version < 0 || version > 65535) return null;
  const capabilities = params.clientCapabilities;
  const terminal =
    isObject(capabilities) && isObject(capabilities.auth) && capabilities.auth.terminal === true;
  return { id, terminal };
}

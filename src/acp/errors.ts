/**
 * Our errors as ACP errors: the JSON-RPC code for each wire code, our code in `data`.
 */
import { RequestError } from "@agentclientprotocol/sdk";
import { log } from "../process/log.js";
import { DEFAULT_MESSAGES, type ErrorCode } from "../protocol/codes.js";
import type { TURN_FAILURE_CODES } from "../protocol/schemas/turns.js";
import { EngineError } from "../server/engine-face.js";

/**
 * JSON-RPC error codes for our wire codes: ACP's own where one means the same thing, else the
 * server-error range. Our code is always in `data.code` (docs/acp.md, "Errors").
 */
type AcpCode = ErrorCode | (typeof TURN_FAILURE_CODES)[number];
const JSON_RPC: Partial<Record<AcpCode, number>> = {
  invalid_params: -32602,
  invalid_request: -32600,
  method_not_found: -32601,
  session_missing: -32002,
  authentication_unavailable: -32000,
  internal_error: -32603,
};
const SERVER_ERROR = -32001;

/**
 * An ACP error for one of our codes (a wire error, or a failed turn's code); the message is
 * ours, never a path, URL or credential.
 */
export function acpError(code: AcpCode, message?: string): RequestError {
  const text = message ?? (DEFAULT_MESSAGES as Record<string, string>)[code] ?? "The turn failed.";
  return new RequestError(JSON_RPC[code] ?? SERVER_ERROR, text, { code });
}

/**
 * What a handler throws, as an ACP error. Our engine's errors keep their code and message; an
 * ACP error passes as it is; anything else is a bug, logged on stderr and answered as
 * `internal_error` (its text may hold anything, so it is not sent).
 */
function toAcpError(error: unknown): RequestError {
  if (error instanceof RequestError) return error;
  if (error instanceof EngineError) return acpError(error.code, error.message);
  log("error", `ACP handler failed: ${error instanceof Error ? error.message : String(error)}`);
  return acpError("internal_error");
}

/** Runs a handler body and answers its failure as an ACP error. */
export async function answering<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toAcpError(error);
  }
}

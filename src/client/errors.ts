import type { ErrorCode } from "../protocol/codes.js";
import type { NextStep } from "../protocol/recovery.js";

/**
 * The two kinds of failure a caller sees. `RemoteError` is an error the child sent over the
 * wire (its `code` is one of the protocol's codes); `ClientError` never crossed the wire: the
 * child died, broke the protocol, was closed, or the SDK refused a call before sending it.
 */
export class RemoteError extends Error {
  override readonly name = "RemoteError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** The method whose request failed. */
    readonly method: string,
    /** Its next step (`recovery`, `provider`): only with `errors.recovery` negotiated. */
    readonly next: NextStep | null = null,
  ) {
    super(message);
  }
}

export const CLIENT_ERROR_CODES = [
  /** The child command could not be started. */
  "spawn_failed",
  /** The child exited while requests were in flight. */
  "child_exited",
  /** The child sent something that is not a protocol response; it was stopped. */
  "protocol_violation",
  /** A correlated response whose result does not match the method's schema. */
  "invalid_response",
  /** The client was closed before the request got its terminal response. */
  "closed",
  /** The caller's signal was already aborted, so nothing was sent. */
  "aborted",
  /** The request would exceed the child's frame byte limit, so nothing was sent. */
  "frame_too_large",
  /** The capability the call needs was not negotiated with this child. */
  "not_negotiated",
  /** Discovery met `stale_revision` more often than its retry bound. */
  "discovery_unstable",
  /** The catalog kept changing (`stale_revision` or a new revision) past the retry bound. */
  "catalog_unstable",
  /** A flow needed a fresh child more often than its restart bound. */
  "restart_limit",
  /** A selection guard from before the latest refresh or child restart. */
  "stale_guard",
] as const;
export type ClientErrorCode = (typeof CLIENT_ERROR_CODES)[number];

export class ClientError extends Error {
  override readonly name = "ClientError";
  constructor(
    readonly code: ClientErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The code of any error the SDK produces, or null for something else. */
export function errorCodeOf(error: unknown): ErrorCode | ClientErrorCode | null {
  if (error instanceof RemoteError || error instanceof ClientError) return error.code;
  return null;
}

/** True when `error` is the wire error `code`. */
export function isRemote(error: unknown, code: ErrorCode): error is RemoteError {
  return error instanceof RemoteError && error.code === code;
}

/** Fixed numbers and names of local-agent stdio, protocol version 1. */

export const PROTOCOL_VERSION = 1;

export const SERVER_INFO = { name: "mc-agent", version: "0.1.0" } as const;

/** Advertised in every initialize result; never depends on what was negotiated. */
export const LIMITS = {
  frame_bytes: 1_048_576,
  child_requests: 4096,
  active_requests: 16,
  discovery_sessions: 256,
  history_bytes: 8_388_608,
  page_entries: 100,
  page_bytes: 32_768,
  cleanup_ms: 2000,
} as const;

/** The extension parameter objects, exactly as the extension contract fixes them. */
export const DISCOVER_EXTENSION = {
  consistency: "provisional_until_complete",
  ordering: "directory",
  step_directory_entries: 256,
  step_lines: 10_000,
  step_bytes: 8_388_608,
  record_bytes: 8_388_608,
  step_ms: 2000,
  page_entries: 100,
  page_bytes: 32_768,
} as const;

export const REFRESH_EXTENSION = {
  providers_per_request: 1,
  cache_bytes: 1_048_576,
  models: 2048,
  preferences: "unchanged",
} as const;

export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;
export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export const PROVIDER_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,255}$/;
export const MODEL_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,255}$/;
/** Cursors are opaque, at most 64 printable ASCII bytes. */
export const CURSOR_PATTERN = /^[\x21-\x7e]{1,64}$/;

export function isRequestId(value: unknown): value is string {
  return typeof value === "string" && REQUEST_ID_PATTERN.test(value);
}

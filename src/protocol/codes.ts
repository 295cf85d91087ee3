import { z } from "zod";
import { type Infer, lazy } from "./lazy.js";
import type { NextStep } from "./recovery.js";

/** Every error code on the wire: the base table plus the extension contract's own. */
export const ERROR_CODES = [
  "invalid_request",
  "frame_too_large",
  "method_not_found",
  "invalid_params",
  "not_initialized",
  "already_initialized",
  "unsupported_protocol_version",
  "unsupported_capability",
  "duplicate_request_id",
  "child_exhausted",
  "busy",
  "shutting_down",
  "operation_cancelled",
  "operation_missing",
  "discovery_limit",
  "discovery_unavailable",
  "discovery_record_bytes",
  "discovery_page_bytes",
  "session_missing",
  "session_invalid",
  "cwd_mismatch",
  "session_locked",
  "stale_revision",
  "model_unavailable",
  "catalog_unavailable",
  "catalog_limit",
  "attachment_required",
  "authentication_unavailable",
  "turn_missing",
  "approval_missing",
  "sandbox_unavailable",
  "rule_missing",
  "rules_unavailable",
  "history_write_failed",
  "workspace_changed",
  "checkpoint_missing",
  "prompt_blocked",
  "session_exists",
  "budget_exceeded",
  "command_missing",
  "input_unsupported",
  "internal_error",
] as const;

export const ErrorCode = lazy(() => z.enum(ERROR_CODES));
export type ErrorCode = Infer<typeof ErrorCode>;

/**
 * Short fixed messages. They never carry a path, file name, URL, credential, body or history
 * content: handlers pick a code, and the message comes from here unless a handler passes an
 * equally safe sentence of its own.
 */
export const DEFAULT_MESSAGES: Record<ErrorCode, string> = {
  invalid_request: "The frame is not a valid request envelope.",
  frame_too_large: "The frame exceeds the frame byte limit and was discarded.",
  method_not_found: "No such method.",
  invalid_params: "The params do not match the method's schema.",
  not_initialized: "Send initialize first.",
  already_initialized: "The child is already initialized.",
  unsupported_protocol_version: "Only protocol version 1 is supported.",
  unsupported_capability: "That capability is not supported or was not negotiated.",
  duplicate_request_id: "That request ID was already used in this child.",
  child_exhausted: "This child admitted its last request; start a new child.",
  busy: "Too much work in flight for that request; retry later.",
  shutting_down: "The child is shutting down.",
  operation_cancelled: "The operation was cancelled.",
  operation_missing: "No active cancellable request has that ID.",
  discovery_limit: "The store exceeds the listing bounds; use session.discover.",
  discovery_unavailable: "The session store cannot be read safely; inspect the backend store.",
  discovery_record_bytes: "A history record exceeds the record byte limit; compact or export it.",
  discovery_page_bytes: "A session entry cannot fit in a page; report a backend failure.",
  session_missing: "No saved session has that ID.",
  session_invalid: "The session's history is invalid or unsafe.",
  cwd_mismatch: "The session belongs to another working directory.",
  session_locked: "Another live process is writing that session; retry when it is done.",
  stale_revision: "The cursor or guard is stale; start a fresh read.",
  model_unavailable: "That model is not a selectable choice.",
  catalog_unavailable: "A model catalog cache cannot be read safely.",
  catalog_limit: "A model catalog cache exceeds its bounds.",
  attachment_required: "No session is attached; create or open one first.",
  authentication_unavailable: "The model's provider has no usable credentials.",
  turn_missing: "No running turn has that request ID.",
  approval_missing: "No pending approval has that ID.",
  sandbox_unavailable: "No OS sandbox can start here; run mc-agent doctor to see why.",
  rule_missing: "No approval rule has that ID.",
  rules_unavailable:
    "The workspace's approval rules file cannot be changed: it is damaged or unwritable (clear it).",
  history_write_failed: "A history could not be written (full or failing disk); nothing was saved.",
  workspace_changed:
    "Files changed since the session's last turn ended; see them with a dry run, or revert with force.",
  checkpoint_missing: "That turn has no checkpoint to restore (none was recorded, or it is gone).",
  prompt_blocked: "A UserPromptSubmit hook blocked the prompt; nothing was saved or sent.",
  session_exists: "A session with that ID already exists there; nothing was moved.",
  budget_exceeded:
    "The session's known cost has reached the budget_usd setting; nothing was sent (raise the budget or start a new session).",
  command_missing: "No custom command has that name (commands.list lists them).",
  input_unsupported:
    "The selected model does not take images (its catalog entry's modalities); nothing was sent.",
  internal_error: "Internal error.",
};

/**
 * An error that goes over the wire as `{"code", "message"}`; its `next` step is added as
 * `recovery` and `provider` only where `errors.recovery` was negotiated.
 */
export class ProtocolError extends Error {
  readonly code: ErrorCode;
  constructor(
    code: ErrorCode,
    message?: string,
    readonly next: NextStep | null = null,
  ) {
    super(message ?? DEFAULT_MESSAGES[code]);
    this.code = code;
    this.name = "ProtocolError";
  }
}

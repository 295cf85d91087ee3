/**
 * The prose of docs/protocol.schema.json: a description per named type and per enum value,
 * condensed from the docs (local-agent-protocol.md, extensions.md, turns.md, store.md), so that
 * generated types carry doc comments. Error codes take their fixed messages from codes.ts. A
 * type or value with no entry simply has no description.
 */
import { z } from "zod";
import { DEFAULT_MESSAGES } from "./codes.js";

const TYPES: Record<string, string> = {
  ErrorCode: "Every error code on the wire (local-agent-protocol.md, extensions.md, turns.md).",
  ErrorObject: "The error of an error response: a code and a short message with no path in it.",
  ErrorResponse: "The answer to a request that failed; `id` is null when the frame had none.",
  SessionEntry: "One saved session in a listing or as opened (store.md).",
  SessionEvent:
    "One history record, kept verbatim: unknown types and extra fields are valid (store.md).",
  SessionNotice: "Why a listing left sessions out or could not verify them.",
  Selection: "The model and effort the next turn uses; null when none is selected.",
  Attachment: "The session this child is attached to, and whether it is saved yet.",
  Usage: "Token counts, summed over every model call of the turn.",
  ModelChoice: "One selectable model of the catalog.",
  CatalogNotice: "A provider whose catalog cache is missing or invalid, or a bad configuration.",
  ProviderStatus: "One provider's catalog and authentication state, and what would fix it.",
  ErrorRecovery:
    "With `errors.recovery`: the next step of a `model_unavailable` or `authentication_unavailable` error (extensions.md).",
  NoticeRecovery: "With `errors.recovery`: the next step of a catalog cache notice.",
  SettingsFile:
    "A settings file, never a path: in `settings.check`, and with `errors.recovery` the invalid one a notice is about.",
  TrustState:
    "With `workspace.trust`: whether the project file's hooks and MCP servers may run (trust.md).",
  Limits: "The child's bounds, advertised by initialize.",
  Extensions: "One parameter object per negotiated extension that has one.",
  TurnEvent: "Every event a turn streams, discriminated by `type` (turns.md section 4).",
  TurnEventParams: "`turn.event` params: `seq` counts from 0 without gaps per turn.",
  TurnStartResult: "A turn's result, discriminated by `status` (turns.md section 3).",
  TurnError: "Why a turn failed; the message names no path, URL or credential.",
  ToolCallEvent:
    "A tool call as the model made it. `input` is the model's raw JSON arguments: any JSON.",
  MessageDoneEvent: "An item's whole text, equal to its deltas joined: it replaces them.",
  TurnStartedEvent: "Always the first event of a turn.",
  PermissionLevel: "What a turn's tools may do without asking (turns.md section 6).",
  ApprovalDecision: "A client's answer to an approval request (turn.approve).",
  ApprovalResolution: "How an approval ended (approval_resolved).",
  StopReason: "Why a completed turn stopped.",
  ToolStatus: "How a tool call ended (tool_done).",
  TurnFailureCode: "Why a turn failed (turns.md section 3).",
  UsageEvent: "After each model call, with the model's catalog context window (or null).",
};

const VALUES: Record<string, Record<string, string>> = {
  ErrorCode: DEFAULT_MESSAGES,
  PermissionLevel: {
    read_only: "Reads, lists and searches; no writes, edits or shell.",
    ask: "Writes, edits and every shell command ask an approval first.",
    accept_edits: "Writes and edits run; shell commands ask an approval.",
    sandboxed: "Writes and edits run; shell commands run inside the OS sandbox.",
    full_access: "Every tool runs without asking.",
  },
  ApprovalDecision: {
    allow_once: "Run this one action.",
    allow_session: "Run it and the same kind of action for the rest of this attachment.",
    deny: "Do not run it; the model is told.",
    allow_always: "Run it and keep the offered rule for this workspace.",
    deny_always: "Do not run it and keep a rule refusing it in this workspace.",
  },
  ApprovalResolution: {
    allow_once: "Allowed once.",
    allow_session: "Allowed for the rest of the attachment.",
    deny: "Denied.",
    allow_always: "Allowed, and the rule kept for the workspace.",
    deny_always: "Denied, and the refusing rule kept for the workspace.",
    cancelled: "The turn ended (interrupt, failure, shutdown) before a decision.",
  },
  StopReason: {
    end_turn: "The model answered without a tool call.",
    max_tokens: "The model stopped on length.",
    max_steps: "The turn made its `max_steps` model calls.",
    refusal: "The model refused.",
  },
  ToolStatus: {
    completed: "The tool ran and succeeded.",
    failed: "The tool failed, was not offered, or had bad input.",
    denied: "The approval was denied.",
    interrupted: "The turn was interrupted while the tool ran or waited.",
  },
  TurnFailureCode: {
    authentication_rejected: "The provider rejected the credentials.",
    remote_unavailable: "The provider could not be reached or kept failing.",
    remote_timeout: "The provider did not answer in time.",
    rate_limited: "The provider kept rate limiting past the retry bound.",
    context_exceeded: "The context does not fit the model's window, even compacted.",
    invalid_response: "The provider's stream broke its own format.",
    provider_error: "The provider answered with an error.",
    history_write_failed: "The history could not be written; the turn stopped.",
  },
  ApprovalKind: { edit: "A workspace write or edit.", command: "A shell command." },
  OutputStream: { stdout: "The command's standard output.", stderr: "Its standard error." },
  ErrorRecovery: {
    configure_authentication: "Give the provider credentials, then restart the backend.",
    refresh_catalog: "Fetch the provider's models (`model.refresh`, `mc-agent refresh`).",
    enable_models_and_restart:
      "Enable a model and make it the default in the settings, then restart the backend.",
    run_setup: "Nothing usable is set up: run `mc-agent setup`.",
  },
  NoticeRecovery: {
    configure_authentication: "Give the provider credentials first (a refresh needs them).",
    refresh_catalog: "Fetch the provider's models (`model.refresh`).",
  },
  SettingsFile: { global: "MC_HOME's settings file.", project: "The workspace's settings file." },
  TrustState: {
    trusted: "They run: the user trusted exactly these, or the project file names none.",
    untrusted: "The project file names hooks or MCP servers the user never trusted here.",
    changed: "The user trusted this workspace, but its hooks or MCP servers changed since.",
  },
  RetryReason: {
    rate_limited: "The provider rate limited the call.",
    remote_unavailable: "The provider was unreachable or failed transiently.",
  },
};

export type TypeDocs = { description?: string; "x-enum-descriptions"?: Record<string, string> };

/** The description of a named type, and of each of its values when it is an enum. */
export function describeType(id: string, schema: z.ZodType): TypeDocs {
  const docs: TypeDocs = {};
  const values = VALUES[id];
  const lines =
    values && schema instanceof z.ZodEnum
      ? (schema.options as string[]).flatMap((v) => (values[v] ? [`- \`${v}\`: ${values[v]}`] : []))
      : [];
  const summary = TYPES[id];
  if (summary || lines.length) docs.description = [summary, ...lines].filter(Boolean).join("\n");
  if (values && lines.length) {
    const known = (schema as z.ZodEnum).options as string[];
    docs["x-enum-descriptions"] = Object.fromEntries(
      known.filter((v) => values[v]).map((v) => [v, values[v] as string]),
    );
  }
  return docs;
}

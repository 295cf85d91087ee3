/**
 * The `turn` extension (docs/turns.md): turn.start, turn.interrupt, turn.approve and the
 * turn.event notification. Names and shapes are fixed by the design (shared/design/turns.md).
 */

import { z } from "zod";
import { type Infer, lazy } from "../lazy.js";
import { utf8Length } from "../paging.js";
import { ATTACHMENT_LIMITS, TurnAttachment } from "./attachments.js";
import { CheckpointFailedEvent, CheckpointRef, CheckpointsAvailability } from "./checkpoints.js";
import { Effort, ModelId, RequestId, SessionId } from "./common.js";
import { HookDoneEvent, HookStartedEvent } from "./hooks.js";
import { PlanEvent } from "./plans.js";
import { PathGlob, RULES_EXTENSION, RuleOffer, RulesExtension } from "./rules.js";
import { TurnCommand } from "./skills.js";
import { SteerAppliedEvent, UndeliveredSteer } from "./steering.js";

export const PERMISSIONS = [
  "read_only",
  "ask",
  "accept_edits",
  "sandboxed",
  "full_access",
] as const;
export const Permissions = lazy(() => z.enum(PERMISSIONS));
export type Permissions = Infer<typeof Permissions>;

/** The OS sandbox `sandboxed` runs commands in (docs/turns.md, "The sandboxed level"). */
export const SANDBOX_KINDS = ["bubblewrap", "seatbelt"] as const;
export const SandboxKind = lazy(() => z.enum(SANDBOX_KINDS));
export type SandboxKind = Infer<typeof SandboxKind>;

export const TOOL_NAMES = [
  "read_file",
  "list_dir",
  "search",
  "write_file",
  "edit_file",
  "shell",
] as const;

export const DECISIONS = [
  "allow_once",
  "allow_session",
  "deny",
  "allow_always",
  "deny_always",
] as const;
export const Decision = lazy(() => z.enum(DECISIONS));
export type Decision = Infer<typeof Decision>;

/**
 * `initialize.extensions.turn`, exactly, but for `sandbox`: which OS sandbox this child found it
 * can start (a real run at initialize), or null; the child adds it (turnExtensionOf).
 */
export const TURN_EXTENSION = {
  input_bytes: 262_144,
  max_steps: 64,
  event_bytes: 65_536,
  tool_output_bytes: 16_384,
  tool_stream_bytes: 1_048_576,
  shell_timeout_ms: 600_000,
  permissions: [...PERMISSIONS],
  tools: [...TOOL_NAMES],
  decisions: [...DECISIONS],
  rules: RULES_EXTENSION,
} as const;

export const TurnExtension = lazy(() =>
  z.strictObject({
    input_bytes: z.number().int(),
    max_steps: z.number().int(),
    event_bytes: z.number().int(),
    tool_output_bytes: z.number().int(),
    tool_stream_bytes: z.number().int(),
    shell_timeout_ms: z.number().int(),
    permissions: z.array(Permissions()),
    tools: z.array(z.enum(TOOL_NAMES)),
    sandbox: SandboxKind().nullable(),
    // Optional: a backend without approval rules (or an older mc-agent) leaves them out, and a
    // client then offers only allow_once, allow_session and deny.
    decisions: z.array(Decision()).optional(),
    rules: RulesExtension().optional(),
    /** Whether turns record checkpoints (docs/checkpoints.md); optional for other backends. */
    checkpoints: CheckpointsAvailability().optional(),
  }),
);
export type TurnExtension = Infer<typeof TurnExtension>;

// utf8Length, not Buffer: the protocol layer runs wherever the client SDK does.
const TurnInput = lazy(() =>
  z
    .string()
    .min(1)
    .refine((text) => utf8Length(text) <= TURN_EXTENSION.input_bytes, "input too long"),
);
export const TurnStartParams = lazy(() =>
  z
    .strictObject({
      /** Exactly one of `input` and `command` (docs/skills.md, "Custom commands"). */
      input: TurnInput().optional(),
      /** With `commands`: a custom command, expanded by the child into the turn's input. */
      command: TurnCommand().optional(),
      permissions: Permissions().optional(),
      /** With `turn.queue`: wait behind the running turn instead of `busy` (steering.ts). */
      queue: z.boolean().optional(),
      /** With `attachments`: images sent with the input (schemas/attachments.ts). */
      attachments: z.array(TurnAttachment()).min(1).max(ATTACHMENT_LIMITS.images).optional(),
    })
    .refine((p) => (p.input === undefined) !== (p.command === undefined), {
      message: "exactly one of input and command",
    }),
);

/** `turn.steer` (capability `turn.steer`): `request_id` is the running turn.start's ID. */
export const TurnSteerParams = lazy(() =>
  z.strictObject({ request_id: RequestId(), input: TurnInput() }),
);
export type TurnStartParams = Infer<typeof TurnStartParams>;

export const Usage = lazy(() =>
  z.strictObject({
    input_tokens: z.number().int().min(0),
    output_tokens: z.number().int().min(0),
    cached_input_tokens: z.number().int().min(0),
    reasoning_tokens: z.number().int().min(0),
  }),
);

/** The bound of a failed result's `provider_message` (docs/turns.md, "turn.start"). */
export const PROVIDER_MESSAGE_CHARS = 240;

export const TURN_FAILURE_CODES = [
  "authentication_rejected",
  "remote_unavailable",
  "remote_timeout",
  "rate_limited",
  "context_exceeded",
  "invalid_response",
  "provider_error",
  "history_write_failed",
] as const;
export const TurnFailureCode = lazy(() => z.enum(TURN_FAILURE_CODES));

/** Turn, item and approval IDs. */
export const TURN_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;
const TurnId = lazy(() => z.string().regex(TURN_ID_PATTERN));

/** A cost in US dollars: finite, never negative (capability `session.manage`). */
export const CostUsd = lazy(() => z.number().min(0).finite());

const ResultBase = lazy(() => ({
  turn_id: TurnId(),
  session_id: SessionId(),
  usage: Usage(),
  /** The turn's cost (`session.manage` only): null when the model's price is unknown. */
  cost_usd: CostUsd().nullable().optional(),
  steps: z.number().int().min(0),
  /** With `turn.steer`: the steers this turn accepted and never delivered (empty: none). */
  undelivered_steers: z.array(UndeliveredSteer()).optional(),
}));
export const TurnResult = lazy(() =>
  z.discriminatedUnion("status", [
    z.strictObject({
      ...ResultBase(),
      status: z.literal("completed"),
      stop_reason: z.enum(["end_turn", "max_tokens", "max_steps", "refusal"]),
      error: z.null(),
    }),
    z.strictObject({
      ...ResultBase(),
      /** Null only for a queued turn.start removed before it started (`turn.queue`). */
      turn_id: TurnId().nullable(),
      status: z.literal("interrupted"),
      stop_reason: z.literal("interrupted"),
      error: z.null(),
    }),
    z.strictObject({
      ...ResultBase(),
      status: z.literal("failed"),
      stop_reason: z.null(),
      error: z.strictObject({
        code: TurnFailureCode(),
        message: z.string(),
        /**
         * The provider's own text about the failure, when it sent some: at most
         * PROVIDER_MESSAGE_CHARS characters, URLs, paths and credentials redacted.
         */
        provider_message: z.string().max(PROVIDER_MESSAGE_CHARS).optional(),
      }),
    }),
  ]),
);

export type TurnResult = Infer<typeof TurnResult>;

export const TurnInterruptParams = lazy(() => z.strictObject({ request_id: RequestId() }));
export const TurnInterruptResult = lazy(() =>
  z.strictObject({
    state: z.literal("interrupting"),
    request_id: RequestId(),
  }),
);

export const ApprovalId = lazy(() => z.string().regex(TURN_ID_PATTERN));
/**
 * `path_glob` narrows the rule an edit approval keeps (allow_session, allow_always,
 * deny_always) to the edits whose path it matches; it must match the approval's own path.
 */
export const TurnApproveParams = lazy(() =>
  z.strictObject({
    approval_id: ApprovalId(),
    decision: Decision(),
    path_glob: PathGlob().optional(),
  }),
);
export const TurnApproveResult = lazy(() =>
  z.strictObject({
    approval_id: ApprovalId(),
    decision: Decision(),
    state: z.literal("applied"),
  }),
);

const ItemId = lazy(() => z.string().regex(TURN_ID_PATTERN));
const Text = lazy(() => z.string());
/** A delta's piece of text: a long text is split over deltas of at most `event_bytes` each. */
const DeltaText = lazy(() =>
  z
    .string()
    .refine((text) => utf8Length(text) <= TURN_EXTENSION.event_bytes, "delta over event_bytes"),
);
/**
 * A call's tool: a built-in, `mcp_search`, an MCP server's tool (`mcp__<server>__<tool>`,
 * docs/mcp.md), or the name a model gave a tool it does not have, as shown (control characters
 * escaped, at most 64 bytes: turns.md 4). One pattern takes them all: every known name is one.
 */
const CalledTool = lazy(() =>
  z
    .string()
    .regex(SHOWN_TOOL_NAME)
    .refine((name) => utf8Length(name) <= UNKNOWN_TOOL_BYTES, "a tool name over 64 bytes"),
);
/** The longest name of a tool the model called that we do not have, as `tool_call` shows it. */
export const UNKNOWN_TOOL_BYTES = 64;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
const SHOWN_TOOL_NAME = /^[^\u0000-\u001f\u007f-\u009f]{1,64}$/;

/**
 * Every event a turn streams, by `type`, but `subagent_event`: what a subagent's nested turn
 * streams, each one carried whole inside a `subagent_event` of its parent (docs/turns.md,
 * "Subagents").
 */
export const InnerTurnEventBody = lazy(() =>
  z.discriminatedUnion("type", [
    z.strictObject({
      type: z.literal("turn_started"),
      session_id: SessionId(),
      model: ModelId(),
      effort: Effort().nullable(),
      permissions: Permissions(),
      created_session: z.boolean(),
      /** The sandbox `shell` commands run in: non-null exactly under `sandboxed`. */
      sandbox: SandboxKind().nullable(),
      /** The checkpoint recorded before this turn (docs/checkpoints.md), or null: none is. */
      checkpoint: CheckpointRef().nullable(),
    }),
    CheckpointFailedEvent(),
    SteerAppliedEvent(),
    z.strictObject({ type: z.literal("message_delta"), item_id: ItemId(), text: DeltaText() }),
    z.strictObject({
      type: z.literal("message_done"),
      item_id: ItemId(),
      text: Text(),
      /** What the message is for, when the provider says (OpenAI's `phase`); null otherwise. */
      phase: z.enum(["commentary", "final_answer"]).nullable(),
    }),
    z.strictObject({ type: z.literal("reasoning_delta"), item_id: ItemId(), text: DeltaText() }),
    z.strictObject({
      type: z.literal("tool_call"),
      item_id: ItemId(),
      tool: CalledTool(),
      title: Text(),
      input: z.unknown(),
      /** A `shell` call of a turn with a sandbox: whether it runs inside it. Absent otherwise. */
      sandboxed: z.boolean().optional(),
    }),
    z.strictObject({
      type: z.literal("approval_requested"),
      approval_id: ApprovalId(),
      item_id: ItemId(),
      kind: z.enum(["edit", "command"]),
      title: Text(),
      command: Text().nullable(),
      path: Text().nullable(),
      diff: Text().nullable(),
      truncated: z.boolean(),
      /** The rule allow_session / allow_always / deny_always would keep; null: none can. */
      rule: RuleOffer().nullable(),
      /** With `subagents`: the subagent that asks (its `subagent_id`), or null: the turn itself. */
      subagent_id: ItemId().nullable().optional(),
    }),
    z.strictObject({
      type: z.literal("approval_resolved"),
      approval_id: ApprovalId(),
      decision: z.enum([...DECISIONS, "cancelled"]),
    }),
    z.strictObject({
      type: z.literal("tool_output_delta"),
      item_id: ItemId(),
      stream: z.enum(["stdout", "stderr"]),
      text: DeltaText(),
    }),
    z.strictObject({
      type: z.literal("tool_done"),
      item_id: ItemId(),
      status: z.enum(["completed", "failed", "denied", "interrupted"]),
      summary: Text(),
      exit_code: z.number().int().nullable(),
      diff: Text().nullable(),
    }),
    z.strictObject({
      type: z.literal("usage"),
      ...Usage().shape,
      context_window: z.number().int().min(1).nullable(),
      /** This call's cost (`session.manage` only): null when the price is unknown. */
      cost_usd: CostUsd().nullable().optional(),
    }),
    z.strictObject({
      type: z.literal("retry"),
      attempt: z.number().int().min(1),
      reason: z.enum(["rate_limited", "remote_unavailable"]),
      delay_ms: z.number().int().min(0),
    }),
    HookStartedEvent(),
    HookDoneEvent(),
    z.strictObject({
      type: z.literal("compacted"),
      tokens_before: z.number().int().min(0),
      tokens_after: z.number().int().min(0),
    }),
    /** With `plans` negotiated: the model's whole plan after each `update_plan` call. */
    PlanEvent(),
  ]),
);

/** Every event a turn streams, by `type`. */
export const TurnEventBody = lazy(() =>
  z.discriminatedUnion("type", [
    ...InnerTurnEventBody().options,
    /** With `subagents` negotiated: one event of a subagent's turn, whole (docs/turns.md). */
    z.strictObject({
      type: z.literal("subagent_event"),
      /** The parent's `agent` call that runs the subagent. */
      item_id: ItemId(),
      subagent_id: ItemId(),
      event: InnerTurnEventBody(),
    }),
  ]),
);
export type TurnEventBody = Infer<typeof TurnEventBody>;

/** `turn.event` params: the only notification, child to client. */
export const TurnEventParams = lazy(() =>
  z.strictObject({
    request_id: RequestId(),
    turn_id: TurnId(),
    seq: z.number().int().min(0),
    event: TurnEventBody(),
  }),
);
export type TurnEventParams = Infer<typeof TurnEventParams>;

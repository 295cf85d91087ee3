/**
 * The records a turn appends to `sessions/<id>.jsonl` (turns.md section 8). Every record has
 * `type`, `ts`, `cwd` (the canonical workspace) and `turn_id`; readers keep accepting any
 * parser-valid record, these schemas are what the writer produces and the engine replays.
 */
import { z } from "zod";
import { type Infer, lazy } from "../../protocol/lazy.js";
import { ImageReference } from "../../protocol/schemas/attachments.js";
import { PlanStep } from "../../protocol/schemas/plans.js";
import { CostUsd, Permissions, TurnFailureCode, Usage } from "../../protocol/schemas/turns.js";

const Base = lazy(() => ({ ts: z.string(), cwd: z.string(), turn_id: z.string() }));

const TurnStartRecord = lazy(() =>
  z.looseObject({
    type: z.literal("turn_start"),
    ...Base(),
    model: z.string(),
    effort: z.string().nullable(),
    permissions: Permissions(),
  }),
);
const UserMessageRecord = lazy(() =>
  z.looseObject({
    type: z.literal("user_message"),
    ...Base(),
    text: z.string(),
    /** A steer delivered inside its turn (docs/turns.md, "Steering and queueing"). */
    steer: z.literal(true).optional(),
    /** The images sent with it, by reference (docs/store.md, "Attachments"). */
    attachments: z.array(ImageReference()).optional(),
  }),
);
const AssistantMessageRecord = lazy(() =>
  z.looseObject({
    type: z.literal("assistant_message"),
    ...Base(),
    text: z.string(),
    model: z.string(),
    interrupted: z.boolean().optional(),
    /** Opaque, bounded replay state (e.g. thinking signatures), tagged with its provider type. */
    provider_state: z.looseObject({ provider: z.string() }).optional(),
  }),
);
const ToolCallRecord = lazy(() =>
  z.looseObject({
    type: z.literal("tool_call"),
    ...Base(),
    item_id: z.string(),
    /** The provider's own call ID, replayed with the result (not unique across providers). */
    call_id: z.string(),
    tool: z.string(),
    input: z.unknown(),
  }),
);
const ToolResultRecord = lazy(() =>
  z.looseObject({
    type: z.literal("tool_result"),
    ...Base(),
    item_id: z.string(),
    call_id: z.string(),
    status: z.enum(["completed", "failed", "denied", "interrupted"]),
    output: z.string(),
    exit_code: z.number().int().nullable().optional(),
  }),
);
const TurnEndRecord = lazy(() =>
  z.looseObject({
    type: z.literal("turn_end"),
    ...Base(),
    status: z.enum(["completed", "interrupted", "failed"]),
    stop_reason: z.string().nullable(),
    usage: Usage(),
    /** The turn's cost in USD (issue 42); null: the model's price was unknown. */
    cost_usd: CostUsd().nullable().optional(),
    error_code: TurnFailureCode().optional(),
    /** The turn's checkpoints (docs/checkpoints.md): before it and after it, each maybe null. */
    checkpoints: z
      .strictObject({ before: z.string().nullable(), after: z.string().nullable() })
      .optional(),
  }),
);
const CompactionRecord = lazy(() =>
  z.looseObject({
    type: z.literal("compaction"),
    ...Base(),
    summary: z.string(),
    tokens_before: z.number().int().min(0),
  }),
);

/**
 * A revert (docs/checkpoints.md): the workspace went back to its state before turn `turn_id`;
 * that turn and every later one leave the context (they stay in the history).
 */
const RevertRecord = lazy(() =>
  z.looseObject({
    type: z.literal("revert"),
    ...Base(),
    checkpoint: z.string(),
    turns_reverted: z.number().int().min(1),
  }),
);

/**
 * The model's whole plan after an `update_plan` call (docs/turns.md, "Plans"): shown again on
 * a history page, a reopen and an ACP load; never part of the model's context (the call and
 * its result are).
 */
const PlanRecord = lazy(() =>
  z.looseObject({
    type: z.literal("plan"),
    ...Base(),
    explanation: z.string().nullable(),
    plan: z.array(PlanStep()),
  }),
);

export const TurnRecord = lazy(() =>
  z.discriminatedUnion("type", [
    TurnStartRecord(),
    UserMessageRecord(),
    AssistantMessageRecord(),
    ToolCallRecord(),
    ToolResultRecord(),
    TurnEndRecord(),
    CompactionRecord(),
    RevertRecord(),
    PlanRecord(),
  ]),
);
export type TurnRecord = Infer<typeof TurnRecord>;
/**
 * A record as the engine hands it to the writer: `ts`, `cwd` and `turn_id` are filled in.
 * A key-remapping omit: the records are loose objects (an index signature), and the plain
 * `Omit` of such a type keeps only the index signature, which accepted any object at all.
 */
type Without<T, K extends PropertyKey> = { [P in keyof T as P extends K ? never : P]: T[P] };
export type TurnRecordBody = TurnRecord extends infer R
  ? R extends TurnRecord
    ? Without<R, "ts" | "cwd" | "turn_id">
    : never
  : never;

/**
 * Messages as other tools write them (the base's `SessionEvent` examples): no `turn_id`, and
 * maybe no `cwd` (a legacy history) or `model`. Replay keeps them beside the turn records.
 */
const ForeignUserMessage = lazy(() =>
  z.looseObject({
    type: z.literal("user_message"),
    ts: z.string(),
    cwd: z.string().optional(),
    turn_id: z.string().optional(),
    text: z.string(),
  }),
);
const ForeignAssistantMessage = lazy(() =>
  z.looseObject({
    type: z.literal("assistant_message"),
    ts: z.string(),
    cwd: z.string().optional(),
    turn_id: z.string().optional(),
    text: z.string(),
    model: z.string().optional(),
  }),
);

/** What replay (replay.ts) returns: a turn record, or a message some other tool wrote. */
export const ReplayRecord = lazy(() =>
  z.union([TurnRecord(), ForeignUserMessage(), ForeignAssistantMessage()]),
);
export type ReplayRecord = Infer<typeof ReplayRecord>;

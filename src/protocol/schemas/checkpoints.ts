/**
 * Checkpoints and `turn.revert` (docs/checkpoints.md, docs/turns.md "turn.revert"): the
 * workspace's state recorded before and after each turn that may change files, and the method
 * that puts the files back as they were before a turn. Capability `turn.revert`.
 */
import { z } from "zod";
import { type Infer, lazy } from "../lazy.js";
import { Cursor, SessionId } from "./common.js";

/** Turn IDs, as turns.ts fixes them (repeated here to keep this module free of a cycle). */
const TurnId = lazy(() => z.string().regex(/^[A-Za-z0-9._:-]{1,64}$/));

/** `c-` and 32 lowercase hex digits: named before the snapshot is taken (turn_started has it). */
const CHECKPOINT_ID_PATTERN = /^c-[0-9a-f]{32}$/;
export const CheckpointId = lazy(() => z.string().regex(CHECKPOINT_ID_PATTERN));

/** `turn_started.checkpoint`: the checkpoint taken before the turn, or null when none is. */
export const CheckpointRef = lazy(() => z.strictObject({ id: CheckpointId() }));
export type CheckpointRef = Infer<typeof CheckpointRef>;

/**
 * Why checkpoints are unavailable in this child (`extensions.turn.checkpoints.reason`): no git
 * on its PATH, or a workspace that is (or lies inside) one of mc's stores (MC_HOME, a cache
 * root), which no checkpoint may record.
 */
export const CHECKPOINT_UNAVAILABLE_REASONS = ["git_missing", "workspace_in_store"] as const;

/** `initialize.extensions.turn.checkpoints`: whether this child records checkpoints. */
export const CheckpointsAvailability = lazy(() =>
  z.strictObject({
    available: z.boolean(),
    reason: z.enum(CHECKPOINT_UNAVAILABLE_REASONS).nullable(),
  }),
);
export type CheckpointsAvailability = Infer<typeof CheckpointsAvailability>;

/**
 * The `checkpoint_failed` event: a checkpoint could not be recorded (git failed, or took longer
 * than its bound); the turn goes on without it.
 */
export const CheckpointFailedEvent = lazy(() =>
  z.strictObject({
    type: z.literal("checkpoint_failed"),
    checkpoint_id: CheckpointId(),
    phase: z.enum(["before", "after"]),
    reason: z.enum(["failed", "timeout"]),
  }),
);

export const TurnRevertParams = lazy(() =>
  z.strictObject({
    session_id: SessionId(),
    /** The turn to undo: the files go back to their state before it (later turns undone too). */
    turn_id: TurnId(),
    /** Only say what would change, with a unified diff per file; nothing is written. */
    dry_run: z.boolean().optional(),
    /** Revert even though files changed since the session's last turn ended. */
    force: z.boolean().optional(),
    /** A dry run's next page (the cursor of its previous page). */
    cursor: Cursor().optional(),
  }),
);
export type TurnRevertParams = Infer<typeof TurnRevertParams>;

/**
 * What the revert does to one path: `removed` (created since), `restored` (changed since: its
 * content, mode or kind), `recreated` (deleted since), `kept` (changed since the last turn
 * ended, but already as it was before the reverted turn: nothing to write), `skipped` (a file
 * a checkpoint leaves out, over 8 MiB or inside a nested repository: left as it is).
 */
const REVERT_CHANGES = ["removed", "restored", "recreated", "kept", "skipped"] as const;
export const RevertChange = lazy(() => z.enum(REVERT_CHANGES));
export type RevertChange = Infer<typeof RevertChange>;

export const RevertFile = lazy(() =>
  z.strictObject({
    /** Workspace-relative, `/`-separated. */
    path: z.string(),
    change: RevertChange(),
    /** Changed since the session's last turn ended (not by its turns): `workspace_changed`. */
    changed_outside: z.boolean(),
    /** Dry runs: the unified diff from the file now to the file restored; null otherwise. */
    diff: z.string().nullable(),
    /** The diff was cut to fit the page (it ends with a line saying so), or left out (binary). */
    truncated: z.boolean(),
  }),
);
export type RevertFile = Infer<typeof RevertFile>;

export const TurnRevertResult = lazy(() =>
  z.strictObject({
    session_id: SessionId(),
    turn_id: TurnId(),
    /** `dry_run`: nothing written; `reverted`: the files are restored and `revert` recorded. */
    state: z.enum(["dry_run", "reverted"]),
    /** The checkpoint the files are restored to (taken before `turn_id`). */
    checkpoint: CheckpointRef(),
    /** How many turns the revert undoes (`turn_id` and every later one). */
    turns_reverted: z.number().int().min(1),
    /** Some files changed since the session's last turn ended (each has `changed_outside`). */
    workspace_changed: z.boolean(),
    /** Every path the revert touches or found changed; `files` is one page of them. */
    files_total: z.number().int().min(0),
    files: z.array(RevertFile()),
    /** A dry run's next page, or null. A revert's result lists what fits one page, no cursor. */
    cursor: Cursor().nullable(),
  }),
);
export type TurnRevertResult = Infer<typeof TurnRevertResult>;

/**
 * A turn's two checkpoints as the engine sees them (docs/checkpoints.md): the one before the
 * turn is started when the turn is admitted and runs beside the first model call; the engine
 * awaits it before the first tool runs (and before the turn's end), and takes the one after
 * the turn before its `turn_end`. Either may fail or time out: the turn goes on, and a
 * `checkpoint_failed` event says so.
 */
import { randomBytes } from "node:crypto";
import { GitFailed } from "./git.js";
import type { ShadowRepo } from "./shadow-repo.js";

export type CheckpointOutcome =
  | { ok: true; id: string }
  | { ok: false; id: string; reason: "failed" | "timeout" };

export interface TurnCheckpoints {
  /** The ID the checkpoint before the turn gets (turn_started carries it). */
  readonly id: string;
  /** The checkpoint before the turn, once recorded (or failed). */
  before(): Promise<CheckpointOutcome>;
  /** Records the checkpoint after the turn; `hurry`: the turn was interrupted (a short bound). */
  after(hurry: boolean): Promise<CheckpointOutcome>;
}

/** How long a checkpoint may take before the turn goes on without it. */
const CHECKPOINT_MS = 30_000;
/** The bound of an interrupted turn's checkpoints: its end stays within `cleanup_ms`. */
export const HURRIED_CHECKPOINT_MS = 600;

function newCheckpointId(): string {
  return `c-${randomBytes(16).toString("hex")}`;
}

/**
 * Starts the checkpoint before a turn at once (it runs beside the first model call) and
 * returns the turn's handle on its two checkpoints.
 */
export function startTurnCheckpoints(repo: ShadowRepo): TurnCheckpoints {
  const id = newCheckpointId();
  const before = recordCheckpoint(repo, id, CHECKPOINT_MS, true);
  return {
    id,
    before: () => before,
    after: (hurry) =>
      recordCheckpoint(repo, newCheckpointId(), hurry ? HURRIED_CHECKPOINT_MS : CHECKPOINT_MS),
  };
}

async function recordCheckpoint(
  repo: ShadowRepo,
  id: string,
  boundMs: number,
  /** Beside the turn's first model call: git at a lower CPU priority (git.ts, GitRun). */
  background = false,
): Promise<CheckpointOutcome> {
  const signal = AbortSignal.timeout(boundMs);
  try {
    await repo.record(id, signal, background);
    return { ok: true, id };
  } catch (error) {
    const late = signal.aborted || (error instanceof GitFailed && error.reason === "timeout");
    return { ok: false, id, reason: late ? "timeout" : "failed" };
  }
}

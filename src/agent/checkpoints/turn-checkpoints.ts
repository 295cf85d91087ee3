/**
 * A turn's two checkpoints as the engine sees them (docs/checkpoints.md): the one before the
 * turn is started when the turn is admitted and runs beside the first model call; the engine
 * awaits it before the first tool runs (and before the turn's end), and takes the one after
 * the turn before its `turn_end`. Either may fail or time out: the turn goes on, and a
 * `checkpoint_failed` event says so.
 */
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

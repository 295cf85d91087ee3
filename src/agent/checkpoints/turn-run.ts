import type { Infer } from "../../protocol/lazy.js";
import type { CheckpointFailedEvent } from "../../protocol/schemas/checkpoints.js";
import {
  type CheckpointOutcome,
  HURRIED_CHECKPOINT_MS,
  type TurnCheckpoints,
} from "./turn-checkpoints.js";

/** What `turn_end` records of the turn's checkpoints. */
export interface TurnEndCheckpoints {
  before: string | null;
  after: string | null;
}

type Emit = (event: Infer<typeof CheckpointFailedEvent>) => Promise<void>;

export class TurnCheckpointRun {
  private beforeCheckpoint: Promise<string | null> | null = null;

  constructor(
    private readonly checkpoint: TurnCheckpoints | null,
    private readonly signal: AbortSignal,
    private readonly emit: Emit,
    /** The child shutting down (shutdown, EOF): the turn's end must fit `cleanup_ms`. */
    private readonly closing?: AbortSignal,
  ) {}

  /**
   * The checkpoint before the turn, awaited once; null when it failed or timed out. An
   * interrupted turn waits for it only briefly, so that its end stays within its bound.
   */
  before(): Promise<string | null> {
    this.beforeCheckpoint ??= (async () => {
      if (!this.checkpoint) return null;
      const outcome = await hurried(this.checkpoint.before(), this.checkpoint.id, this.signal);
      return this.settle(outcome, "before");
    })();
    return this.beforeCheckpoint;
  }

  /** Both checkpoints for `turn_end`: the one before, and one taken now, after the turn. */
  async atEnd(): Promise<TurnEndCheckpoints | undefined> {
    if (!this.checkpoint) return undefined;
    // A child that is closing takes no new checkpoint and waits for none a tool did not already
    // need: on a loaded machine git alone can outlast the cleanup bound. Without a before
    // checkpoint no tool ran, so the turn changed nothing; without an after one, the next revert
    // cannot tell outside changes and asks for `force` (docs/checkpoints.md).
    if (this.closing?.aborted)
      return { before: this.beforeCheckpoint ? await this.beforeCheckpoint : null, after: null };
    const before = await this.before();
    const after = await this.settle(await this.checkpoint.after(this.signal.aborted), "after");
    return { before, after };
  }

  private async settle(
    outcome: CheckpointOutcome,
    phase: "before" | "after",
  ): Promise<string | null> {
    if (outcome.ok) return outcome.id;
    await this.emit({
      type: "checkpoint_failed",
      checkpoint_id: outcome.id,
      phase,
      reason: outcome.reason,
    });
    return null;
  }
}

/**
 * The checkpoint's outcome, but once the turn is interrupted, waited for at most
 * HURRIED_CHECKPOINT_MS more (then `timeout`).
 */
async function hurried(
  work: Promise<CheckpointOutcome>,
  id: string,
  signal: AbortSignal,
): Promise<CheckpointOutcome> {
  const late: CheckpointOutcome = { ok: false, id, reason: "timeout" };
  let timer: NodeJS.Timeout | undefined;
  let start = () => {};
  const bound = new Promise<CheckpointOutcome>((resolve) => {
    start = () => {
      timer = setTimeout(() => resolve(late), HURRIED_CHECKPOINT_MS);
    };
  });
  if (signal.aborted) start();
  else signal.addEventListener("abort", start, { once: true });
  try {
    return await Promise.race([work, bound]);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", start);
  }
}

/**
 * A session's turns as a revert sees them, from its whole history: each turn's checkpoints
 * (its `turn_end`), minus the turns earlier reverts undid.
 */
import type { SessionEvent } from "../../protocol/schemas/sessions.js";

interface SessionTurn {
  turnId: string;
  /** From its `turn_end`: undefined when it recorded none (read_only, no git, killed). */
  checkpoints?: { before: string | null; after: string | null };
}

export class SessionTurns {
  /** The turns not reverted, in order. */
  readonly live: SessionTurn[] = [];

  /** A RecordSink (history-scan.ts). */
  readonly add = (event: SessionEvent): void => {
    const turnId = (event as { turn_id?: unknown }).turn_id;
    if (typeof turnId !== "string") return;
    if (event.type === "turn_start") this.live.push({ turnId });
    if (event.type === "turn_end") {
      const turn = this.live.findLast((t) => t.turnId === turnId);
      const recorded = (event as { checkpoints?: unknown }).checkpoints;
      if (turn && isCheckpoints(recorded)) turn.checkpoints = recorded;
    }
    if (event.type === "revert") {
      const at = this.live.findIndex((t) => t.turnId === turnId);
      if (at >= 0) this.live.length = at;
    }
  };

  /** The live turns from `turnId` on, or null when it is not one of them. */
  from(turnId: string): SessionTurn[] | null {
    const at = this.live.findIndex((t) => t.turnId === turnId);
    return at < 0 ? null : this.live.slice(at);
  }

  /** The after-checkpoint of the last live turn that recorded checkpoints (null: none). */
  baseline(): string | null {
    const last = this.live.findLast((t) => t.checkpoints !== undefined);
    return last?.checkpoints?.after ?? null;
  }
}

function isCheckpoints(value: unknown): value is { before: string | null; after: string | null } {
  if (typeof value !== "object" || value === null) return false;
  const { before, after } = value as Record<string, unknown>;
  const ok = (v: unknown) => v === null || typeof v === "string";
  return ok(before) && ok(after);
}

import type { z } from "zod";
import type { Decision } from "../protocol/schemas/turns.js";

export type ApprovalDecision = z.infer<typeof Decision> | "cancelled";

/**
 * The approvals a turn is waiting for. `turn.approve` decides one; an interrupt (or shutdown)
 * cancels every pending one first, so a parked approval can never hold up the Stop button.
 */
export class ApprovalBroker {
  private readonly pending = new Map<string, (decision: ApprovalDecision) => void>();
  private next = 0;

  constructor(private readonly prefix: string) {}

  /** A fresh approval ID (unique within the child: the prefix is the turn's). */
  newId(): string {
    this.next += 1;
    return `${this.prefix}.a${this.next}`;
  }

  /** Resolves with the client's decision, or `cancelled` once `signal` fires. */
  wait(approvalId: string, signal: AbortSignal): Promise<ApprovalDecision> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve("cancelled");
      const settle = (decision: ApprovalDecision) => {
        this.pending.delete(approvalId);
        signal.removeEventListener("abort", onAbort);
        resolve(decision);
      };
      const onAbort = () => settle("cancelled");
      this.pending.set(approvalId, settle);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Applies a client's decision; false when no such approval is pending. */
  decide(approvalId: string, decision: z.infer<typeof Decision>): boolean {
    const settle = this.pending.get(approvalId);
    if (!settle) return false;
    settle(decision);
    return true;
  }

  cancelAll(): void {
    for (const settle of [...this.pending.values()]) settle("cancelled");
  }
}

import { isPathGlob, type RuleOffer } from "../protocol/schemas/rules.js";
import type { Decision } from "../protocol/schemas/turns.js";
import { editRule, globMatches } from "./rules/rule-match.js";

export type ApprovalDecision = Decision | "cancelled";

/** What a decided approval settles with: the decision and the rule it keeps, if any. */
interface ApprovalAnswer {
  decision: ApprovalDecision;
  /** The rule to keep (allow_session, allow_always, deny_always), narrowed by a `path_glob`. */
  rule: RuleOffer | null;
}

/** What one pending approval offers: its rule (null: none can be kept) and an edit's path. */
interface ApprovalOffer {
  rule: RuleOffer | null;
  path: string | null;
}

/**
 * The outcome of `decide`: `applied`, or why not, the approval still pending for a decision
 * that can apply: `missing` (no such pending approval), `no_rule` (an `_always` decision for an
 * approval that offers no rule), `bad_scope` (a `path_glob` on a command, with `allow_once` or
 * `deny`, or one that does not match the edit's own path).
 */
type DecideOutcome = "applied" | "missing" | "no_rule" | "bad_scope";

interface Pending {
  settle: (answer: ApprovalAnswer) => void;
  offer: ApprovalOffer;
}

/**
 * The approvals a turn is waiting for. `turn.approve` decides one (and the ACP agent, in-process,
 * calls `decide` the same way); an interrupt (or shutdown) cancels every pending one first, so a
 * parked approval can never hold up the Stop button.
 */
export class ApprovalBroker {
  private readonly pending = new Map<string, Pending>();
  private next = 0;

  constructor(private readonly prefix: string) {}

  /** A fresh approval ID (unique within the child: the prefix is the turn's). */
  newId(): string {
    this.next += 1;
    return `${this.prefix}.a${this.next}`;
  }

  /** Resolves with the client's decision, or `cancelled` once `signal` fires. */
  wait(
    approvalId: string,
    signal: AbortSignal,
    offer: ApprovalOffer = { rule: null, path: null },
  ): Promise<ApprovalAnswer> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve({ decision: "cancelled", rule: null });
      const settle = (answer: ApprovalAnswer) => {
        this.pending.delete(approvalId);
        signal.removeEventListener("abort", onAbort);
        resolve(answer);
      };
      const onAbort = () => settle({ decision: "cancelled", rule: null });
      this.pending.set(approvalId, { settle, offer });
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** The rule a pending approval offers (what an ACP "always" option would keep), or null. */
  offerOf(approvalId: string): RuleOffer | null {
    return this.pending.get(approvalId)?.offer.rule ?? null;
  }

  /**
   * Applies a decision. `allow_always` / `deny_always` need an approval that offers a rule;
   * `path_glob` narrows an edit approval's rule (it must match the edit's path). Synchronous:
   * the rule is kept by the waiting call, before the tool runs.
   */
  decide(
    approvalId: string,
    decision: Decision,
    options: { path_glob?: string } = {},
  ): DecideOutcome {
    const pending = this.pending.get(approvalId);
    if (!pending) return "missing";
    const keeps = decision !== "allow_once" && decision !== "deny";
    const { rule, path } = pending.offer;
    if (keeps && rule === null && decision !== "allow_session") return "no_rule";
    let kept = keeps ? rule : null;
    if (options.path_glob !== undefined) {
      const glob = options.path_glob;
      if (!keeps || rule?.tool !== "edit" || path === null) return "bad_scope";
      if (!isPathGlob(glob) || !globMatches(glob, path)) return "bad_scope";
      kept = editRule(glob);
    }
    pending.settle({ decision, rule: kept });
    return "applied";
  }

  cancelAll(): void {
    for (const { settle } of [...this.pending.values()])
      settle({ decision: "cancelled", rule: null });
  }
}

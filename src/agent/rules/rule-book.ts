/**
 * The approval rules a call is judged by (docs/tools.md, "Approval rules"): this attachment's
 * (allow_session, kept in memory) and the workspace's (allow_always / deny_always, kept in
 * `MC_HOME/rules/`, read again for every call so that a rule another child added or the user
 * removed counts at once). A deny rule wins over every allow rule and over every permission
 * level; an allow rule only spares a question the level would have asked.
 */

import { MCP_TOOL_NAME } from "../../protocol/schemas/mcp-tool-names.js";
import {
  isPathGlob,
  type KeptRule,
  RULES_PER_WORKSPACE,
  type RuleOffer,
} from "../../protocol/schemas/rules.js";
import {
  type NewRule,
  type RulesRead,
  RulesUnavailable,
  type StoredRule,
  WorkspaceRulesFile,
} from "../../store/rules-file.js";
import { runsWorkspaceCode } from "./code-runners.js";
import { denyVerdict } from "./deny-match.js";
import { allowCovers, editRule, mcpRule, type RuleSubject, shellRule } from "./rule-match.js";

type Effect = "allow" | "deny";
/** `unsure`: a deny rule may match what the command runs; the call asks, at every level. */
export type Verdict = { effect: Effect; rule: KeptRule } | { effect: "unsure" } | null;

/** What a call is judged for besides its subject (tool-step.ts). */
export interface CallContext {
  /** A `shell` call with `"sandbox": false` under `sandboxed`: it leaves the sandbox. */
  escalation: boolean;
}

/**
 * The rules of one attachment: gone with it (a new session.create or session.open). Besides the
 * rules themselves it remembers which of them an escalation was granted by, and how many unseen
 * changes the model made to the workspace (docs/tools.md, "Escalations and code runners").
 */
export class SessionRules {
  private readonly rules: KeptRule[] = [];
  private next = 0;
  /** IDs of session rules kept by an allow_session given to an escalation. */
  private readonly escalating = new Set<string>();
  /** Unseen changes so far; per rule kept in this attachment, the count when it was kept. */
  private unseenChanges = 0;
  private readonly keptAt = new Map<string, number>();

  add(effect: Effect, offer: RuleOffer, now = new Date()): KeptRule {
    const same = this.rules.find((r) => r.effect === effect && sameOffer(r, offer));
    if (same) {
      this.noteKept(same.id);
      return same;
    }
    if (this.rules.length >= RULES_PER_WORKSPACE) this.forget(this.rules.shift()?.id);
    this.next += 1;
    const kept = {
      ...offer,
      id: `s-${this.next}`,
      effect,
      scope: "session",
      created_at: now.toISOString(),
    } as KeptRule;
    this.rules.push(kept);
    this.noteKept(kept.id);
    return kept;
  }

  remove(id: string): boolean {
    const at = this.rules.findIndex((r) => r.id === id);
    if (at < 0) return false;
    this.rules.splice(at, 1);
    this.forget(id);
    return true;
  }

  /** The rule `id` (kept by allow_session) now also grants the escalation it was given to. */
  grantEscalation(id: string): void {
    this.escalating.add(id);
  }

  /** The model changed (or may have changed) the workspace without the user seeing it. */
  noteUnseenChange(): void {
    this.unseenChanges += 1;
  }

  /** A rule (of either scope) was kept, or kept again, by a decision in this attachment. */
  noteKept(id: string): void {
    this.keptAt.set(id, this.unseenChanges);
  }

  /**
   * Whether an allow rule that matches may spare this call's question: an escalation only by a
   * rule granted to an escalation; a code runner only by a rule kept since the last unseen
   * change (a rule from before this attachment counts as kept at its start).
   */
  mayAllow(rule: KeptRule, call: CallContext, runsWorkspaceCode: boolean): boolean {
    if (call.escalation && !this.escalating.has(rule.id)) return false;
    if (!runsWorkspaceCode) return true;
    return (this.keptAt.get(rule.id) ?? 0) >= this.unseenChanges;
  }

  private forget(id: string | undefined): void {
    if (id === undefined) return;
    this.escalating.delete(id);
    this.keptAt.delete(id);
  }

  list(): KeptRule[] {
    return [...this.rules];
  }
}

/** A rule change that failed, by a reason the wire can name without a path. */
export { RulesUnavailable };

export class RuleBook {
  private reportedInvalid = false;
  readonly file: WorkspaceRulesFile;

  constructor(
    home: string,
    workspace: string,
    /** Says a problem on stderr (without a path): the child's log line. */
    private readonly report: (line: string) => void,
  ) {
    this.file = new WorkspaceRulesFile(home, workspace, (rule) => toKept(rule) !== null);
  }

  /**
   * The first deny rule that matches, else the first allow rule that matches and may spare this
   * call's question (SessionRules.mayAllow), else null.
   */
  async verdict(
    session: SessionRules,
    subject: RuleSubject,
    call: CallContext = { escalation: false },
  ): Promise<Verdict> {
    const all = [...session.list(), ...(await this.workspaceRules()).rules];
    const deny = denyVerdict(all, subject);
    if (deny === "unsure") return { effect: "unsure" };
    if (deny) return { effect: "deny", rule: deny };
    const runner = runsWorkspaceCode(subject);
    const allow = all.find(
      (rule) =>
        rule.effect === "allow" &&
        allowCovers(rule, subject) &&
        session.mayAllow(rule, call, runner),
    );
    return allow ? { effect: "allow", rule: allow } : null;
  }

  /**
   * Keeps the rule a decision asked for: allow_session in the attachment, the `_always` ones in
   * the workspace file. When the file cannot take it (damaged, full, a failed write), the rule
   * is kept for the attachment instead and the problem reported, so the decision still holds.
   */
  async keep(
    session: SessionRules,
    decision: "allow_session" | "allow_always" | "deny_always",
    offer: RuleOffer,
    call: CallContext = { escalation: false },
  ): Promise<KeptRule> {
    const effect: Effect = decision === "deny_always" ? "deny" : "allow";
    if (decision === "allow_session") {
      const kept = session.add(effect, offer);
      if (call.escalation) session.grantEscalation(kept.id);
      return kept;
    }
    try {
      const stored = await this.file.add(newRule(effect, offer));
      session.noteKept(stored.id);
      return toKept(stored) as KeptRule;
    } catch (error) {
      const reason = error instanceof RulesUnavailable ? error.reason : "write_failed";
      this.report(`approval rule not saved (${reason}); kept for this session only`);
      return session.add(effect, offer);
    }
  }

  /** The workspace file's state and rules, as `approval.rules` lists them. */
  async workspaceRules(): Promise<{ file: RulesRead["state"]; rules: KeptRule[] }> {
    let read: RulesRead;
    try {
      read = await this.file.read();
    } catch {
      read = { state: "invalid", rules: [] };
    }
    if (read.state === "invalid" && !this.reportedInvalid) {
      this.reportedInvalid = true;
      this.report("this workspace's approval rules file is invalid and ignored (mc-agent rules)");
    }
    if (read.state !== "invalid") this.reportedInvalid = false;
    return { file: read.state, rules: read.rules.map((rule) => toKept(rule) as KeptRule) };
  }
}

/** A stored rule as the wire shows it, or null when its text or glob is out of bounds. */
function toKept(rule: StoredRule): KeptRule | null {
  const meta = {
    id: rule.id,
    effect: rule.effect,
    scope: "workspace" as const,
    created_at: rule.created_at,
  };
  if (rule.tool === "edit") {
    if (rule.path_glob !== null && !isPathGlob(rule.path_glob)) return null;
    return { ...meta, ...editRule(rule.path_glob) } as KeptRule;
  }
  if (rule.tool === "mcp")
    return MCP_TOOL_NAME.test(rule.name) ? ({ ...meta, ...mcpRule(rule.name) } as KeptRule) : null;
  const offer = shellRule(rule.match, rule.env, rule.words);
  return offer ? ({ ...meta, ...offer } as KeptRule) : null;
}

/** The offer without its display text: what the store keeps. */
function newRule(effect: Effect, offer: RuleOffer): NewRule {
  if (offer.tool === "edit") return { effect, tool: "edit", path_glob: offer.path_glob };
  if (offer.tool === "mcp") return { effect, tool: "mcp", name: offer.name };
  return { effect, tool: "shell", match: offer.match, env: offer.env, words: offer.words };
}

function sameOffer(kept: KeptRule, offer: RuleOffer): boolean {
  if (kept.tool === "edit") return offer.tool === "edit" && kept.path_glob === offer.path_glob;
  if (kept.tool === "mcp") return offer.tool === "mcp" && kept.name === offer.name;
  return offer.tool === "shell" && kept.text === offer.text && kept.match === offer.match;
}

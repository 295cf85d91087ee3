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
import { editRule, mcpRule, type RuleSubject, ruleMatches, shellRule } from "./rule-match.js";

export type Effect = "allow" | "deny";
export type Verdict = { effect: Effect; rule: KeptRule } | null;

/** The rules of one attachment: gone with it (a new session.create or session.open). */
export class SessionRules {
  private readonly rules: KeptRule[] = [];
  private next = 0;

  add(effect: Effect, offer: RuleOffer, now = new Date()): KeptRule {
    const same = this.rules.find((r) => r.effect === effect && sameOffer(r, offer));
    if (same) return same;
    if (this.rules.length >= RULES_PER_WORKSPACE) this.rules.shift();
    this.next += 1;
    const kept = {
      ...offer,
      id: `s-${this.next}`,
      effect,
      scope: "session",
      created_at: now.toISOString(),
    } as KeptRule;
    this.rules.push(kept);
    return kept;
  }

  remove(id: string): boolean {
    const at = this.rules.findIndex((r) => r.id === id);
    if (at < 0) return false;
    this.rules.splice(at, 1);
    return true;
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

  /** The first deny rule that matches, else the first allow rule, else null. */
  async verdict(session: SessionRules, subject: RuleSubject): Promise<Verdict> {
    const all = [...session.list(), ...(await this.workspaceRules()).rules];
    const first = (effect: Effect) =>
      all.find((rule) => rule.effect === effect && ruleMatches(rule, subject));
    const deny = first("deny");
    if (deny) return { effect: "deny", rule: deny };
    const allow = first("allow");
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
  ): Promise<KeptRule> {
    const effect: Effect = decision === "deny_always" ? "deny" : "allow";
    if (decision === "allow_session") return session.add(effect, offer);
    try {
      const stored = await this.file.add(newRule(effect, offer));
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

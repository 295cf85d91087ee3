import { RuleBook, SessionRules } from "../../agent/rules/rule-book.js";
import { log } from "../../process/log.js";
import { ProtocolError } from "../../protocol/codes.js";
import type { Attachment } from "../../protocol/schemas/lifecycle.js";
import type { ApprovalRulesResult } from "../../protocol/schemas/rules.js";
import { RulesUnavailable } from "../../store/rules-file.js";
import type { HandlerTable } from "../handler.js";
import type { ServerState } from "../state.js";

/**
 * The child's approval rules: the workspace's rule book and the current attachment's session
 * rules. `allow_session` lasts for the rest of this child's attachment: a new `session.create` or
 * `session.open` (a new attachment object) starts with none. The first turn of a lazy handle
 * replaces the attachment with its saved form before it asks, so its rules carry on.
 */
export class ChildRules {
  readonly book: RuleBook;
  private attachment: Attachment | null = null;
  private current = new SessionRules();

  /**
   * `kept`: session rules that outlive this server (the in-process ACP engine of one ACP session,
   * which may be closed while idle and reopened: src/acp/sessions.ts). That server serves one
   * session for its whole life, so its rules are these whatever the attachment.
   */
  constructor(
    private readonly state: ServerState,
    private readonly kept?: SessionRules,
  ) {
    this.book = new RuleBook(state.home, state.cwd, (line) => log("warn", line));
  }

  /** The session rules of the attachment in force now. */
  session(): SessionRules {
    if (this.kept) return this.kept;
    const attachment = this.state.attachment;
    if (attachment !== this.attachment) this.current = new SessionRules();
    this.attachment = attachment;
    return this.current;
  }

  async list(): Promise<ApprovalRulesResult> {
    const workspace = await this.book.workspaceRules();
    return { file: workspace.file, rules: [...this.session().list(), ...workspace.rules] };
  }
}

/** approval.rules: list, remove one, or clear the workspace's (docs/turns.md). */
export function rulesHandlers(rules: ChildRules): HandlerTable {
  return {
    // A remove or clear commits at its rename (ctx.commit): cancelled before it, nothing changed.
    "approval.rules": async (params, ctx) => {
      try {
        if (params.action === "remove") {
          if (params.rule_id.startsWith("s-")) {
            const session = rules.session();
            if (!ctx.commit(() => session.remove(params.rule_id)))
              throw new ProtocolError("rule_missing");
          } else {
            await rules.book.file.remove(params.rule_id, ctx.commit);
          }
        } else if (params.action === "clear") {
          await rules.book.file.clear(ctx.commit);
        }
      } catch (error) {
        if (!(error instanceof RulesUnavailable)) throw error;
        if (error.reason === "missing_rule") throw new ProtocolError("rule_missing");
        throw new ProtocolError("rules_unavailable");
      }
      return rules.list();
    },
  };
}

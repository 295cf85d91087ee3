/**
 * Our approvals as ACP permission requests, and the editor's answer as our decision.
 */
import type {
  AgentContext,
  PermissionOption,
  RequestPermissionOutcome,
  ToolCallUpdate,
} from "@agentclientprotocol/sdk";
import type { RuleOffer } from "../protocol/schemas/rules.js";
import type { Decision, TurnEventBody } from "../protocol/schemas/turns.js";
import { showHidden } from "../protocol/visible-text.js";
import { diffContent, textContent, toolLocations } from "./tool-calls.js";

type ApprovalRequested = Extract<TurnEventBody, { type: "approval_requested" }>;

/**
 * A rule as an option's name shows it: a command rule's words quoted; an edit rule by its glob
 * (its own text says "in the workspace", which the workspace option's name already says).
 */
function ruleName(rule: RuleOffer): string {
  if (rule.tool === "shell") return `\`${showHidden(rule.text)}\``;
  if (rule.tool === "mcp") return showHidden(rule.text);
  return rule.path_glob === null ? "every edit" : `edits of ${rule.path_glob}`;
}

/**
 * The choices an ACP client shows for one of our approvals, in this order. The lasting ones
 * exist only when the event offers a rule (a compound command offers none: docs/tools.md,
 * "Approval rules"), and they name it, so the user sees what is kept.
 */
function permissionOptions(rule: RuleOffer | null): PermissionOption[] {
  const once: PermissionOption = { optionId: "allow_once", name: "Allow once", kind: "allow_once" };
  const reject: PermissionOption = { optionId: "reject_once", name: "Reject", kind: "reject_once" };
  if (rule === null) return [once, reject];
  const what = ruleName(rule);
  return [
    once,
    { optionId: "allow_session", name: `Allow ${what} for this session`, kind: "allow_always" },
    {
      optionId: "allow_always",
      name: `Always allow ${what} in this workspace`,
      kind: "allow_always",
    },
    { optionId: "deny_always", name: `Always reject ${what}`, kind: "reject_always" },
    reject,
  ];
}

/** Each option's decision; `reject_once` and anything not offered is `deny`. */
const DECISION_OF = new Map<string, Decision>([
  ["allow_once", "allow_once"],
  ["allow_session", "allow_session"],
  ["allow_always", "allow_always"],
  ["deny_always", "deny_always"],
]);

/**
 * The one place an ACP answer becomes our `turn.approve` decision: only an option this request
 * offered counts (a client answering `allow_always` where no rule was offered gets `deny`, so
 * nothing is allowed that the user was not shown). `cancelled` (the client dismissed the
 * request, or the prompt was cancelled) interrupts the turn instead of deciding.
 */
function decisionFor(
  outcome: RequestPermissionOutcome,
  offered: readonly PermissionOption[],
): Decision | "interrupt" {
  if (outcome.outcome === "cancelled") return "interrupt";
  const { optionId } = outcome;
  if (!offered.some((option) => option.optionId === optionId)) return "deny";
  return DECISION_OF.get(optionId) ?? "deny";
}

/** The tool call an approval is about: the diff it would apply or the command it would run. */
function permissionToolCall(cwd: string, event: ApprovalRequested): ToolCallUpdate {
  const content = event.diff ? diffContent(cwd, event.diff) : [];
  // Escaped whatever sent the event: no reordered or hidden text in the editor's dialog.
  if (event.command !== null) content.push(textContent(showHidden(event.command)));
  if (event.truncated) content.push(textContent("(shown cut to the event bound)"));
  return {
    toolCallId: event.item_id,
    title: showHidden(event.title),
    kind: event.kind === "edit" ? "edit" : "execute",
    status: "pending",
    content,
    locations: event.path === null ? [] : toolLocations(cwd, { path: event.path }),
  };
}

/**
 * Asks the client. A client that fails the request (or a prompt over before it answers) counts as
 * cancelled: nothing is allowed that the user did not allow.
 */
export async function askPermission(
  client: Pick<AgentContext, "request">,
  sessionId: string,
  cwd: string,
  event: ApprovalRequested,
  signal: AbortSignal,
): Promise<Decision | "interrupt"> {
  const options = permissionOptions(event.rule);
  try {
    const answer = await client.request(
      "session/request_permission",
      { sessionId, toolCall: permissionToolCall(cwd, event), options },
      { cancellationSignal: signal },
    );
    return decisionFor(answer.outcome, options);
  } catch {
    return "interrupt";
  }
}

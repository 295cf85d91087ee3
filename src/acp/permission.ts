import type {
  AgentContext,
  PermissionOption,
  RequestPermissionOutcome,
  ToolCallUpdate,
} from "@agentclientprotocol/sdk";
import type { Decision, TurnEventBody } from "../protocol/schemas/turns.js";
import { diffContent, textContent, toolLocations } from "./tool-calls.js";

type ApprovalRequested = Extract<TurnEventBody, { type: "approval_requested" }>;

/** The choices an ACP client shows for one of our approvals, in this order. */
export const PERMISSION_OPTIONS: PermissionOption[] = [
  { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
  { optionId: "allow_always", name: "Always allow in this session", kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
];

/**
 * The one place an ACP answer becomes our `turn.approve` decision. `allow_always` is our
 * `allow_session` for now (the same edit or command kind is not asked again in this session);
 * repoint it here when turn.approve gains a lasting decision. `cancelled` (the client dismissed
 * the request, or the prompt was cancelled) interrupts the turn instead of deciding.
 */
export function decisionFor(outcome: RequestPermissionOutcome): Decision | "interrupt" {
  if (outcome.outcome === "cancelled") return "interrupt";
  switch (outcome.optionId) {
    case "allow_once":
      return "allow_once";
    case "allow_always":
      return "allow_session";
    default:
      return "deny";
  }
}

/** The tool call an approval is about: the diff it would apply or the command it would run. */
export function permissionToolCall(cwd: string, event: ApprovalRequested): ToolCallUpdate {
  const content = event.diff ? diffContent(cwd, event.diff) : [];
  if (event.command !== null) content.push(textContent(event.command));
  if (event.truncated) content.push(textContent("(shown cut to the event bound)"));
  return {
    toolCallId: event.item_id,
    title: event.title,
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
  client: AgentContext,
  sessionId: string,
  cwd: string,
  event: ApprovalRequested,
  signal: AbortSignal,
): Promise<Decision | "interrupt"> {
  try {
    const answer = await client.request(
      "session/request_permission",
      { sessionId, toolCall: permissionToolCall(cwd, event), options: PERMISSION_OPTIONS },
      { cancellationSignal: signal },
    );
    return decisionFor(answer.outcome);
  } catch {
    return "interrupt";
  }
}

/**
 * The first prompt of a session in a workspace whose project file names hooks or MCP servers the
 * user has not trusted (docs/trust.md, "ACP"): asked once per session through
 * `session/request_permission`, before the turn starts.
 */
import type { AgentContext, PermissionOption } from "@agentclientprotocol/sdk";
import { log } from "../process/log.js";
import { showHidden } from "../protocol/visible-text.js";
import type { EngineLink } from "./engine-link.js";
import { textContent } from "./tool-calls.js";

const TRUST: PermissionOption = {
  optionId: "trust_workspace",
  name: "Trust this workspace",
  kind: "allow_always",
};
const NOT_NOW: PermissionOption = { optionId: "not_now", name: "Not now", kind: "reject_once" };

/** The question's text: what the project file would run, by name, never a command line. */
export function trustQuestion(
  waiting: { hooks: boolean; mcp_servers: string[] },
  changed: boolean,
): string {
  const parts: string[] = [];
  if (waiting.mcp_servers.length > 0)
    parts.push(`MCP servers (${waiting.mcp_servers.map(showHidden).join(", ")})`);
  if (waiting.hooks) parts.push("hooks");
  const what = parts.join(" and ");
  const since = changed ? " They changed since you trusted this workspace." : "";
  return `This workspace's .mc/config.json runs ${what}.${since} They run only once you trust it.`;
}

/**
 * Asks, and trusts on the user's yes (the project's servers join this session at once). A
 * dismissed request, a failed one or "Not now" leaves everything as it was: the prompt goes on
 * without the project's code, and the next session asks again.
 */
export async function askWorkspaceTrust(
  client: Pick<AgentContext, "request">,
  sessionId: string,
  engine: EngineLink,
  signal: AbortSignal | undefined,
): Promise<void> {
  const waiting = engine.waiting();
  if (waiting === null || (!waiting.hooks && waiting.mcp_servers.length === 0)) return;
  const options = [TRUST, NOT_NOW];
  try {
    const answer = await client.request(
      "session/request_permission",
      {
        sessionId,
        toolCall: {
          toolCallId: "workspace_trust",
          title: "Trust this workspace?",
          kind: "other",
          status: "pending",
          content: [textContent(trustQuestion(waiting, engine.trust === "changed"))],
        },
        options,
      },
      signal ? { cancellationSignal: signal } : undefined,
    );
    const outcome = answer.outcome;
    if (outcome.outcome !== "selected" || outcome.optionId !== TRUST.optionId) return;
    await engine.trustWorkspace();
  } catch {
    log("warn", "the workspace trust question failed; the project's code stays off");
  }
}

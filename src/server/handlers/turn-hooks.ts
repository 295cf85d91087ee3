import { ChildHooks } from "../../agent/hooks/child-hooks.js";
import type { TurnHooks } from "../../agent/hooks/turn-hooks.js";
import { shellEnvironment } from "../../agent/tools/shell-env.js";
import type { TurnEvents } from "../../agent/turn-events.js";
import { ProtocolError } from "../../protocol/codes.js";
import type { Permissions } from "../../protocol/schemas/turns.js";
import type { LoadedSettings } from "../../store/settings.js";
import type { ProjectTrust } from "../../trust/workspace-trust.js";
import type { ServerState } from "../state.js";

/** The child's hooks, made on its first turn from the settings read at its start. */
export function childHooks(
  state: ServerState,
  settings: LoadedSettings,
  trust: ProjectTrust,
  credentialVariables: readonly string[],
): ChildHooks {
  return new ChildHooks({
    home: state.home,
    workspace: state.cwd,
    hooks: settings.hooks,
    // The trust the child found at its start (model-services.ts), as for project MCP servers.
    projectTrusted: trust === "trusted",
    // The environment of `shell`: no provider key reaches a hook.
    env: shellEnvironment(state.env, credentialVariables),
  });
}

/**
 * A turn's hooks (docs/hooks.md), and its `UserPromptSubmit` run before the turn is admitted:
 * a hook that blocks the prompt refuses `turn.start` with `prompt_blocked`, before anything is
 * written or sent. Null without an attachment (admission refuses that turn next). Hooks run
 * whether or not `hooks` was negotiated; only their events need it.
 */
export async function promptHooks(
  hooks: ChildHooks,
  state: ServerState,
  input: string,
  permissions: Permissions,
  signal: AbortSignal,
  events: TurnEvents,
  turnId: string,
): Promise<{ turn: TurnHooks; promptContext: string } | null> {
  const attachment = state.attachment;
  if (attachment === null) return null;
  const turn = await hooks.forTurn({
    sessionId: attachment.session_id,
    savedSession: attachment.saved,
    permissions,
    signal,
    emit: state.negotiated.has("hooks") ? (event) => events.emit(event) : null,
    idPrefix: turnId,
  });
  const submitted = await turn.userPromptSubmit(input);
  if (submitted.blocked !== null)
    throw new ProtocolError("prompt_blocked", submitted.blocked || undefined);
  return { turn, promptContext: submitted.context };
}

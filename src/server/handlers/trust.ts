import { ProtocolError } from "../../protocol/codes.js";
import { projectIsGlobal } from "../../store/settings.js";
import {
  projectTrust,
  revokeWorkspaceTrust,
  TrustUnavailable,
  trustWorkspace,
} from "../../trust/workspace-trust.js";
import type { HandlerTable } from "../handler.js";
import type { ServerState } from "../state.js";
import type { ModelServices } from "./model-services.js";

/**
 * `workspace.trust` (docs/trust.md): trusts this workspace's project code as this child read it
 * at start (what `settings.check` reported, so the user trusts what they were shown; a file
 * changed since is `changed` for the next child), or revokes the trust. Like the settings, it
 * takes effect in the next child of the workspace: this one keeps what it started with.
 */
export function trustHandlers(state: ServerState, services: ModelServices): HandlerTable {
  return {
    // Committed at its rename or unlink (ctx.commit): cancelled before it, nothing changed.
    "workspace.trust": async (params, ctx) => {
      const project = services.settings.project;
      try {
        if (projectIsGlobal(state.home, state.cwd)) ctx.commit(() => {});
        else if (params.trusted) await trustWorkspace(state.home, state.cwd, project, ctx.commit);
        else await revokeWorkspaceTrust(state.home, state.cwd, ctx.commit);
      } catch (error) {
        if (!(error instanceof TrustUnavailable)) throw error;
        throw new ProtocolError("internal_error", "The workspace's trust could not be saved.");
      }
      return {
        trust: projectTrust(state.home, state.cwd, project),
        configuration_reload: "restart_child" as const,
      };
    },
  };
}

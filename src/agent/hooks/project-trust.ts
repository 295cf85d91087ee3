/**
 * Whether a project's hooks may run: the repository's `.mc/config.json` is code someone else
 * wrote, so its hooks wait for the user's trust in the workspace (docs/trust.md): trust for
 * exactly the file's `hooks` and `mcp_servers` as they are now.
 */
import { type ProjectCode, projectTrust } from "../../trust/workspace-trust.js";

export function isProjectHooksTrusted(
  home: string,
  workspace: string,
  projectConfig: ProjectCode,
): boolean {
  return projectTrust(home, workspace, projectConfig) === "trusted";
}

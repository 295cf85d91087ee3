/**
 * Whether a project's hooks may run: the repository's `.mc/config.json` is code someone else
 * wrote, so its hooks wait for the user's trust in the workspace (docs/hooks.md, "Project
 * hooks and trust"). Until the trust store is built (issue 40 item 6), no project hook runs.
 */
export async function isProjectHooksTrusted(
  _home: string,
  _workspace: string,
  _projectConfig: { hooks?: unknown; mcp_servers?: unknown },
): Promise<boolean> {
  return false;
}

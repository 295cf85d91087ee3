import { resolveHome } from "../store/home.js";
import { loadSettings, projectIsGlobal } from "../store/settings.js";
import {
  canonicalWorkspace,
  type ProjectCode,
  type ProjectTrust,
  projectTrust,
  revokeWorkspaceTrust,
  trustWorkspace,
  waitingCode,
} from "../trust/workspace-trust.js";

/**
 * The CLI's view of a folder's trust (docs/trust.md), read from the store as a child reads it at
 * its start: `mc-agent trust`, `chat`'s question, `doctor`.
 */
export interface TrustFinding {
  workspace: string;
  trust: ProjectTrust;
  /** `<workspace>/.mc` is MC_HOME: its config.json is the global file, which needs no trust. */
  global: boolean;
  /** The project file exists but is invalid: none of it applies, nothing to trust. */
  invalid: boolean;
  /** What the project file would run (empty when it runs nothing). */
  waiting: { hooks: boolean; mcp_servers: string[] };
  /** The members read, which a trust is for. */
  project: ProjectCode;
}

export function trustFinding(env: NodeJS.ProcessEnv, cwd: string): TrustFinding {
  const home = resolveHome(env);
  const workspace = canonicalWorkspace(cwd);
  const settings = loadSettings(home, workspace);
  return {
    workspace,
    trust: projectTrust(home, workspace, settings.project),
    global: projectIsGlobal(home, workspace),
    invalid: settings.invalid.project,
    waiting: waitingCode(settings.project),
    project: settings.project,
  };
}

/**
 * Trusts (or revokes) the folder for the members `finding` read, so that what is trusted is what
 * the user was shown (a file changed since reads as `changed` at the next start); returns the
 * trust a new child of it starts with.
 */
export async function setTrust(
  env: NodeJS.ProcessEnv,
  finding: TrustFinding,
  trusted: boolean,
): Promise<ProjectTrust> {
  const home = resolveHome(env);
  if (trusted) await trustWorkspace(home, finding.workspace, finding.project);
  else await revokeWorkspaceTrust(home, finding.workspace);
  return projectTrust(home, finding.workspace, finding.project);
}

/** "MCP servers (a, b) and hooks": what waits, by name only. */
export function waitingText(waiting: TrustFinding["waiting"]): string {
  const parts: string[] = [];
  if (waiting.mcp_servers.length > 0) parts.push(`MCP servers (${waiting.mcp_servers.join(", ")})`);
  if (waiting.hooks) parts.push("hooks");
  return parts.length > 0 ? parts.join(" and ") : "no hooks and no MCP servers";
}

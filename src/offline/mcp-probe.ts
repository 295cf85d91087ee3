import { McpManager } from "../agent/mcp/manager.js";
import { planServers } from "../agent/mcp/plan.js";
import type { McpServerStatus } from "../protocol/schemas/mcp.js";
import {
  GlobalSettings,
  globalSettingsPath,
  loadSettings,
  readSettingsFile,
} from "../store/settings.js";
import { serversToStart } from "../trust/project-servers.js";
import { projectTrust } from "../trust/workspace-trust.js";

/**
 * The doctor's MCP section: the configured servers started exactly as a child starts them (the
 * engine's own manager, src/agent/mcp/), waited for each up to its startup timeout, then stopped
 * as at a child's shutdown, all without a child: the servers' states as plain data.
 */
export type McpFinding =
  /** The servers as `mcp.status` would list them; `interrupted` when Ctrl-C cut the wait. */
  | { kind: "servers"; servers: McpServerStatus[]; interrupted: boolean }
  /** MC_HOME/config.json is invalid, so no server starts; `badName` when a server's name is why. */
  | { kind: "invalid"; badName: string | null };

export async function mcpFinding(
  home: string,
  workspace: string,
  env: NodeJS.ProcessEnv,
  signal: AbortSignal,
  onStart: (count: number) => void,
): Promise<McpFinding> {
  const read = readSettingsFile(globalSettingsPath(home), GlobalSettings);
  if (read.state === "invalid") {
    const issue = read.fault.issue;
    const named = issue?.code === "invalid_key" && issue.path[0] === "mcp_servers";
    return { kind: "invalid", badName: named ? String(issue.path[1]) : null };
  }
  // A trusted project's servers too, as a child of this workspace starts them (docs/trust.md).
  const settings = loadSettings(home, workspace);
  const { servers } = serversToStart(settings, projectTrust(home, workspace, settings.project));
  const manager = new McpManager({ servers, env, workspace });
  if (!manager.configured) return { kind: "servers", servers: [], interrupted: false };
  onStart(manager.status().filter((s) => s.state === "starting").length);
  manager.begin();
  try {
    const longest = Math.max(...planServers(servers).map((p) => p.startupTimeoutMs));
    await settled(manager, longest + GRACE_MS, signal);
    return { kind: "servers", servers: manager.status(), interrupted: signal.aborted };
  } finally {
    await manager.close();
  }
}

/**
 * Past the longest startup timeout, so that a start failing at its own timeout is seen failed
 * (the manager's timer and a wait of the same length race otherwise).
 */
const GRACE_MS = 2_000;

/** Until no server is `starting`, `boundMs` has passed, or `signal` is aborted. */
function settled(manager: McpManager, boundMs: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      off();
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const check = () => {
      if (!manager.status().some((s) => s.state === "starting")) done();
    };
    const off = manager.onChange(check);
    const timer = setTimeout(done, boundMs);
    signal.addEventListener("abort", done, { once: true });
    if (signal.aborted) done();
    else check();
  });
}

import { MAX_MCP_SERVERS, type McpServersSettings } from "../store/mcp-settings.js";
import type { LoadedSettings } from "../store/settings.js";
import type { ProjectTrust } from "./workspace-trust.js";

/**
 * The MCP servers a child of this workspace starts (docs/trust.md, "Project MCP servers"): the
 * global file's, and, only in a trusted workspace, the project file's. A project server of the
 * same name as a global one replaces it (project over global, as for the preferences); the
 * project's new names come after the global ones, in the order written, up to the 32 servers
 * `mcp.status` can list: the project's servers past that are left out (`dropped`).
 */
export function serversToStart(
  settings: Pick<LoadedSettings, "global" | "project">,
  trust: ProjectTrust,
): { servers: McpServersSettings | undefined; dropped: string[] } {
  const global = settings.global.mcp_servers;
  const project = settings.project.mcp_servers;
  if (trust !== "trusted" || !project || Object.keys(project).length === 0)
    return { servers: global, dropped: [] };
  const servers: McpServersSettings = { ...global };
  const dropped: string[] = [];
  for (const [name, server] of Object.entries(project)) {
    if (Object.hasOwn(servers, name) || Object.keys(servers).length < MAX_MCP_SERVERS)
      servers[name] = server;
    else dropped.push(name);
  }
  return { servers, dropped };
}

import type { McpServer } from "@agentclientprotocol/sdk";
import { McpManager } from "../agent/mcp/manager.js";
import { McpCallError } from "../agent/mcp/types.js";
import type { McpToolSource } from "../agent/mcp-tools/source.js";
import { log, logEnabled } from "../process/log.js";
import type { McpServersSettings } from "../store/mcp-settings.js";
import type { LoadedSettings } from "../store/settings.js";
import { sessionMcpServers } from "./mcp-servers.js";

interface Shared {
  manager: McpManager;
  users: number;
}

/** A session's MCP servers as its engine uses them; `close` ends its part (engine shutdown). */
interface SessionMcp {
  source: McpToolSource;
  /** The editor's own servers of this session, when it named any (their start is awaited). */
  own: McpManager | null;
  /**
   * Starts the project file's servers for this session (docs/trust.md, "ACP"): at its engine's
   * start in a trusted workspace, or once the user trusted it at the first prompt. Once only.
   */
  startProject(): void;
  close(): Promise<void>;
}

function manager(servers: McpServersSettings, env: NodeJS.ProcessEnv, cwd: string): McpManager {
  return new McpManager({
    servers,
    env,
    workspace: cwd,
    debug: logEnabled("debug") ? (line) => log("debug", line) : null,
  });
}

/**
 * config.json's MCP servers, one set per workspace (cwd) shared by the engines of every session
 * of that workspace in this connection, as one `mc-agent stdio` child has one set for its
 * workspace (docs/acp.md, "MCP servers"). Started when the first session of the workspace
 * opens, with that moment's config.json, and stopped when the last one's engine closes.
 */
export class SharedMcpServers {
  private readonly byCwd = new Map<string, Shared>();

  /**
   * The servers of one session's engine: the workspace's shared config.json servers (less any
   * the session replaces by name) and a manager of its own for the editor's `mcpServers`.
   * Checks the editor's entries first (mcp-servers.ts): a bad one throws before anything starts.
   */
  forSession(
    cwd: string,
    env: NodeJS.ProcessEnv,
    settings: LoadedSettings,
    editorServers: readonly McpServer[],
  ): SessionMcp {
    const configured = settings.global.mcp_servers;
    const merged = sessionMcpServers(editorServers, configured);
    const ownNames = new Set(editorServers.map((server) => server.name));
    const ownSettings = Object.fromEntries(
      Object.entries(merged).filter(([name]) => ownNames.has(name)),
    );
    const own = ownNames.size > 0 ? manager(ownSettings, env, cwd) : null;
    const shared =
      configured && Object.keys(configured).length > 0 ? this.acquire(cwd, configured, env) : null;
    if (own) setImmediate(() => own.begin());
    // The project's servers (trusted only), less those the editor's replace; they replace
    // config.json's of the same name, as in a child (trust/project-servers.ts).
    const projectSettings = Object.fromEntries(
      Object.entries(settings.project.mcp_servers ?? {}).filter(([name]) => !ownNames.has(name)),
    );
    const projectNames = new Set(Object.keys(projectSettings));
    let project: McpManager | null = null;
    let closed: Promise<void> | null = null;
    const source: McpToolSource = {
      async tools(options) {
        const [common, fromProject, mine] = await Promise.all([
          shared?.tools(options) ?? [],
          project?.tools(options) ?? [],
          own?.tools(options) ?? [],
        ]);
        const replaced = (name: string) =>
          ownNames.has(name) || (project && projectNames.has(name));
        return [...common.filter((tool) => !replaced(tool.server)), ...fromProject, ...mine];
      },
      call(server, tool, args, options) {
        const target = ownNames.has(server)
          ? own
          : project && projectNames.has(server)
            ? project
            : shared;
        if (!target) return Promise.reject(new McpCallError("unknown_server"));
        return target.call(server, tool, args, options);
      },
    };
    return {
      source,
      own,
      startProject: () => {
        if (project || closed || projectNames.size === 0) return;
        const started = manager(projectSettings, env, cwd);
        project = started;
        setImmediate(() => started.begin());
      },
      close: () => {
        closed ??= Promise.all([
          own?.close(),
          project?.close(),
          shared ? this.release(cwd) : undefined,
        ]).then(() => {});
        return closed;
      },
    };
  }

  private acquire(cwd: string, servers: McpServersSettings, env: NodeJS.ProcessEnv): McpManager {
    let shared = this.byCwd.get(cwd);
    if (!shared) {
      const started = manager(servers, env, cwd);
      shared = { manager: started, users: 0 };
      this.byCwd.set(cwd, shared);
      setImmediate(() => started.begin());
    }
    shared.users += 1;
    return shared.manager;
  }

  private async release(cwd: string): Promise<void> {
    const shared = this.byCwd.get(cwd);
    if (!shared) return;
    shared.users -= 1;
    if (shared.users > 0) return;
    this.byCwd.delete(cwd);
    await shared.manager.close();
  }
}

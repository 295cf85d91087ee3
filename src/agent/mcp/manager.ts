import type { McpServerStatus } from "../../protocol/schemas/mcp.js";
import type { McpServersSettings } from "../../store/mcp-settings.js";
import { McpConnection } from "./connection.js";
import { planServers } from "./plan.js";
import { type CallToolResult, McpCallError, type McpServers, type McpToolInfo } from "./types.js";

interface McpManagerOptions {
  /** `mcp_servers` of the global settings (absent: no server). */
  servers: McpServersSettings | undefined;
  /** The child's environment: `"$NAME"` values, PATH and HOME come from here. */
  env: NodeJS.ProcessEnv;
  /** The workspace (the default and the base of a relative `cwd`). */
  workspace: string;
  /** The child's log at debug (servers' stderr lines), or null when that level is off. */
  debug?: ((line: string) => void) | null;
}

/**
 * Every configured MCP server of one child (docs/mcp.md). Created at child start; `begin`
 * starts the enabled servers in the background; nothing waits for them but the callers of
 * `tools` and `call`, each up to the server's startup timeout.
 */
export class McpManager implements McpServers {
  private readonly connections: McpConnection[];
  private readonly listeners = new Set<(status: McpServerStatus) => void>();
  private closing: Promise<void> | null = null;

  constructor(options: McpManagerOptions) {
    this.connections = planServers(options.servers).map(
      (plan) =>
        new McpConnection(plan, {
          env: options.env,
          workspace: options.workspace,
          debug: options.debug ?? null,
          changed: (status) => this.emit(status),
        }),
    );
  }

  /** Whether any server is configured (a child without one never loads the SDK). */
  get configured(): boolean {
    return this.connections.length > 0;
  }

  begin(): void {
    if (this.closing) return;
    for (const connection of this.connections) connection.begin();
  }

  async tools(options: { signal: AbortSignal; waitMs?: number }): Promise<McpToolInfo[]> {
    if (this.closing) return [];
    const lists = await Promise.all(
      this.connections.map((c) => c.readyTools(options.waitMs ?? Infinity, options.signal)),
    );
    return lists.flat();
  }

  call(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; timeoutMs?: number },
  ): Promise<CallToolResult> {
    const connection = this.connections.find((c) => c.plan.name === server);
    if (!connection) return Promise.reject(new McpCallError("unknown_server"));
    if (this.closing) return Promise.reject(new McpCallError("server_unavailable"));
    const timeout = options.timeoutMs ?? connection.plan.callTimeoutMs;
    return connection.call(tool, args, options.signal, timeout);
  }

  status(): McpServerStatus[] {
    return this.connections.map((c) => c.status());
  }

  onChange(listener: (status: McpServerStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): Promise<void> {
    this.closing ??= Promise.all(this.connections.map((c) => c.close())).then(() => {});
    return this.closing;
  }

  private emit(status: McpServerStatus): void {
    for (const listener of this.listeners) {
      try {
        listener(status);
      } catch {}
    }
  }
}

import type { McpError, McpServerStatus, McpState } from "../../protocol/schemas/mcp.js";
import { type McpServerPlan, toolAllowed } from "./plan.js";
import { type OpenedSession, openSession, StartFailure } from "./session.js";
import { type CallToolResult, McpCallError, type McpToolInfo } from "./types.js";

/** Restarts after an exit: at most this many within the window, then the server stays failed. */
export const MCP_RESTARTS = 3;
export const MCP_RESTART_WINDOW_MS = 5 * 60_000;

export interface ConnectionEnv {
  /** The child's environment (its `"$NAME"` values come from here). */
  env: NodeJS.ProcessEnv;
  /** The workspace: a relative `cwd` is relative to it. */
  workspace: string;
  /** The child's log at debug, or null when that level is off. */
  debug: ((line: string) => void) | null;
  /** Called after every change of the status. */
  changed: (status: McpServerStatus) => void;
}

/**
 * One configured server for the child's lifetime: its state (`starting`, `ready`, `failed`,
 * `disabled`), its session while it has one, its restarts. A start that fails (timeout, spawn,
 * handshake) is not retried: a hanging server would cost every turn its whole timeout again.
 * A server that exits after it was ready is restarted on its next use, within the cap.
 */
export class McpConnection {
  private state: McpState;
  private error: McpError | null = null;
  private tools: McpToolInfo[] = [];
  private session: OpenedSession | null = null;
  private starting: Promise<void> | null = null;
  private readonly restarts: number[] = [];
  private closed = false;
  private readonly closing = new AbortController();

  constructor(
    readonly plan: McpServerPlan,
    private readonly host: ConnectionEnv,
  ) {
    this.state = plan.enabled ? "starting" : "disabled";
  }

  status(): McpServerStatus {
    return {
      name: this.plan.name,
      transport: this.plan.transport,
      state: this.state,
      tools: this.state === "ready" ? this.tools.length : 0,
      error: this.error,
    };
  }

  /** Starts the server in the background (at child start). */
  begin(): void {
    if (this.state === "starting" && !this.starting) this.startNow();
  }

  /**
   * Ready tools, after waiting up to `waitMs` for a start in progress (restarting an exited
   * server first). Never throws.
   */
  async readyTools(waitMs: number, signal: AbortSignal): Promise<McpToolInfo[]> {
    this.restartIfExited();
    if (this.starting) await waitFor(this.starting, waitMs, signal);
    return this.state === "ready" ? this.tools : [];
  }

  async call(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<CallToolResult> {
    if (signal.aborted) throw new McpCallError("cancelled");
    this.restartIfExited();
    if (this.starting) await waitFor(this.starting, this.plan.startupTimeoutMs, signal);
    if (signal.aborted) throw new McpCallError("cancelled");
    const session = this.session;
    if (this.state !== "ready" || !session) throw new McpCallError("server_unavailable");
    if (!this.tools.some((t) => t.name === tool)) throw new McpCallError("unknown_tool");
    try {
      const result = await session.client.callTool({ name: tool, arguments: args }, undefined, {
        signal,
        timeout: timeoutMs,
      });
      return result as CallToolResult;
    } catch (error) {
      throw new McpCallError(callFailure(error, signal, session, this.session));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.closing.abort();
    await this.starting;
    const session = this.session;
    this.session = null;
    if (session) await session.stop();
  }

  private set(state: McpState, error: McpError | null): void {
    const before = this.status();
    this.state = state;
    this.error = error;
    const after = this.status();
    if (before.state !== after.state || before.tools !== after.tools || before.error !== error)
      this.host.changed(after);
  }

  private restartIfExited(): void {
    if (this.closed || this.state !== "failed" || this.error !== "exited") return;
    this.restarts.push(Date.now());
    this.startNow();
  }

  private startNow(): void {
    this.set("starting", this.error);
    const run = this.start().finally(() => {
      if (this.starting === run) this.starting = null;
    });
    this.starting = run;
  }

  private async start(): Promise<void> {
    try {
      const session = await openSession(
        this.plan,
        this.host,
        (lost) => this.lost(lost),
        this.closing.signal,
      );
      if (this.closed) return void (await session.stop());
      this.session = session;
      this.tools = session.tools.filter((t) => toolAllowed(this.plan, t.name));
      this.set("ready", null);
    } catch (error) {
      const code = error instanceof StartFailure ? error.code : "connect_failed";
      if (!this.closed) this.set("failed", code);
    }
  }

  /** The session's connection closed: its process exited, or the HTTP session ended. */
  private lost(session: OpenedSession): void {
    if (this.session !== session) return;
    this.session = null;
    void session.stop();
    if (this.closed) return;
    this.tools = [];
    const now = Date.now();
    while (this.restarts.length > 0 && (this.restarts[0] ?? 0) <= now - MCP_RESTART_WINDOW_MS)
      this.restarts.shift();
    this.set("failed", this.restarts.length >= MCP_RESTARTS ? "restart_limit" : "exited");
  }
}

/** Resolves when `work` settles, after `ms`, or when `signal` fires, whichever is first. */
function waitFor(work: Promise<void>, ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted || ms <= 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    void work.then(done, done);
  });
}

/** RequestTimeout and ConnectionClosed of the SDK's ErrorCode. */
const REQUEST_TIMEOUT = -32001;
const CONNECTION_CLOSED = -32000;

function callFailure(
  error: unknown,
  signal: AbortSignal,
  session: OpenedSession,
  current: OpenedSession | null,
): McpCallError["code"] {
  if (signal.aborted) return "cancelled";
  const code = (error as { code?: unknown } | null)?.code;
  if (code === REQUEST_TIMEOUT) return "call_timeout";
  if (code === CONNECTION_CLOSED || current !== session) return "server_exited";
  return "call_failed";
}

import type { McpError, McpServerStatus, McpState } from "../../protocol/schemas/mcp.js";
import { RESULT_TOO_LARGE } from "./oversized-answer.js";
import { type McpServerPlan, toolAllowed } from "./plan.js";
import { ToolRelist } from "./relist.js";
import { type OpenedSession, openSession, type SessionHost, StartFailure } from "./session.js";
import { type CallToolResult, McpCallError, type McpToolInfo } from "./types.js";

/** Restarts after an exit: at most this many within the window, then the server stays failed. */
const MCP_RESTARTS = 3;
const MCP_RESTART_WINDOW_MS = 5 * 60_000;

/** Where a connection lives: what its sessions are opened in, and who hears of its status. */
interface ConnectionEnv extends SessionHost {
  /** Called after every change of the status. */
  changed: (status: McpServerStatus) => void;
}

/**
 * One configured server for the child's lifetime: its state (`starting`, `ready`, `failed`,
 * `disabled`), its session while it has one, its restarts. A start that fails (timeout, spawn,
 * handshake) is not retried: a hanging server would cost every turn its whole timeout again.
 * A server that exits after it was ready is restarted on its next use, within the cap.
 * A ready server's `notifications/tools/list_changed` re-lists its tools (relist.ts).
 */
/** How long past a start's deadline a call still waits for the start to record its end. */
const START_GRACE_MS = 2_000;

export class McpConnection {
  private state: McpState;
  private error: McpError | null = null;
  private tools: McpToolInfo[] = [];
  private session: OpenedSession | null = null;
  /** The re-lists of the current session (a new start has its own). */
  private relist: ToolRelist | null = null;
  private starting: Promise<void> | null = null;
  /** When the start in progress gives up (its startup timeout), in Date.now() ms. */
  private startDeadline = 0;
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
    if (this.starting) await waitFor(this.starting, Math.min(waitMs, this.startLeft()), signal);
    return this.state === "ready" ? this.tools : [];
  }

  /**
   * How long a start in progress may still take: to its own deadline (its startup timeout from
   * when it began, not from when a caller asks), plus a grace for it to record its end. Waiting
   * this long always finds the start ended, ready or failed.
   */
  private startLeft(): number {
    return Math.max(0, this.startDeadline - Date.now()) + START_GRACE_MS;
  }

  async call(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<CallToolResult> {
    if (signal.aborted) throw new McpCallError("cancelled");
    this.restartIfExited();
    // A call waits for the start itself to end (startLeft): a fresh timeout from the call's
    // moment could end the wait just before the start's and find the server still `starting`.
    if (this.starting) await waitFor(this.starting, this.startLeft(), signal);
    if (signal.aborted) throw new McpCallError("cancelled");
    const session = this.session;
    if (this.state !== "ready" || !session) throw new McpCallError("server_unavailable");
    if (!this.tools.some((t) => t.name === tool)) throw new McpCallError("unknown_tool");
    const relist = this.relist;
    const before = relist?.generation ?? 0;
    const deadline = Date.now() + timeoutMs;
    let result: CallToolResult;
    try {
      result = (await session.client.callTool({ name: tool, arguments: args }, undefined, {
        signal,
        timeout: timeoutMs,
      })) as CallToolResult;
    } catch (error) {
      throw new McpCallError(callFailure(error, signal, session, this.session));
    }
    // A call that changed the server's tools (the server said so before its result) returns
    // once they are read again, so that the turn's next step offers them; bounded by the call's
    // own timeout, and at most two re-lists (the one in flight and the one after it).
    const now = relist?.generation ?? 0;
    if (relist && now > before)
      await waitFor(relist.reached(now), Math.max(0, deadline - Date.now()), signal);
    return result;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.closing.abort();
    await this.starting;
    const session = this.session;
    this.session = null;
    this.relist?.stop();
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
    this.startDeadline = Date.now() + this.plan.startupTimeoutMs;
    const run = this.start().finally(() => {
      if (this.starting === run) this.starting = null;
    });
    this.starting = run;
  }

  private async start(): Promise<void> {
    let opened: OpenedSession | null = null;
    const relist = new ToolRelist(() => (opened ? this.relistTools(opened) : Promise.resolve()));
    // A server that floods during its start ends the start (as `flooding`).
    const abort = new AbortController();
    try {
      const session = await openSession(
        this.plan,
        this.host,
        {
          lost: (lost) => this.lost(lost),
          toolsChanged: () => relist.request(),
          flooded: (session) => this.flooded(session, abort),
        },
        AbortSignal.any([this.closing.signal, abort.signal]),
      );
      if (this.closed) {
        relist.stop();
        return void (await session.stop());
      }
      opened = session;
      this.session = session;
      this.relist = relist;
      this.tools = session.tools.filter((t) => toolAllowed(this.plan, t.name));
      this.set("ready", null);
      // A change announced during the start is re-listed now.
      relist.start();
    } catch (error) {
      relist.stop();
      const code = error instanceof StartFailure ? error.code : "connect_failed";
      if (!this.closed) this.set("failed", code);
    }
  }

  /**
   * One re-list of a ready session, bounded by the startup timeout (the same work as the start's
   * list). Past 1,024 tools the server fails with `tool_limit`, as its start would have, and is
   * stopped; any other failure keeps the previous list (the next notification tries again).
   */
  private async relistTools(session: OpenedSession): Promise<void> {
    if (this.session !== session) return;
    let listed: McpToolInfo[];
    try {
      listed = await session.listTools(this.plan.startupTimeoutMs, this.closing.signal);
    } catch (error) {
      if (this.session !== session) return;
      if (error instanceof StartFailure && error.code === "tool_limit") {
        this.end(session);
        this.tools = [];
        this.set("failed", "tool_limit");
      } else this.host.debug?.(`mcp ${this.plan.name}: the tool list could not be read again`);
      return;
    }
    if (this.session !== session) return;
    const before = this.status();
    this.tools = listed.filter((t) => toolAllowed(this.plan, t.name));
    const after = this.status();
    if (after.tools !== before.tools) this.host.changed(after);
  }

  /** Forgets the current session and stops it (its close is no longer a loss). */
  private end(session: OpenedSession): void {
    this.session = null;
    this.relist?.stop();
    this.relist = null;
    void session.stop();
  }

  /**
   * A stdio server sent too much unasked (flood-guard.ts): it is stopped and stays `failed` with
   * `flooding` for the child's life, not restarted (it would flood again). During its start
   * (`session` null) the start is ended, and fails with that code.
   */
  private flooded(session: OpenedSession | null, start: AbortController): void {
    this.host.debug?.(`mcp ${this.plan.name}: it sent too much unasked; stopped`);
    if (session === null) return start.abort();
    if (this.session !== session) return;
    this.end(session);
    this.tools = [];
    if (!this.closed) this.set("failed", "flooding");
  }

  /** The session's connection closed: its process exited, or the HTTP session ended. */
  private lost(session: OpenedSession): void {
    if (this.session !== session) return;
    this.end(session);
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
  if (code === RESULT_TOO_LARGE) return "result_too_large";
  return "call_failed";
}

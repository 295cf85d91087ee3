import type { McpServer } from "@agentclientprotocol/sdk";
import type { McpManager } from "../agent/mcp/manager.js";
import { SessionRules } from "../agent/rules/rule-book.js";
import type { ToolHostSource } from "../agent/tools/tool-host.js";
import { TURN_FRONTEND_CAPABILITIES } from "../protocol/capabilities.js";
import type { ErrorCode } from "../protocol/codes.js";
import type { MethodName, ParamsOf, ResultOf } from "../protocol/methods.js";
import type { SandboxKind, TurnEventParams, TurnResult } from "../protocol/schemas/turns.js";
import { Dispatcher } from "../server/dispatcher.js";
import { buildHandlers } from "../server/handlers/index.js";
import { createState } from "../server/state.js";
import type { LoadedSettings } from "../store/settings.js";
import type { SharedMcpServers } from "./shared-mcp.js";

/** A request our engine refused: its wire code and its (path-free) message. */
/** The longest a session start waits for its servers: the largest `startup_timeout_ms`. */
const MCP_START_WAIT_MS = 120_000;

export class EngineError extends Error {
  override readonly name = "EngineError";
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface EngineOptions {
  cwd: string;
  home: string;
  env: NodeJS.ProcessEnv;
  toolHost?: ToolHostSource;
  /**
   * A session's engine: its MCP servers are config.json's plus these (the session's
   * `mcpServers`); a listing engine has none and starts no server.
   */
  mcpServers?: readonly McpServer[];
  /** The connection's servers of config.json, shared per workspace (a session's engine only). */
  sharedMcp?: SharedMcpServers;
  /** The ACP session's `allow_session` rules, kept across its engine's close and reopen. */
  sessionRules?: SessionRules;
}

interface Waiter {
  resolve(result: unknown): void;
  reject(error: EngineError): void;
}

type EventSink = (event: TurnEventParams) => Promise<void>;

/**
 * One in-process instance of our own server for one canonical cwd: the same dispatcher and
 * handlers `mc-agent stdio` serves, spoken to in frames, so every rule of ours (admission,
 * locks, the torn-tail rule, confinement, bounds, approvals) applies unchanged. Frames stay
 * in memory: a request is one JSON line in, each answer or event one line out.
 */
export class EngineLink {
  private readonly dispatcher: Dispatcher;
  private readonly waiters = new Map<string, Waiter>();
  private readonly sinks = new Map<string, EventSink>();
  private next = 0;
  private stopped: Promise<void> | null = null;
  private onStopped: () => void = () => {};
  /** The canonical cwd this engine serves. */
  readonly cwd: string;
  /**
   * The OS sandbox this engine found at initialize (`extensions.turn.sandbox`), null when none
   * can start: then `sandboxed` is no mode of the session (docs/acp.md).
   */
  sandbox: SandboxKind | null = null;
  /** Whether turns record checkpoints (git on PATH): `/undo` is offered only then. */
  checkpoints = false;
  /** The manager of the editor's own `mcpServers` for this session, when it named any. */
  private mcp: McpManager | null = null;
  /** Whether the editor named servers of its own for this session: its start waits for them. */
  private readonly ownServers: boolean;

  /** The session's `allow_session` rules: given (kept across a reopen) or its own. */
  readonly sessionRules: SessionRules;

  constructor(options: EngineOptions) {
    this.cwd = options.cwd;
    this.sessionRules = options.sessionRules ?? new SessionRules();
    this.ownServers = (options.mcpServers?.length ?? 0) > 0;
    const state = createState(options.cwd, options.home, options.env);
    const handlers = buildHandlers(state, {
      ...(options.toolHost ? { toolHost: options.toolHost } : {}),
      sessionRules: this.sessionRules,
      ...(options.mcpServers && options.sharedMcp
        ? {
            mcpSource: (settings: LoadedSettings) => {
              const mcp = (options.sharedMcp as SharedMcpServers).forSession(
                options.cwd,
                state.env,
                settings,
                options.mcpServers ?? [],
              );
              this.mcp = mcp.own;
              return mcp;
            },
          }
        : {}),
    });
    this.dispatcher = new Dispatcher({
      state,
      handlers,
      write: (line) => this.receive(line),
      onStopped: () => this.onStopped(),
      // One ACP session is one attachment for as long as the editor keeps it: no lifetime bound
      // on its requests beyond what each request is bounded by.
      childRequests: Number.MAX_SAFE_INTEGER,
    });
  }

  /** Initializes the engine; its answer is ours alone, so it can only fail on a bug. */
  async start(): Promise<void> {
    const result = (await this.send("initialize", {
      protocol_version: 1,
      client: { name: "mc-agent-acp", version: "1" },
      // session.record: a load replays records too large for a history page (load-replay.ts).
      // session.fork: ACP's session/fork.
      // turn.revert: the /undo command (undo-command.ts).
      required_capabilities: [
        ...TURN_FRONTEND_CAPABILITIES,
        "session.record",
        "session.fork",
        "turn.revert",
      ],
    } as never)) as {
      extensions?: {
        turn?: { sandbox?: SandboxKind | null; checkpoints?: { available: boolean } };
      };
    };
    this.sandbox = result.extensions?.turn?.sandbox ?? null;
    this.checkpoints = result.extensions?.turn?.checkpoints?.available === true;
    // ACP has no `mcp.status` and a turn offers only servers already ready (docs/mcp.md), so a
    // session whose editor named servers answers once they are ready or failed, each within its
    // own startup timeout; without servers of its own nothing waits (docs/acp.md).
    if (this.mcp && this.ownServers) {
      this.mcp.begin();
      await this.mcp.tools({ signal: AbortSignal.timeout(MCP_START_WAIT_MS) });
    }
  }

  request<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    return this.send(method, params) as Promise<ResultOf<M>>;
  }

  /**
   * Starts a turn. `sink` gets each event in order; the engine awaits it (backpressure), so a
   * slow editor slows the turn rather than growing a buffer. Returns the request ID (what
   * turn.interrupt names) and the turn's result.
   */
  startTurn(
    params: ParamsOf<"turn.start">,
    sink: EventSink,
  ): { requestId: string; result: Promise<TurnResult> } {
    const requestId = this.nextId();
    this.sinks.set(requestId, sink);
    const result = this.send("turn.start", params, requestId) as Promise<TurnResult>;
    const done = result.finally(() => this.sinks.delete(requestId));
    return { requestId, result: done };
  }

  /**
   * Stops the engine as EOF stops a child: running turns are interrupted and end with their
   * results (saved), every lock is released; resolves when it has drained (at most cleanup_ms).
   */
  close(): Promise<void> {
    if (!this.stopped) {
      this.stopped = new Promise<void>((resolve) => {
        this.onStopped = resolve;
      });
      this.dispatcher.endOfInput();
    }
    return this.stopped;
  }

  private nextId(): string {
    this.next += 1;
    return `a${this.next}`;
  }

  private send(method: string, params: unknown, id = this.nextId()): Promise<unknown> {
    const line = JSON.stringify({ id, method, params });
    return new Promise((resolve, reject) => {
      this.waiters.set(id, { resolve, reject });
      this.dispatcher.handle({ kind: "frame", bytes: Buffer.from(line, "utf8") });
    });
  }

  private receive(line: string): Promise<void> {
    const frame = JSON.parse(line) as {
      id?: string | null;
      method?: string;
      params?: TurnEventParams;
      result?: unknown;
      error?: { code: ErrorCode; message: string };
    };
    if (frame.method === "turn.event" && frame.params) {
      const sink = this.sinks.get(frame.params.request_id);
      return sink ? sink(frame.params) : Promise.resolve();
    }
    const waiter = typeof frame.id === "string" ? this.waiters.get(frame.id) : undefined;
    if (waiter && typeof frame.id === "string") {
      this.waiters.delete(frame.id);
      if (frame.error) waiter.reject(new EngineError(frame.error.code, frame.error.message));
      else waiter.resolve(frame.result);
    }
    return Promise.resolve();
  }
}

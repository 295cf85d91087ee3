/**
 * One ACP session's engine (or a listing engine): the server's typed face plus what ACP adds to it.
 */
import type { McpServer } from "@agentclientprotocol/sdk";
import type { McpManager } from "../agent/mcp/manager.js";
import { SessionRules } from "../agent/rules/rule-book.js";
import type { ToolHostSource } from "../agent/tools/tool-host.js";
import { TURN_FRONTEND_CAPABILITIES } from "../protocol/capabilities.js";
import type { MethodName, ParamsOf, ResultOf } from "../protocol/methods.js";
import type { SandboxKind, TurnResult } from "../protocol/schemas/turns.js";
import type { TurnFacts } from "../server/engine-face.js";
import { EngineFace, type TurnEventSink } from "../server/engine-face.js";
import type { LoadedSettings } from "../store/settings.js";
import { type ProjectCode, type ProjectTrust, waitingCode } from "../trust/workspace-trust.js";
import { NextSteps } from "./next-steps.js";
import type { SharedMcpServers } from "./shared-mcp.js";

/** The longest a session start waits for its servers: the largest `startup_timeout_ms`. */
const MCP_START_WAIT_MS = 120_000;

interface EngineOptions {
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
  /** What the starter found out for this engine's initialize (engine-facts.ts): adopted. */
  turnFacts?: TurnFacts;
  /** Their probe memo answered and their probes wait (sessions.ts): initialize answers from it. */
  memoAnswers?: boolean;
}

/**
 * One in-process instance of our own engine for one canonical cwd, through the server's typed
 * face (engine-face.ts): the same dispatcher and handlers `mc-agent stdio` serves, so every rule
 * of ours (admission, locks, the torn-tail rule, confinement, bounds, approvals) applies
 * unchanged. What ACP adds: the facts its initialize found, and the wait for a session's servers.
 */
export class EngineLink {
  private readonly face: EngineFace;
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
  /**
   * The workspace's trust as this engine read it at its start, and what the project file would
   * run (docs/trust.md, "ACP"); `trusted` for a listing engine, which runs nothing.
   */
  trust: ProjectTrust = "trusted";
  private projectCode: ProjectCode = {};
  private startProject: () => void = () => {};
  /** Whether the editor named servers of its own for this session: its start waits for them. */
  private readonly ownServers: boolean;

  /** The session's `allow_session` rules: given (kept across a reopen) or its own. */
  readonly sessionRules: SessionRules;
  /** How a first-run failure names its next step (next-steps.ts). */
  readonly nextSteps: NextSteps;

  constructor(options: EngineOptions) {
    this.cwd = options.cwd;
    this.nextSteps = new NextSteps(options.home);
    this.sessionRules = options.sessionRules ?? new SessionRules();
    this.ownServers = (options.mcpServers?.length ?? 0) > 0;
    const { sharedMcp, mcpServers } = options;
    this.face = new EngineFace({
      cwd: options.cwd,
      home: options.home,
      env: options.env,
      ...(options.toolHost ? { toolHost: options.toolHost } : {}),
      sessionRules: this.sessionRules,
      ...(options.turnFacts ? { turnFacts: options.turnFacts } : {}),
      ...(options.memoAnswers ? { memoAnswers: true } : {}),
      ...(mcpServers && sharedMcp
        ? {
            mcpSource: (settings: LoadedSettings, trust: ProjectTrust) => {
              const mcp = sharedMcp.forSession(options.cwd, options.env, settings, mcpServers);
              this.mcp = mcp.own;
              this.trust = trust;
              this.projectCode = settings.project;
              this.startProject = mcp.startProject;
              if (trust === "trusted") mcp.startProject();
              return mcp;
            },
          }
        : {}),
    });
  }

  /** Initializes the engine; its answer is ours alone, so it can only fail on a bug. */
  async start(): Promise<void> {
    const result = await this.face.request("initialize", {
      protocol_version: 1,
      client: { name: "mc-agent-acp", version: "1" },
      // session.record: a load replays records too large for a history page (load-replay.ts).
      // session.fork: ACP's session/fork.
      // turn.revert: the /undo command (undo-command.ts). turn.steer: `_mc/steer` (docs/acp.md).
      // errors.recovery: a first-run failure's next step, named to the user (next-steps.ts).
      // workspace.trust: the first prompt's question in an untrusted workspace (trust-ask.ts).
      // plans: the model's checklist, ACP's `plan` update (plan-update.ts).
      // subagents: the `agent` tool, one tool call with its progress (subagent-view.ts).
      // session.manage: session/delete, /rename, and the cost in usage_update.
      // hooks: each hook run shown as a tool call of its own (hook-updates.ts).
      // model.catalog.status: session/new refuses a model whose provider has no credentials (auth.ts).
      // skills, commands: the workspace's skills and custom commands (docs/skills.md).
      required_capabilities: [
        ...TURN_FRONTEND_CAPABILITIES,
        "workspace.trust",
        "session.record",
        "session.fork",
        "turn.revert",
        "errors.recovery",
        "plans",
        "subagents",
        "turn.steer",
        "session.manage",
        "hooks",
        "skills",
        "commands",
        "attachments",
        "model.catalog.status",
      ],
    });
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

  /**
   * When this engine's `sandbox` came from the probe memo (docs/acp.md, "Start-up"): runs the
   * real probe now and takes the sandbox it found; true when that differs from the memo's.
   */
  async confirmSandbox(): Promise<boolean> {
    const confirming = this.face.sandboxConfirmed();
    if (confirming === null) return false;
    const found = await confirming;
    if (found === this.sandbox) return false;
    this.sandbox = found;
    return true;
  }

  /** What the project file would run, when it waits for the user's trust. */
  waiting(): { hooks: boolean; mcp_servers: string[] } | null {
    return this.trust === "trusted" ? null : waitingCode(this.projectCode);
  }

  /**
   * Trusts the workspace (the members this engine read at start) and starts the project's MCP
   * servers for this session at once; its other sessions' engines read the trust at their start.
   */
  async trustWorkspace(): Promise<void> {
    await this.face.request("workspace.trust", { trusted: true });
    this.trust = "trusted";
    this.startProject();
  }

  /** One request; a refusal with a next step comes back as the ACP error that names it. */
  request<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    return this.face.request(method, params).catch((error: unknown) => {
      throw this.nextSteps.mapped(error);
    });
  }

  /**
   * Starts a turn. `sink` gets each event in order; the engine awaits it (backpressure), so a
   * slow editor slows the turn rather than growing a buffer. Returns the request ID (what
   * turn.interrupt names) and the turn's result.
   */
  startTurn(
    params: ParamsOf<"turn.start">,
    sink: TurnEventSink,
  ): { requestId: string; result: Promise<TurnResult> } {
    const turn = this.face.startTurn(params, sink);
    const result = turn.result.catch((error: unknown) => {
      throw this.nextSteps.mapped(error);
    });
    return { requestId: turn.requestId, result };
  }

  /**
   * Stops the engine as EOF stops a child: running turns are interrupted and end with their
   * results (saved), every lock is released; resolves when it has drained (at most cleanup_ms).
   */
  close(): Promise<void> {
    return this.face.close();
  }
}

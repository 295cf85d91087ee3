/**
 * One ACP session: its engine, mode, prompt, cancel and approvals.
 */
import type {
  AgentContext,
  McpServer,
  SessionConfigOption,
  SessionUpdate,
  StopReason,
} from "@agentclientprotocol/sdk";
import type { SessionRules } from "../agent/rules/rule-book.js";
import type { ParamsOf } from "../protocol/methods.js";
import type { Permissions, TurnEventParams, TurnResult } from "../protocol/schemas/turns.js";
import { firstLineCut } from "../sessions/records/facts.js";
import {
  applyPendingSelection,
  currentOptions,
  type PendingSelection,
  restoreSelection,
} from "./config-options.js";
import { turnText, withCustomCommands } from "./custom-commands.js";
import type { EngineLink } from "./engine-link.js";
import { acpError } from "./errors.js";
import type { PromptPart } from "./prompt-part-load.js";
import { promptPart } from "./prompt-part-load.js";
import { PromptQueue } from "./prompt-queue.js";
import { RENAME_COMMAND, renameCommand, runRename } from "./rename-command.js";
import { DEFAULT_MODE } from "./session-config.js";
import { SessionEngine } from "./session-engine.js";
import type { TurnUpdates } from "./turn-updates.js";
import { runUndo, UNDO_COMMAND, undoCommand } from "./undo-command.js";

interface RunningPrompt {
  requestId: string;
  updates: TurnUpdates;
  /** permission.ts's, from the prompt's part (prompt-part.ts), loaded before the prompt ran. */
  askPermission: PromptPart["askPermission"];
  /** Aborted when the turn ends: a permission request still open is withdrawn. */
  permissions: AbortController;
}

interface SessionOrigin {
  /** Saved on disk (loaded, resumed, forked): a new session is lazy until its first turn. */
  saved: boolean;
  /** The editor's `mcpServers` for it, kept for a reopen. */
  mcpServers: readonly McpServer[];
}

/**
 * One ACP session: one engine (our server for its cwd, attached to one of our sessions, the same
 * ID), its mode, and the prompt running in it, if any. Every update of a prompt is sent before
 * its response, and none after it.
 */
export class AcpSession {
  mode: Permissions = DEFAULT_MODE;
  /** set_config_option of the model or effort during a prompt (config-options.ts). */
  pendingSelection: PendingSelection | null = null;
  /** Whether its history exists on disk: only then can its engine be closed and reopened. */
  saved: boolean;
  readonly mcpServers: readonly McpServer[];
  /** Its `allow_session` rules, kept across an eviction (engine-link.ts). */
  readonly sessionRules: SessionRules;
  /** Its engine: live, evicted or reopened (session-engine.ts). */
  private readonly slot: SessionEngine;
  private running: RunningPrompt | null = null;
  /** The prompts sent while one runs, in order (prompt-queue.ts). */
  private readonly prompts = new PromptQueue();
  /** The session's known cost in USD so far (costSoFar); null until first needed. */
  private cost: number | null = null;
  /** An `/undo` runs (undo-command.ts): the session is busy as with a prompt. */
  private undoing = false;
  /** Whether its first prompt asked for the workspace's trust (trust-ask.ts): once a session. */
  private trustAsked = false;
  /** The trust question is open: the session is busy as with a prompt. */
  private asking = false;
  /** The last update sent (or being sent): the prompt's response waits for it. */
  private sent: Promise<void> = Promise.resolve();

  constructor(
    readonly id: string,
    readonly cwd: string,
    engine: EngineLink,
    readonly client: AgentContext,
    origin: SessionOrigin,
  ) {
    this.slot = new SessionEngine(engine);
    this.sessionRules = engine.sessionRules;
    this.saved = origin.saved;
    this.mcpServers = origin.mcpServers;
  }

  /** The live engine; every use goes through `Sessions.using`, which reopens an evicted one. */
  get engine(): EngineLink {
    return this.slot.engine;
  }

  get live(): boolean {
    return this.slot.live;
  }

  get busy(): boolean {
    return this.running !== null || this.undoing || this.asking || this.prompts.occupied;
  }

  /** Whether its engine may be closed now: live, idle, saved, held by no request, not being reopened. */
  get evictable(): boolean {
    return this.slot.closable && !this.busy && this.saved;
  }

  /** A request works on it (sessions.ts `hold`, `using`): it is not evicted until the release. */
  hold(): () => void {
    return this.slot.hold();
  }

  /**
   * Closes the engine of an idle, saved session, keeping what the session is: mode, pending
   * choice and session rules here, the model and effort in force in its slot.
   */
  evict(): Promise<void> {
    return this.slot.evict();
  }

  /** Gives an evicted session its engine again (`open`: a new engine with its history open). */
  reopened(open: () => Promise<EngineLink>): Promise<void> {
    return this.slot.reopened(open, (selection) => restoreSelection(this, selection));
  }

  /** Closes the engine for good (session/close, a second load, EOF). */
  closeEngine(): Promise<void> {
    return this.slot.close();
  }

  /**
   * The commands this session offers (`available_commands_update`): `/undo` when its engine
   * records checkpoints, `/rename`, then the custom commands (custom-commands.ts). Sent just after session/new, load, resume and fork answer.
   */
  advertiseCommands(): void {
    const own = this.engine.checkpoints ? [UNDO_COMMAND, RENAME_COMMAND] : [RENAME_COMMAND];
    const engine = this.engine;
    setImmediate(async () => {
      // The workspace's custom commands after the session's own (custom-commands.ts).
      const availableCommands = await withCustomCommands(engine, own).catch(() => own);
      void this.update({ sessionUpdate: "available_commands_update", availableCommands });
    });
  }

  /**
   * Sends one update, in order after every earlier one. A client that is gone (EOF, stdout
   * closed) gets nothing more and the turn goes on to its interrupted end: never rejects.
   */
  update(update: SessionUpdate): Promise<void> {
    this.sent = this.sent
      .then(() => this.client.notify("session/update", { sessionId: this.id, update }))
      .catch(() => {});
    return this.sent;
  }

  /** One prompt; `cancelled` (the request's `$/cancel_request`) interrupts it as session/cancel. */
  /**
   * The permission level of the next prompts (set_mode, or the `mode` option). A change is told
   * to the editor as `current_mode_update` and `config_option_update`, whichever path made it.
   */
  async setMode(mode: Permissions): Promise<void> {
    if (mode === this.mode) return;
    this.mode = mode;
    void this.update({ sessionUpdate: "current_mode_update", currentModeId: mode });
    this.optionsChanged(await currentOptions(this));
  }

  /** The config options' values changed: the editor gets them all (`config_option_update`). */
  optionsChanged(configOptions: SessionConfigOption[]): void {
    void this.update({ sessionUpdate: "config_option_update", configOptions });
  }

  /**
   * One prompt, queued behind the running one (prompt-queue.ts): it runs when that one has
   * answered; cancelled while it waits, it answers `cancelled` and never ran.
   */
  async prompt(
    input: string,
    cancelled?: AbortSignal,
    attachments: ParamsOf<"turn.start">["attachments"] = [],
  ): Promise<PromptAnswer> {
    if (!(await this.prompts.enter(cancelled))) return { stopReason: "cancelled" };
    try {
      return await this.runPrompt(input, cancelled, attachments);
    } finally {
      this.prompts.leave();
    }
  }

  /**
   * `_mc/steer`: `text` joins the running prompt's turn at its next model call boundary
   * (turn.steer); `turn_missing` when no turn runs.
   */
  async steer(text: string): Promise<{ steerId: string }> {
    const running = this.running;
    if (!running) throw acpError("turn_missing", "No prompt is running in this session.");
    const answer = await this.engine.request("turn.steer", {
      request_id: running.requestId,
      input: text,
    });
    return { steerId: answer.steer_id };
  }

  private async runPrompt(
    input: string,
    cancelled?: AbortSignal,
    attachments: ParamsOf<"turn.start">["attachments"] = [],
  ): Promise<PromptAnswer> {
    const undo = undoCommand(input);
    if (undo) return { stopReason: await this.undo(undo.force) };
    const rename = renameCommand(input);
    if (rename) return { stopReason: await this.rename(rename.title) };
    const part = await promptPart();
    const { askWorkspaceTrust, blockedAnswer, resultOrBlocked, stopReason, TurnUpdates } = part;
    if (!this.trustAsked) {
      this.trustAsked = true;
      this.asking = true;
      try {
        await askWorkspaceTrust(this.client, this.id, this.engine, cancelled);
      } finally {
        this.asking = false;
      }
      if (cancelled?.aborted) return { stopReason: "cancelled" };
    }
    const updates = new TurnUpdates(this.cwd, await this.costSoFar());
    const permissions = new AbortController();
    let title: string | null = null;
    const sink = async (params: TurnEventParams) => {
      const event = params.event;
      if (event.type === "turn_started") {
        // Its first turn saves a lazy session: from now on it can be evicted and reopened.
        this.saved = true;
        if (event.created_session) title = firstLineCut(input);
      }
      // Updates first: a subagent's call is announced before the permission request about it.
      for (const update of updates.map(event)) await this.update(update);
      if (event.type === "approval_requested")
        this.approve(
          { ...event, title: updates.approvalTitle(event) },
          running,
          permissions.signal,
        );
    };
    const text = await turnText(this.engine, input);
    const images = attachments?.length ? { attachments } : {};
    const turn = this.engine.startTurn({ ...text, permissions: this.mode, ...images }, sink);
    const running: RunningPrompt = {
      requestId: turn.requestId,
      updates,
      askPermission: part.askPermission,
      permissions,
    };
    this.running = running;
    const cancel = () => this.interrupt(running);
    if (cancelled?.aborted) cancel();
    else cancelled?.addEventListener("abort", cancel, { once: true });
    try {
      const outcome = await resultOrBlocked(turn.result);
      if ("blocked" in outcome) {
        const blocked = blockedAnswer(outcome.blocked);
        await this.update(blocked.update);
        return { stopReason: blocked.stopReason };
      }
      const result = outcome.result;
      this.cost = updates.cost;
      if (title !== null)
        void this.update({
          sessionUpdate: "session_info_update",
          title,
          updatedAt: new Date().toISOString(),
        });
      await this.sent;
      const reason = stopReason(result);
      if (reason === null && result.error) throw this.engine.nextSteps.turnFailure(result.error);
      return { stopReason: reason ?? "end_turn", ...undeliveredMeta(result) };
    } finally {
      cancelled?.removeEventListener("abort", cancel);
      permissions.abort();
      // Still busy: a model chosen during the turn is applied before anything else can start.
      await applyPendingSelection(this);
      this.running = null;
    }
  }

  /**
   * The session's known cost before this prompt (ACP `usage_update`'s cumulative `cost`): read
   * once from session.usage for a saved session, then kept up by each turn's usage events.
   */
  private async costSoFar(): Promise<number> {
    if (this.cost !== null) return this.cost;
    if (!this.saved) return 0;
    try {
      this.cost = (await this.engine.request("session.usage", { id: this.id })).cost_usd;
    } catch {
      this.cost = 0;
    }
    return this.cost;
  }

  /** `/rename <title>`: the reply is the prompt's one message; the model is not called. */
  private async rename(title: string): Promise<StopReason> {
    this.undoing = true;
    try {
      const done = await runRename(this.engine, this.id, this.saved, title);
      if (done.update) await this.update(done.update);
      const text = done.reply;
      await this.update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
      return "end_turn";
    } finally {
      this.undoing = false;
    }
  }

  /** `/undo`: the reply is the prompt's one message; the model is not called. */
  private async undo(force: boolean): Promise<StopReason> {
    this.undoing = true;
    try {
      const text = await runUndo(this.engine, this.id, force);
      await this.update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
      return "end_turn";
    } finally {
      await applyPendingSelection(this);
      this.undoing = false;
    }
  }

  /**
   * A command of the running prompt runs in the client's terminal (client-tools.ts): its tool
   * call shows that terminal from now on.
   */
  async showTerminal(itemId: string | null, terminalId: string): Promise<void> {
    const running = this.running;
    if (!running || itemId === null) return;
    const update = running.updates.terminal(itemId, terminalId);
    if (update) await this.update(update);
  }

  /** A call of the running prompt starts running (approved, or needing no approval). */
  async showRunning(itemId: string): Promise<void> {
    const running = this.running;
    if (!running) return;
    const update = running.updates.started(itemId);
    if (update) await this.update(update);
  }

  /** session/cancel: our turn.interrupt. The prompt then answers `cancelled`. */
  cancel(): void {
    const running = this.running;
    if (!running) return;
    this.interrupt(running);
  }

  private interrupt(running: RunningPrompt): void {
    this.slot.current?.request("turn.interrupt", { request_id: running.requestId }).catch(() => {
      // turn_missing: the turn ended between the two, and nothing is left to interrupt.
    });
  }

  /** Asks the client, then decides (or interrupts) in the engine; a late answer changes nothing. */
  private approve(
    event: Extract<TurnEventParams["event"], { type: "approval_requested" }>,
    running: RunningPrompt,
    signal: AbortSignal,
  ): void {
    void running.askPermission(this.client, this.id, this.cwd, event, signal).then((decision) => {
      if (signal.aborted || this.running !== running) return;
      if (decision === "interrupt") return this.interrupt(running);
      this.engine
        .request("turn.approve", { approval_id: event.approval_id, decision })
        .catch(() => {});
    });
  }
}

/** A prompt's answer: its stop reason, and the steers its turn never delivered (`_meta`). */
export interface PromptAnswer {
  stopReason: StopReason;
  _meta?: { "mc-agent": { undeliveredSteers: { steerId: string; text: string }[] } };
}

/** The undelivered steers of a turn as the prompt answer's `_meta` (docs/acp.md); none: nothing. */
function undeliveredMeta(result: TurnResult): Pick<PromptAnswer, "_meta"> {
  const steers = result.undelivered_steers ?? [];
  if (steers.length === 0) return {};
  const undeliveredSteers = steers.map((s) => ({ steerId: s.steer_id, text: s.input }));
  return { _meta: { "mc-agent": { undeliveredSteers } } };
}

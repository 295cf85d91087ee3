import type { Infer } from "../protocol/lazy.js";
import { TURN_EXTENSION, type TurnResult } from "../protocol/schemas/turns.js";
import type { TurnRecordBody } from "../sessions/records/turn-records.js";
import { imageReferences } from "./attachments/image-context.js";
import { TurnCheckpointRun, type TurnEndCheckpoints } from "./checkpoints/turn-run.js";
import { hookContextItem } from "./hooks/hook-context.js";
import { McpOffer, turnTools, wantsStartingServer } from "./mcp-tools/offer.js";
import { callModel, type ReplyMessage } from "./model-call.js";
import { planTools } from "./plan/plan-publisher.js";
import type { Usage } from "./providers/provider.js";
import { skillTools } from "./skills/skill-tool.js";
import { type PendingSteer, SteerDelivery } from "./steering.js";
import { runStepCalls } from "./subagents/step-calls.js";
import { subagentTools } from "./subagents/subagent-runner.js";
import { parseArguments, runToolCall } from "./tool-step.js";
import { offeredTools, toolSpecs } from "./tools/index.js";
import { TurnContext } from "./turn-context.js";
import type { TurnInputs } from "./turn-inputs.js";
import { completed, ended, failed, INTERRUPTED, type Outcome } from "./turn-outcome.js";
import { TurnUsage } from "./turn-usage.js";

type Result = Infer<typeof TurnResult>;

export const HISTORY_WRITE_FAILED_MESSAGE =
  "The session's history could not be written; nothing half-written was kept.";

/**
 * A history append failed: the turn ends `history_write_failed`; only its `turn_end` is still
 * tried, once (`recordEndOnce`).
 */
export class TurnWriteFailed extends Error {}

/**
 * One turn (turns.md section 5): call the model, stream its reply, run the tools it asks for,
 * until it ends without a tool call, a length stop, a refusal, `max_steps` calls, an interrupt
 * or a failure. Always returns the turn's one result; every event is emitted before it.
 */
export async function runTurn(inputs: TurnInputs): Promise<Result> {
  const run = new TurnRun(inputs);
  return run.execute();
}

class TurnRun {
  private readonly usage: TurnUsage;
  /** Model calls that produced a reply (`call`); at most one per round of the loop. */
  private steps = 0;
  private roundIsStep = false;
  private items = 0;
  private readonly context: TurnContext;
  private readonly tools;
  private readonly checkpoints: TurnCheckpointRun;
  private readonly steering: SteerDelivery | null;

  constructor(private readonly inputs: TurnInputs) {
    this.context = new TurnContext(inputs, inputs.history, inputs.historyTruncated === true, {
      addUsage: (usage) => this.addUsage(usage),
      newItemId: () => this.newItemId(),
    });
    this.usage = new TurnUsage(inputs.model.price);
    this.tools = [
      ...offeredTools(inputs.permissions),
      ...planTools(inputs.plans, inputs.events, inputs.record),
      ...skillTools(inputs.skills, inputs.toolContext.workspace),
      ...subagentTools({
        permissions: inputs.permissions,
        events: inputs.events,
        setup: inputs.subagents,
        // A subagent's own: no steers (they are the parent's), and the parent's tool guards
        // and notifications, but no SessionStart or Stop of its own (docs/hooks.md).
        runNested: (turn) =>
          runTurn({
            ...inputs,
            ...turn,
            steers: undefined,
            images: undefined,
            hooks: inputs.hooks && { ...inputs.hooks, promptContext: "", nested: true },
          }),
        // Into the turn's result only: a subagent's usage is no model call of this turn.
        addUsage: (usage, price) => this.usage.add(usage, price),
      }),
    ];
    this.checkpoints = new TurnCheckpointRun(
      inputs.checkpoint ?? null,
      inputs.signal,
      (event) => inputs.events.emit(event),
      inputs.closing,
    );
    this.steering = inputs.steers
      ? new SteerDelivery(inputs.steers, inputs.record, inputs.events, (text) =>
          this.context.push({ kind: "user", text }),
        )
      : null;
  }

  async execute(): Promise<Result> {
    const { inputs } = this;
    await inputs.events.emit({
      type: "turn_started",
      session_id: inputs.sessionId,
      model: inputs.model.id,
      effort: inputs.model.effort,
      permissions: inputs.permissions,
      created_session: inputs.createdSession,
      sandbox: inputs.toolContext.sandbox?.kind ?? null,
      checkpoint: inputs.checkpoint?.id ? { id: inputs.checkpoint.id } : null,
    });
    let started = false;
    inputs.steers?.open();
    try {
      await inputs.record({
        type: "turn_start",
        model: inputs.model.id,
        effort: inputs.model.effort,
        permissions: inputs.permissions,
      });
      started = true;
      await inputs.record(
        {
          type: "user_message",
          text: inputs.input,
          ...(inputs.images?.length ? { attachments: imageReferences(inputs.images) } : {}),
        },
        true,
      );
      await this.hookContext();
      const outcome = await this.loop();
      // Closed in the microtask the loop ended in: a steer either was taken or is reported.
      const undelivered = this.steering?.close() ?? [];
      await this.recordEnd(outcome, await this.checkpoints.atEnd());
      return this.result(outcome, undelivered);
    } catch (error) {
      if (!(error instanceof TurnWriteFailed)) throw error;
      const outcome: Outcome = {
        status: "failed",
        stop_reason: null,
        error: { code: "history_write_failed", message: HISTORY_WRITE_FAILED_MESSAGE },
      };
      const undelivered = this.steering?.close() ?? [];
      if (started) await this.recordEndOnce(outcome);
      return this.result(outcome, undelivered);
    }
  }

  /** The hooks' context for the model: `UserPromptSubmit`'s, then `SessionStart`'s (hooks.md). */
  private async hookContext(): Promise<void> {
    const hooks = this.inputs.hooks;
    if (!hooks || hooks.nested) return;
    const started = await hooks.turn.started();
    for (const [event, text] of [
      ["UserPromptSubmit", hooks.promptContext],
      ["SessionStart", started],
    ])
      if (text) this.context.push(hookContextItem(event as string, text as string));
  }

  private recordEnd(outcome: Outcome, checkpoints?: TurnEndCheckpoints): Promise<void> {
    return this.inputs.record(
      {
        type: "turn_end",
        status: outcome.status,
        stop_reason: outcome.stop_reason,
        usage: this.usage.totals,
        cost_usd: this.usage.cost,
        ...(outcome.error ? { error_code: outcome.error.code } : {}),
        ...(checkpoints ? { checkpoints } : {}),
      },
      true,
    );
  }

  /**
   * After a failed append (truncated back to the last whole record): one try to end the turn
   * in its history as it ends for the client, `failed` with `history_write_failed`, so that the
   * history does not read as interrupted. When that append fails too (a full disk stays full, a
   * lost lock refuses every append), nothing more is tried: the history ends at its last whole
   * record, and reads as this turn interrupted (docs/turns.md, docs/store.md).
   */
  private async recordEndOnce(outcome: Outcome): Promise<void> {
    try {
      await this.recordEnd(outcome);
    } catch (error) {
      if (!(error instanceof TurnWriteFailed)) throw error;
    }
  }

  private result(outcome: Outcome, undelivered: PendingSteer[]): Result {
    return {
      turn_id: this.inputs.turnId,
      session_id: this.inputs.sessionId,
      usage: { ...this.usage.totals },
      ...(this.inputs.reportCost ? { cost_usd: this.usage.cost } : {}),
      steps: this.steps,
      ...outcome,
      ...(this.steering ? { undelivered_steers: undelivered } : {}),
    } as Result;
  }

  private async loop(): Promise<Outcome> {
    const { inputs } = this;
    const builtins = toolSpecs(this.tools);
    // The MCP tools of the servers ready now (no wait); later steps add servers that became
    // ready (McpOffer.refresh); with deferred loading the specs grow per step.
    const mcp = await McpOffer.of(inputs.mcp, inputs.permissions, inputs.signal);
    let offered = turnTools(this.tools, mcp);
    for (let round = 0; ; round++) {
      if (inputs.signal.aborted) return INTERRUPTED;
      if (this.steps >= TURN_EXTENSION.max_steps) return completed("max_steps");
      if (round > 0) inputs.betweenSteps?.();
      if (round > 0 && (await mcp?.refresh(inputs.signal, 0))) offered = turnTools(this.tools, mcp);
      this.roundIsStep = false;
      // The next model call boundary: every steer accepted so far joins the context, in order.
      await this.steering?.deliver();
      const system = inputs.system([...this.tools, ...(mcp?.named() ?? [])]);
      const specs = mcp ? [...builtins, ...mcp.specs()] : builtins;
      const proactive = await this.context.compactIfNeeded(system);
      if (proactive) return ended(proactive);
      let outcome = await this.call(system, specs);
      if (outcome.kind === "failed" && outcome.failure.code === "context_exceeded") {
        // The provider's own too-long answer: compact once, then the same call again. Text it
        // streamed before saying so (Anthropic's stop reason) was shown, so it is recorded.
        if (outcome.text) await this.recordAssistant(outcome.text, { interrupted: true });
        const reactive = await this.context.compact(system);
        if (reactive) return ended(reactive);
        outcome = await this.call(system, specs);
      }
      if (outcome.kind !== "done") {
        if (outcome.text) await this.recordAssistant(outcome.text, { interrupted: true });
        if (outcome.kind === "interrupted") return INTERRUPTED;
        return failed(outcome.failure);
      }
      // A reply no record can hold fails the turn as its append would, without building it.
      if (outcome.overflow) throw new TurnWriteFailed();
      if (outcome.usage) {
        this.context.reported(outcome.usage.input_tokens);
        await this.addUsage(outcome.usage);
      }
      await this.recordReply(outcome.messages, outcome.toolCalls.length > 0);
      // Calls are run whatever the stop reason says: some compatible servers end a step that
      // asks for tools with "stop", and every recorded call must get its result.
      // A steer that came while the model answered: one more call, with it in the context.
      if (outcome.toolCalls.length === 0 && this.steering?.hasPending) continue;
      if (outcome.toolCalls.length === 0) {
        // A Stop hook's exit 2 sends the turn on with its reason as the next instruction.
        const goOn =
          outcome.stop === "refusal" || inputs.hooks?.nested
            ? null
            : await inputs.hooks?.turn.stop();
        if (goOn) {
          this.context.push(hookContextItem("Stop", goOn));
          continue;
        }
        return completed(outcome.stop === "tool_use" ? "end_turn" : outcome.stop);
      }
      for (const call of outcome.toolCalls) {
        this.context.push({
          kind: "tool_call",
          call_id: call.call_id,
          tool: call.name,
          input: parseArguments(call.arguments),
        });
      }
      // A call of an MCP tool not offered may be one of a server still starting: wait for it.
      if (mcp && wantsStartingServer(outcome.toolCalls, offered)) {
        if (await mcp.refresh(inputs.signal)) offered = turnTools(this.tools, mcp);
      }
      // No tool runs before the workspace's state before the turn is recorded.
      await this.checkpoints.before();
      // Consecutive `agent` calls run together (subagents/step-calls.ts); others one by one.
      const results = await runStepCalls(
        outcome.toolCalls,
        (call) =>
          runToolCall(call, {
            offered,
            permissions: inputs.permissions,
            rules: inputs.rules,
            approvals: inputs.approvals,
            events: inputs.events,
            record: inputs.record,
            toolContext: { ...inputs.toolContext, signal: inputs.signal },
            newItemId: () => this.newItemId(),
            ...(inputs.hooks ? { hooks: inputs.hooks.turn } : {}),
          }),
        () => inputs.signal.aborted,
      );
      for (const result of results) {
        this.context.push({
          kind: "tool_result",
          call_id: result.call_id,
          output: result.output,
          is_error: result.is_error,
        });
      }
      if (inputs.signal.aborted) return INTERRUPTED;
    }
  }

  /**
   * One model call (its retries included). It is a step when it produced a reply: it finished,
   * or streamed some of its reply before it failed or was interrupted. A call that got no reply
   * (an error status, retries that all failed, an interrupt before its first output) is none.
   * The call made again after a reactive compaction belongs to the same step.
   */
  private async call(system: string, tools: ReturnType<typeof toolSpecs>) {
    const { inputs } = this;
    this.context.calling();
    const outcome = await callModel({
      provider: inputs.provider,
      request: {
        model: inputs.model.name,
        effort: inputs.model.effort,
        system,
        context: this.context.items,
        tools,
        conversation_id: inputs.sessionId,
      },
      signal: inputs.signal,
      events: inputs.events,
      newItemId: () => this.newItemId(),
      ...(inputs.backoffScale !== undefined ? { backoffScale: inputs.backoffScale } : {}),
    });
    if ((outcome.kind === "done" || outcome.replied) && !this.roundIsStep) {
      this.roundIsStep = true;
      this.steps += 1;
    }
    return outcome;
  }

  /**
   * Each message of a reply is its own record, with its replay state; a reply of tool calls
   * alone still gets one (empty) record before them.
   */
  private async recordReply(messages: ReplyMessage[], calls: boolean): Promise<void> {
    const kept = messages.filter((m) => m.text !== "" || m.provider_state);
    if (kept.length === 0 && calls) kept.push({ text: "", phase: null });
    for (const message of kept)
      await this.recordAssistant(message.text, {
        ...(message.provider_state ? { provider_state: message.provider_state } : {}),
      });
  }

  private async recordAssistant(text: string, extra: Record<string, unknown>): Promise<void> {
    const model = this.inputs.model.id;
    await this.inputs.record({
      type: "assistant_message",
      text,
      model,
      ...extra,
    } as TurnRecordBody);
    this.context.push({
      kind: "assistant",
      text,
      model,
      ...(extra.provider_state ? { provider_state: extra.provider_state as never } : {}),
    });
  }

  private async addUsage(usage: Usage): Promise<void> {
    const cost = this.usage.add(usage);
    await this.inputs.events.emit({
      type: "usage",
      ...usage,
      context_window: this.inputs.model.contextWindow,
      ...(this.inputs.reportCost ? { cost_usd: cost } : {}),
    });
  }

  private newItemId(): string {
    this.items += 1;
    return `${this.inputs.turnId}.${this.items}`;
  }
}

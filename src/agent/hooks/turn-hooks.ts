/**
 * One turn's hooks, at the moments the engine reaches (docs/hooks.md, "Events"): each method
 * builds its event's stdin in Claude Code's field names, runs the matching hooks and says what
 * the turn does with their outcome. Events a hook emits before `turn_started` (those of
 * `UserPromptSubmit`, which runs before anything is written) wait until the turn has started:
 * a prompt a hook blocks is refused without any event.
 */
import type { Permissions, TurnEventBody } from "../../protocol/schemas/turns.js";
import type { HookEvent } from "../../store/hooks-settings.js";
import { claudeToolInput, claudeToolResponse, permissionMode } from "./claude-fields.js";
import type { HookOutcome, PermissionDecision } from "./hook-outcome.js";
import { type HookSite, matchingHooks, runHooks } from "./hook-runner.js";
import { shownMessage } from "./shown-message.js";

/** How often `Stop` hooks may send a turn on (exit 2) before it ends all the same. */
export const STOP_CONTINUATIONS = 3;
/** What a blocking hook's reason becomes, at most (the model and the error see it). */
export const HOOK_REASON_CHARS = 4096;

export interface TurnHookSettings {
  site: HookSite;
  sessionId: string;
  transcriptPath: string;
  permissions: Permissions;
  signal: AbortSignal;
  /** Where events go with `hooks` negotiated; absent without it. */
  emit: ((event: TurnEventBody) => Promise<void>) | null;
  idPrefix: string;
  /** Set when this is the attachment's first turn: `SessionStart` runs, with this source. */
  sessionStart: "startup" | "resume" | null;
  /** Called once this turn has started its attachment's session (before `SessionStart` runs). */
  markStarted: () => void;
}

export class TurnHooks {
  private held: TurnEventBody[] | null = [];
  private ids = 0;
  private continued = 0;

  constructor(private readonly settings: TurnHookSettings) {}

  /** `UserPromptSubmit`: before the turn is admitted. A block refuses it (`prompt_blocked`). */
  async userPromptSubmit(prompt: string): Promise<{ blocked: string | null; context: string }> {
    const outcome = await this.run("UserPromptSubmit", null, { prompt });
    if (outcome?.block)
      return { blocked: shownMessage(outcome.reason, this.settings.site.workspace), context: "" };
    return { blocked: null, context: outcome?.context ?? "" };
  }

  /** Right after `turn_started`: the held events, then `SessionStart`; returns its context. */
  async started(): Promise<string> {
    const held = this.held ?? [];
    this.held = null;
    for (const event of held) await this.settings.emit?.(event);
    const source = this.settings.sessionStart;
    if (source === null) return "";
    this.settings.markStarted();
    const outcome = await this.run("SessionStart", source, { source });
    return outcome?.context ?? "";
  }

  /** `PreToolUse`: a denial's reason (the model's tool result), or the hooks' permission. */
  async preToolUse(
    tool: string,
    input: unknown,
    callId: string,
  ): Promise<{ denied: string | null; permission: Exclude<PermissionDecision, "deny"> | null }> {
    const outcome = await this.run("PreToolUse", tool, this.toolFields(tool, input, callId));
    if (!outcome) return { denied: null, permission: null };
    if (outcome.block || outcome.permission === "deny")
      return { denied: bounded(outcome.reason) || "no reason given", permission: null };
    return { denied: null, permission: outcome.permission };
  }

  /** `PostToolUse`: text added to the tool's result for the model (a block's reason, context). */
  async postToolUse(
    tool: string,
    input: unknown,
    callId: string,
    response: { output: string; status: string; exit_code: number | null },
  ): Promise<string> {
    const fields = {
      ...this.toolFields(tool, input, callId),
      tool_response: claudeToolResponse(this.settings.site.workspace, input, response),
    };
    const outcome = await this.run("PostToolUse", tool, fields);
    if (!outcome) return "";
    const said = [outcome.block ? outcome.reason : "", outcome.context].filter((t) => t !== "");
    return bounded(said.join("\n"));
  }

  /** `Stop`: the next instruction when a hook sends the turn on, within STOP_CONTINUATIONS. */
  async stop(): Promise<string | null> {
    const outcome = await this.run("Stop", null, { stop_hook_active: this.continued > 0 });
    // Past the bound the hooks still run (they may notify), but their block no longer holds.
    if (!outcome?.block || this.settings.signal.aborted) return null;
    if (this.continued >= STOP_CONTINUATIONS) return null;
    this.continued += 1;
    return bounded(outcome.reason) || "A Stop hook asked the turn to go on.";
  }

  /** `PreCompact`: before a summary replaces the context (always `auto` here). */
  async preCompact(): Promise<void> {
    await this.run("PreCompact", "auto", { trigger: "auto", custom_instructions: "" });
  }

  /** `Notification`: an approval is waiting. */
  async notification(title: string): Promise<void> {
    await this.run("Notification", null, {
      message: `mc-agent needs your permission: ${title}`,
      notification_type: "permission_prompt",
    });
  }

  private toolFields(tool: string, input: unknown, callId: string) {
    return {
      tool_name: tool,
      tool_input: claudeToolInput(this.settings.site.workspace, input),
      tool_use_id: callId,
    };
  }

  private async run(
    event: HookEvent,
    subject: string | null,
    fields: Record<string, unknown>,
  ): Promise<HookOutcome | null> {
    const { settings } = this;
    if (matchingHooks(settings.site, event, subject).length === 0) return null;
    const emit = settings.emit;
    return runHooks(settings.site, {
      event,
      subject,
      input: {
        session_id: settings.sessionId,
        transcript_path: settings.transcriptPath,
        cwd: settings.site.workspace,
        hook_event_name: event,
        permission_mode: permissionMode(settings.permissions),
        permissions: settings.permissions,
        ...fields,
      },
      signal: settings.signal,
      ...(emit ? { emit: (e: TurnEventBody) => this.send(emit, e) } : {}),
      newId: () => `${settings.idPrefix}.h${++this.ids}`,
    });
  }

  private send(emit: (event: TurnEventBody) => Promise<void>, event: TurnEventBody) {
    if (this.held) {
      this.held.push(event);
      return Promise.resolve();
    }
    return emit(event);
  }
}

function bounded(text: string): string {
  return text.length <= HOOK_REASON_CHARS ? text : `${text.slice(0, HOOK_REASON_CHARS)}…`;
}

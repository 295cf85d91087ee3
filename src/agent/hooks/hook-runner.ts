/**
 * Runs the hooks of one event (docs/hooks.md): the configured hooks whose matcher takes the
 * event's subject, all at once, each with the event's JSON on stdin; with `hooks` negotiated,
 * each run is framed by `hook_started` and `hook_done` turn events. Returns their combined
 * outcome (hook-outcome.ts), or null when no hook matched.
 */
import { HOOK_TEXT_BYTES } from "../../protocol/schemas/hooks.js";
import type { TurnEventBody } from "../../protocol/schemas/turns.js";
import { headBytes } from "../../protocol/text-cut.js";
import type { HookEvent } from "../../store/hooks-settings.js";
import type { ConfiguredHook } from "./hook-config.js";
import { combined, type HookOutcome, outcomeOf } from "./hook-outcome.js";
import { runHookProcess } from "./hook-process.js";
import { matches } from "./matcher.js";
import { shownMessage } from "./shown-message.js";

export interface HookSite {
  hooks: readonly ConfiguredHook[];
  workspace: string;
  /** The scrubbed environment of `shell` (no provider keys), with the project folder's names. */
  env: NodeJS.ProcessEnv;
}

export interface HookCall {
  event: HookEvent;
  /** What the matcher is tested against: a tool's name, a start's source, a compaction's trigger. */
  subject: string | null;
  /** The JSON on the hooks' stdin. */
  input: Record<string, unknown>;
  signal: AbortSignal;
  /** Where `hook_started` and `hook_done` go; absent: none is sent (SessionEnd, no `hooks`). */
  emit?: (event: TurnEventBody) => Promise<void>;
  /** A fresh hook ID for each run. */
  newId: () => string;
}

export function matchingHooks(site: HookSite, event: HookEvent, subject: string | null) {
  return site.hooks.filter(
    (hook) =>
      hook.event === event &&
      // Events without a subject take every group, whatever its matcher, as in Claude Code.
      (subject === null || matches(hook.matcher, subject)),
  );
}

export async function runHooks(site: HookSite, call: HookCall): Promise<HookOutcome | null> {
  const chosen = matchingHooks(site, call.event, call.subject);
  if (chosen.length === 0) return null;
  const stdin = JSON.stringify(call.input);
  const outcomes = await Promise.all(chosen.map((hook) => runOne(site, call, hook, stdin)));
  return combined(outcomes);
}

async function runOne(
  site: HookSite,
  call: HookCall,
  hook: ConfiguredHook,
  stdin: string,
): Promise<HookOutcome> {
  const hookId = call.newId();
  const command = Buffer.from(headBytes(Buffer.from(hook.command), HOOK_TEXT_BYTES)).toString();
  await call.emit?.({ type: "hook_started", hook_id: hookId, event: call.event, command });
  const began = performance.now();
  const end = await runHookProcess({
    command: hook.command,
    cwd: site.workspace,
    env: site.env,
    stdin,
    timeoutMs: hook.timeoutMs,
    signal: call.signal,
  });
  const outcome = outcomeOf(call.event, end);
  await call.emit?.({
    type: "hook_done",
    hook_id: hookId,
    status: outcome.status,
    duration_ms: Math.max(0, Math.round(performance.now() - began)),
    message: shownMessage(outcome.note, site.workspace),
  });
  return outcome;
}

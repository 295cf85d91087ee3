/**
 * The hooks a child runs: the global file's, then the project's (docs/hooks.md,
 * "Configuration"), flattened to one entry per command with where it came from. A project's
 * hooks are the repository's code: they join only once the workspace is trusted.
 */
import {
  HOOK_TIMEOUT_SECONDS,
  type HookEvent,
  type HooksSettings,
  isHookEvent,
} from "../../store/hooks-settings.js";

export type HookSource = "global" | "project";

export interface ConfiguredHook {
  source: HookSource;
  event: HookEvent;
  /** The matcher group's `matcher`, as written (absent: every subject). */
  matcher: string | undefined;
  command: string;
  timeoutMs: number;
}

/** Every hook of `settings` that can run here (Claude Code's other events never do). */
export function flattenHooks(source: HookSource, settings: HooksSettings | null): ConfiguredHook[] {
  const hooks: ConfiguredHook[] = [];
  for (const [event, groups] of Object.entries(settings ?? {})) {
    if (!isHookEvent(event) || groups === undefined) continue;
    for (const group of groups) {
      for (const hook of group.hooks)
        hooks.push({
          source,
          event,
          matcher: group.matcher,
          command: hook.command,
          timeoutMs: (hook.timeout ?? HOOK_TIMEOUT_SECONDS.default) * 1000,
        });
    }
  }
  return hooks;
}

/** Claude Code events `settings` configures that never run here, with how many hooks each has. */
export function claudeOnlyEvents(
  settings: HooksSettings | null,
): { event: string; hooks: number }[] {
  return Object.entries(settings ?? {})
    .filter(([event]) => !isHookEvent(event))
    .map(([event, groups]) => ({
      event,
      hooks: (groups ?? []).reduce((sum, group) => sum + group.hooks.length, 0),
    }));
}

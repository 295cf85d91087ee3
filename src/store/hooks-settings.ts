import { z } from "zod";
import { type Infer, lazy } from "../protocol/lazy.js";
import { HOOK_EVENT_NAMES } from "../protocol/schemas/hooks.js";

/**
 * `hooks` in `MC_HOME/config.json` and `<workspace>/.mc/config.json` (docs/hooks.md): Claude
 * Code's own format, so a team pastes its configuration unchanged. Strict like the rest of the
 * settings: an unknown event, field or hook type is the file's error, located by
 * `settings.check` (a matcher that is no regular expression too: rule `invalid_matcher`).
 * Claude Code's events that mc-agent has no moment for are known, checked and never run.
 */

export const HOOK_EVENTS = HOOK_EVENT_NAMES;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/**
 * Claude Code's other hook events, which have no moment here: accepted (and checked) so that a
 * team's pasted configuration stays valid, never run, each shown as a warning by `mc-agent
 * hooks` and `doctor`. Any other name is still the file's error (a typo must not pass quietly).
 */
export const CLAUDE_ONLY_EVENTS = [
  "PostToolUseFailure",
  "PostToolBatch",
  "PermissionRequest",
  "PermissionDenied",
  "UserPromptExpansion",
  "StopFailure",
  "SubagentStart",
  "SubagentStop",
  "PostCompact",
  "Elicitation",
  "ElicitationResult",
  "TeammateIdle",
  "TaskCreated",
  "TaskCompleted",
  "Setup",
  "InstructionsLoaded",
  "CwdChanged",
  "FileChanged",
  "ConfigChange",
  "WorktreeCreate",
  "WorktreeRemove",
  "PreModelSwitch",
  "PostModelSwitch",
  "MessageDisplay",
  "DirectoryAdded",
] as const;

export function isHookEvent(name: string): name is HookEvent {
  return (HOOK_EVENTS as readonly string[]).includes(name);
}

/** A hook's `timeout`, in seconds as Claude Code writes it. */
export const HOOK_TIMEOUT_SECONDS = { default: 60, max: 600 } as const;
/** Bounds of one file's hooks: matcher groups per event, hooks per group, sizes. */
export const HOOK_LIMITS = {
  groups: 64,
  hooks: 32,
  command_chars: 16_384,
  matcher_chars: 1024,
} as const;

const Hook = lazy(() =>
  z.strictObject({
    type: z.literal("command"),
    command: z.string().min(1).max(HOOK_LIMITS.command_chars),
    timeout: z.number().int().min(1).max(HOOK_TIMEOUT_SECONDS.max).optional(),
  }),
);

const MatcherGroup = lazy(() =>
  z.strictObject({
    matcher: z.string().max(HOOK_LIMITS.matcher_chars).optional(),
    hooks: z.array(Hook()).max(HOOK_LIMITS.hooks),
  }),
);

const HookRecord = lazy(() =>
  z.partialRecord(
    z.enum([...HOOK_EVENTS, ...CLAUDE_ONLY_EVENTS]),
    z.array(MatcherGroup()).max(HOOK_LIMITS.groups),
  ),
);

export const HooksSettings = lazy(() => HookRecord().superRefine(checkMatchers));
export type HooksSettings = Infer<typeof HookRecord>;

/** Each matcher must compile as a JavaScript regular expression (rule `invalid_matcher`). */
function checkMatchers(hooks: HooksSettings, ctx: z.RefinementCtx): void {
  for (const [event, groups] of Object.entries(hooks)) {
    for (const [index, group] of (groups ?? []).entries()) {
      if (group.matcher === undefined) continue;
      try {
        new RegExp(group.matcher);
      } catch {
        const rule = "invalid_matcher";
        ctx.addIssue({
          code: "custom",
          message: rule,
          params: { rule },
          path: [event, index, "matcher"],
        });
      }
    }
  }
}

/**
 * The `hooks` capability's turn events (docs/hooks.md, "Events on the wire"): each hook run of a
 * turn starts with `hook_started` and ends with `hook_done`. Hooks run whether or not a client
 * negotiated `hooks`; only these events need it.
 */
import { z } from "zod";
import { lazy } from "../lazy.js";
import { utf8Length } from "../paging.js";

/** The hook events of Claude Code's format that mc-agent runs (the store keeps the same list). */
export const HOOK_EVENT_NAMES = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PostToolUse",
  "Stop",
  "PreCompact",
  "SessionEnd",
  "Notification",
] as const;

export const HOOK_STATUSES = ["ok", "blocked", "failed", "timed_out"] as const;
/** The bound of `hook_started.command` and `hook_done.message`, in UTF-8 bytes. */
export const HOOK_TEXT_BYTES = 1024;

const HookId = lazy(() => z.string().regex(/^[A-Za-z0-9._:-]{1,64}$/));
const HookText = lazy(() =>
  z.string().refine((text) => utf8Length(text) <= HOOK_TEXT_BYTES, "a hook text over its bound"),
);

export const HookStartedEvent = lazy(() =>
  z.strictObject({
    type: z.literal("hook_started"),
    hook_id: HookId(),
    event: z.enum(HOOK_EVENT_NAMES),
    /** The configured command, cut to HOOK_TEXT_BYTES. */
    command: HookText(),
  }),
);

export const HookDoneEvent = lazy(() =>
  z.strictObject({
    type: z.literal("hook_done"),
    hook_id: HookId(),
    status: z.enum(HOOK_STATUSES),
    duration_ms: z.number().int().min(0),
    /** What the hook said (a block's reason, a failure's stderr), cut; paths outside the workspace hidden. */
    message: HookText(),
  }),
);

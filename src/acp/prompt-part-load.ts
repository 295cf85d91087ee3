export type PromptPart = typeof import("./prompt-part.js");

let loading: Promise<PromptPart> | null = null;

/** The prompt's part of the agent (prompt-part.ts), loaded once: a prompt awaits it. */
export function promptPart(): Promise<PromptPart> {
  loading ??= import("./prompt-part.js");
  return loading;
}

/**
 * Loads the prompt's part once the answer being written has gone out (a session's answer: new,
 * load, resume, fork), in the idle time before the editor's first prompt, which then finds it
 * loaded, or waits for it when it comes at once. On Node 20 this loads dist/child/acp-later.cjs,
 * with the turn engine's code (scripts/acp-later-split.js), not yet run.
 */
export function loadPromptPartSoon(): void {
  if (loading !== null) return;
  setImmediate(() => void promptPart());
}

import type { Terminal } from "../terminal.js";

/** When a refresh still has no answer, the elapsed time is shown: first after this long. */
const FIRST_WAIT_NOTICE_S = 5;
/** Later notices without a terminal (one line each), after these many seconds, then each minute. */
const LATER_NOTICES_S = [15, 30, 60];

/**
 * Shows how long a refresh has waited and how to cancel it: on a terminal in the live status
 * line (updated each second), otherwise as a note at 5, 15, 30 and 60 s, then every minute.
 * Returns the function that stops it (the caller calls it when the refresh ends either way).
 */
export function showWaiting(
  term: Terminal,
  provider: string,
  cancelling: () => boolean,
): () => void {
  const started = Date.now();
  let next = FIRST_WAIT_NOTICE_S;
  const timer = setInterval(() => {
    if (cancelling()) return;
    const elapsed = Math.floor((Date.now() - started) / 1000);
    if (elapsed < FIRST_WAIT_NOTICE_S) return;
    const text = `Refreshing ${provider}: ${elapsed} s and no answer yet. Ctrl-C cancels it.`;
    if (term.live) {
      term.startSpinner(text);
      return;
    }
    if (elapsed < next) return;
    term.note(`mc-agent: ${text}`);
    next = LATER_NOTICES_S.find((s) => s > elapsed) ?? elapsed + 60;
  }, 1000);
  return () => clearInterval(timer);
}

/**
 * An ACP session's prompts, one at a time (docs/acp.md, "Queued prompts and steering"): a
 * `session/prompt` sent while one runs waits here, FIFO, at most QUEUED_TURNS of them (one more
 * is `busy`), and runs when the prompt before it has answered. `session/cancel` cancels the
 * running prompt only; a waiting prompt's own `$/cancel_request` removes it, answered
 * `cancelled` without running. The ACP twin of the stdio child's turn.start `queue: true`.
 */
import { QUEUED_TURNS } from "../protocol/schemas/steering.js";
import { acpError } from "./errors.js";

interface Waiting {
  run: () => void;
}

export class PromptQueue {
  private active = false;
  private readonly waiting: Waiting[] = [];

  /** Whether a prompt runs or waits. */
  get occupied(): boolean {
    return this.active;
  }

  /**
   * Resolves true when it is this prompt's turn (it then must `leave()` when done), false when
   * `cancelled` fired while it waited (it never ran). Throws `busy` past the bound.
   */
  enter(cancelled?: AbortSignal): Promise<boolean> {
    if (!this.active) {
      this.active = true;
      return Promise.resolve(true);
    }
    if (this.waiting.length >= QUEUED_TURNS)
      return Promise.reject(acpError("busy", "Too many prompts are waiting in this session."));
    if (cancelled?.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const entry: Waiting = {
        run: () => {
          cancelled?.removeEventListener("abort", remove);
          resolve(true);
        },
      };
      const remove = () => {
        const at = this.waiting.indexOf(entry);
        if (at >= 0) this.waiting.splice(at, 1);
        resolve(false);
      };
      cancelled?.addEventListener("abort", remove, { once: true });
      this.waiting.push(entry);
    });
  }

  /** The running prompt answered: the next waiting one runs, if any. */
  leave(): void {
    const next = this.waiting.shift();
    if (next) next.run();
    else this.active = false;
  }
}

import type { ProviderFailure } from "./providers/provider.js";
import type { CompactionEnd } from "./turn-context.js";

/** How a turn ended: its result's status, stop reason and error (turns.md section 5). */
export type Outcome =
  | {
      status: "completed";
      stop_reason: "end_turn" | "max_tokens" | "max_steps" | "refusal";
      error: null;
    }
  | { status: "interrupted"; stop_reason: "interrupted"; error: null }
  | {
      status: "failed";
      stop_reason: null;
      error: {
        code: ProviderFailure["code"] | "history_write_failed";
        message: string;
        provider_message?: string;
      };
    };

export const INTERRUPTED: Outcome = {
  status: "interrupted",
  stop_reason: "interrupted",
  error: null,
};

export function completed(stop: "end_turn" | "max_tokens" | "max_steps" | "refusal"): Outcome {
  return { status: "completed", stop_reason: stop, error: null };
}

/** The turn's end when a compaction ended it. */
export function ended(end: CompactionEnd): Outcome {
  return end.kind === "interrupted" ? INTERRUPTED : failed(end.failure);
}

/** A turn failed by its provider (or its model call). */
export function failed(failure: ProviderFailure): Outcome {
  return {
    status: "failed",
    stop_reason: null,
    error: {
      code: failure.code,
      message: failure.message,
      ...(failure.providerMessage ? { provider_message: failure.providerMessage } : {}),
    },
  };
}

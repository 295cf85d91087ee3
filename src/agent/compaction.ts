import { callModel } from "./model-call.js";
import type { ContextItem, ModelProvider, Usage } from "./providers/provider.js";
import { ProviderFailure } from "./providers/provider.js";
import type { TurnEvents } from "./turn-events.js";

/** Proactive compaction starts when the next call would pass this share of the window. */
export const COMPACT_AT = 0.85;
/**
 * What the summary call may take of the window (the rest is the instruction's and the summary's
 * own room). Above the 85% trigger, so that a compaction at the trigger summarises the whole
 * conversation (the user's first request included) instead of leaving its oldest part out.
 */
const SUMMARY_SOURCE_SHARE = 0.9;
/** Summary calls per compaction: one answered too long is tried again without its older half. */
const SUMMARY_ATTEMPTS = 3;

export const SUMMARY_INSTRUCTION = [
  "The conversation so far is about to be replaced by your summary, because it no longer fits",
  "the model's context window. Write that summary now, for yourself to continue the work from:",
  "the user's goals and requests (the latest one included, with the progress made on it), the",
  "decisions taken and why, the files read or changed (with paths), commands run and their",
  "results that still matter, and the open problems and next steps. Be complete but concise;",
  "do not call tools; answer with the summary only.",
].join(" ");

/** About four characters a token: the estimate used before the provider reports real counts. */
/** An image counts as about 1600 tokens (Anthropic's figure for a large one), whatever its bytes. */
function imageChars(images: readonly unknown[] | undefined): number {
  return (images?.length ?? 0) * 1600 * 4;
}

export function estimateTokens(items: readonly ContextItem[], system = ""): number {
  let chars = system.length;
  for (const item of items) {
    if (item.kind === "tool_call")
      chars += item.tool.length + (JSON.stringify(item.input)?.length ?? 0);
    else if (item.kind === "tool_result") chars += item.output.length;
    else chars += item.text.length + (item.kind === "user" ? imageChars(item.images) : 0);
    chars += 16; // role and framing overhead per item
  }
  return Math.ceil(chars / 4);
}

interface CompactionInputs {
  provider: ModelProvider;
  model: string;
  effort: string | null;
  system: string;
  context: readonly ContextItem[];
  contextWindow: number | null;
  signal: AbortSignal;
  events: TurnEvents;
  newItemId: () => string;
  backoffScale?: number;
}

type CompactionOutcome =
  | { kind: "compacted"; summary: string; usage: Usage | null }
  | { kind: "interrupted" }
  | { kind: "failed"; failure: ProviderFailure };

/**
 * One extra call to the same model, without tools, for a summary of the conversation so far
 * (turns.md section 10). When even the summary call would not fit, its oldest items are left
 * out (a previous summary is always kept) so that the newest work is what gets summarised: by
 * the estimate first, and again by halves when the provider answers that it is too long (the
 * only signal there is for a model without a known window).
 */
export async function summarise(inputs: CompactionInputs): Promise<CompactionOutcome> {
  let source = fitForSummary(inputs.context, inputs.contextWindow, inputs.system);
  for (let attempt = 1; ; attempt += 1) {
    const outcome = await callModel({
      provider: inputs.provider,
      request: {
        model: inputs.model,
        effort: inputs.effort,
        system: inputs.system,
        context: [...source, { kind: "user", text: SUMMARY_INSTRUCTION }],
        tools: [],
      },
      signal: inputs.signal,
      events: inputs.events,
      newItemId: inputs.newItemId,
      silent: true,
      ...(inputs.backoffScale !== undefined ? { backoffScale: inputs.backoffScale } : {}),
    });
    if (outcome.kind === "interrupted") return { kind: "interrupted" };
    if (outcome.kind === "failed") {
      const tooLong = outcome.failure.code === "context_exceeded";
      const shorter = tooLong && attempt < SUMMARY_ATTEMPTS ? withoutOlderHalf(source) : null;
      if (shorter) {
        source = shorter;
        continue;
      }
      return { kind: "failed", failure: outcome.failure };
    }
    const summary = outcome.text.trim();
    if (summary === "")
      return {
        kind: "failed",
        failure: new ProviderFailure("invalid_response", "The model returned an empty summary."),
      };
    return { kind: "compacted", summary, usage: outcome.usage };
  }
}

/** Where whole steps start (a user or assistant item after the kept first one). */
function stepStarts(items: readonly ContextItem[], keepFirst: number): number[] {
  const starts: number[] = [];
  items.forEach((item, i) => {
    if (i > keepFirst && (item.kind === "user" || item.kind === "assistant")) starts.push(i);
  });
  return starts;
}

/** A previous summary, first, is never left out. */
const keptFirst = (items: readonly ContextItem[]) => (items[0]?.kind === "summary" ? 1 : 0);

function fitForSummary(
  context: readonly ContextItem[],
  window: number | null,
  system: string,
): ContextItem[] {
  const items = [...context];
  if (window === null) return items;
  const budget = window * SUMMARY_SOURCE_SHARE;
  const keepFirst = keptFirst(items);
  while (estimateTokens(items, system) > budget) {
    // Cut whole steps (up to the next user or assistant item), so that no tool result is
    // left without its call; the newest step always stays.
    const next = stepStarts(items, keepFirst)[0];
    if (next === undefined) break;
    items.splice(keepFirst, next - keepFirst);
  }
  return items;
}

/** The items without the older half of their steps, or null when only the newest is left. */
function withoutOlderHalf(items: readonly ContextItem[]): ContextItem[] | null {
  const keepFirst = keptFirst(items);
  const starts = stepStarts(items, keepFirst);
  if (starts.length === 0) return null;
  const cut = starts[Math.floor((starts.length - 1) / 2)] as number;
  return [...items.slice(0, keepFirst), ...items.slice(cut)];
}

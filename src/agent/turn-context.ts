/**
 * The conversation a turn's model calls see, kept within the model's window: the session's
 * history plus this turn's input and everything the turn adds, compacted into a summary when the
 * next call would pass 85% of a known window (proactive), first thing after a replay cut to its
 * bound, or when the provider answers that it is too long (reactive). engine.ts runs the turn;
 * compaction.ts writes the summary.
 */

import type { TurnRecordBody } from "../sessions/records/turn-records.js";
import { imageParts } from "./attachments/image-context.js";
import type { PreparedImage } from "./attachments/prepare.js";
import { COMPACT_AT, estimateTokens, summarise } from "./compaction.js";
import {
  type ContextItem,
  type ModelProvider,
  ProviderFailure,
  type Usage,
} from "./providers/provider.js";
import type { TurnEvents } from "./turn-events.js";

/** What compacting needs of the turn (turn-inputs.ts's `TurnInputs` has it all). */
interface TurnContextInputs {
  input: string;
  images?: PreparedImage[];
  provider: ModelProvider;
  model: { name: string; effort: string | null; contextWindow: number | null };
  signal: AbortSignal;
  events: TurnEvents;
  record: (body: TurnRecordBody, sync?: boolean) => Promise<void>;
  backoffScale?: number;
  /** `PreCompact` hooks run before a summary is asked for (docs/hooks.md). */
  hooks?: { turn: { preCompact(): Promise<void> } };
}

/** How the turn is told a compaction ended it; null (no end) when the turn goes on. */
export type CompactionEnd = { kind: "interrupted" } | { kind: "failed"; failure: ProviderFailure };

const CONTEXT_EXCEEDED_MESSAGE =
  "The conversation does not fit the model's context window, even after compaction.";

export class TurnContext {
  private context: ContextItem[];
  /** This turn's input (with its images), which a compaction keeps whole. */
  private readonly own: ContextItem;
  /** The provider's input count of the previous call, and the context length it saw. */
  private lastInputTokens: number | null = null;
  private lengthAtLastCall = 0;
  /** A compaction is due before the next call whatever the estimate (a truncated replay). */
  private compactionDue: boolean;

  constructor(
    private readonly inputs: TurnContextInputs,
    history: ContextItem[],
    historyTruncated: boolean,
    /** The turn's own bookkeeping of a summary call: its usage, its item IDs. */
    private readonly turn: {
      addUsage: (usage: Usage) => Promise<void>;
      newItemId: () => string;
    },
  ) {
    this.own = {
      kind: "user",
      text: inputs.input,
      ...(inputs.images?.length ? { images: imageParts(inputs.images) } : {}),
    };
    this.context = [...history, this.own];
    this.compactionDue = historyTruncated;
  }

  /** The context as it stands (the array a model call is given). */
  get items(): ContextItem[] {
    return this.context;
  }

  push(item: ContextItem): void {
    this.context.push(item);
  }

  /** A model call is about to see the context as it stands now. */
  calling(): void {
    this.lengthAtLastCall = this.context.length;
  }

  /** The provider counted this many input tokens for the last call. */
  reported(inputTokens: number): void {
    this.lastInputTokens = inputTokens;
  }

  /** The next call's size: the last reported input plus an estimate of what came since. */
  private estimate(system: string): number {
    if (this.lastInputTokens === null) return estimateTokens(this.context, system);
    return this.lastInputTokens + estimateTokens(this.context.slice(this.lengthAtLastCall));
  }

  /**
   * Proactive compaction past 85% of a known window, or first thing after a truncated replay;
   * an end only when the turn ends.
   */
  async compactIfNeeded(system: string): Promise<CompactionEnd | null> {
    if (this.compactionDue) return this.compact(system);
    const window = this.inputs.model.contextWindow;
    if (window === null || this.estimate(system) <= window * COMPACT_AT) return null;
    return this.compact(system);
  }

  /**
   * Replaces the context by a summary of it plus this turn's input (always kept whole), with a
   * `compaction` record and a `compacted` event; null when the turn goes on.
   */
  async compact(system: string): Promise<CompactionEnd | null> {
    const { inputs } = this;
    const window = inputs.model.contextWindow;
    this.compactionDue = false;
    // What compaction keeps (the system prompt and this turn's input) past the window already:
    // no summary can help, so none is asked for.
    if (window !== null && estimateTokens([{ kind: "user", text: inputs.input }], system) > window)
      return exceeded();
    await inputs.hooks?.turn.preCompact();
    if (inputs.signal.aborted) return { kind: "interrupted" };
    const tokensBefore = this.estimate(system);
    const outcome = await summarise({
      provider: inputs.provider,
      model: inputs.model.name,
      effort: inputs.model.effort,
      system,
      context: this.context,
      contextWindow: inputs.model.contextWindow,
      signal: inputs.signal,
      events: inputs.events,
      newItemId: () => this.turn.newItemId(),
      ...(inputs.backoffScale !== undefined ? { backoffScale: inputs.backoffScale } : {}),
    });
    if (outcome.kind === "interrupted") return { kind: "interrupted" };
    if (outcome.kind === "failed") return { kind: "failed", failure: outcome.failure };
    if (outcome.usage) await this.turn.addUsage(outcome.usage);
    await inputs.record({
      type: "compaction",
      summary: outcome.summary,
      tokens_before: tokensBefore,
    });
    this.context = [{ kind: "summary", text: outcome.summary }, this.own];
    this.lastInputTokens = null;
    const tokensAfter = estimateTokens(this.context, system);
    await inputs.events.emit({
      type: "compacted",
      tokens_before: tokensBefore,
      tokens_after: tokensAfter,
    });
    if (window !== null && tokensAfter > window) return exceeded();
    return null;
  }
}

function exceeded(): CompactionEnd {
  return {
    kind: "failed",
    failure: new ProviderFailure("context_exceeded", CONTEXT_EXCEEDED_MESSAGE),
  };
}

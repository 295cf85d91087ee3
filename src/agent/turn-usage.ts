import { roundUsd } from "../protocol/usd.js";
import type { ModelCost } from "../store/catalog-cache.js";
import { costOf } from "./cost.js";
import type { Usage } from "./providers/provider.js";

/**
 * A turn's tokens and cost so far: its model calls', and its subagents' (each at its own
 * model's price). The cost is in USD, null from the first call whose price is unknown on.
 */
export class TurnUsage {
  readonly totals: Usage = {
    input_tokens: 0,
    output_tokens: 0,
    cached_input_tokens: 0,
    reasoning_tokens: 0,
  };
  private costSoFar: number | null;

  constructor(private readonly price: ModelCost | null | undefined) {
    this.costSoFar = price ? 0 : null;
  }

  get cost(): number | null {
    return this.costSoFar;
  }

  /** Adds one call's usage at `price` (default: the turn's model's); returns that call's cost. */
  add(usage: Usage, price = this.price): number | null {
    this.totals.input_tokens += usage.input_tokens;
    this.totals.output_tokens += usage.output_tokens;
    this.totals.cached_input_tokens += usage.cached_input_tokens;
    this.totals.reasoning_tokens += usage.reasoning_tokens;
    const cost = costOf(usage, price);
    this.costSoFar =
      this.costSoFar === null || cost === null ? null : roundUsd(this.costSoFar + cost);
    return cost;
  }
}

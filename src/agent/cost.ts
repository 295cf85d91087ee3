import { roundUsd } from "../protocol/usd.js";
import type { ModelCost } from "../store/catalog-cache.js";
import type { Usage } from "./providers/provider.js";

/**
 * What a model call cost in USD, from the catalog's prices (USD per million tokens, kept by
 * model.refresh from models.dev): uncached input at `input`, cached input at `cache_read` (at
 * `input` when models.dev gives no cache price), output (reasoning included) at `output`. Null
 * when the model has no price: an unknown cost is never guessed as 0.
 */
export function costOf(usage: Usage, price: ModelCost | null | undefined): number | null {
  if (!price) return null;
  const cached = Math.min(usage.cached_input_tokens, usage.input_tokens);
  const uncached = usage.input_tokens - cached;
  const micro =
    uncached * price.input +
    cached * (price.cache_read ?? price.input) +
    usage.output_tokens * price.output;
  return roundUsd(micro / 1_000_000);
}

import type { ContextItem } from "../providers/provider.js";

/**
 * What a hook adds to the model's context (docs/hooks.md, "Decisions"): a user message of its
 * own, marked with the event that said it, for this turn's calls (not recorded in the history).
 */
export function hookContextItem(event: string, text: string): ContextItem {
  return { kind: "user", text: `<hook event="${event}">\n${text}\n</hook>` };
}

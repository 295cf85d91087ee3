import type { Capability } from "../protocol/capabilities.js";
import { isRemote } from "./errors.js";
import type { Negotiated } from "./negotiate.js";

/**
 * How many optional capabilities one spawn may ask for: finding the set a child grants can take
 * one initialize per subset of them (2^6 = 64 at most, far below the child's request bound).
 */
export const MAX_OPTIONAL = 6;

/**
 * Negotiates `capabilities` plus as many of `optional` as the child offers. A refused initialize
 * leaves the child uninitialized and says only that some name is unknown (base-protocol §4),
 * while one that succeeds is final; so the subsets of `optional` are asked largest first (ties:
 * the earlier names kept), and the first one granted is the largest the child offers, since a
 * child offers each name on its own. A child that offers all of them answers the first ask;
 * one that refuses even `capabilities` alone is refused as before.
 */
export async function negotiate(
  capabilities: readonly Capability[],
  optional: readonly Capability[],
  initialize: (capabilities: readonly Capability[]) => Promise<Negotiated>,
): Promise<Negotiated> {
  // The last subset is the empty one: `capabilities` alone, whose refusal is the caller's.
  const subsets = largestFirst(optional);
  for (const subset of subsets.slice(0, -1)) {
    try {
      return await initialize([...capabilities, ...subset]);
    } catch (error) {
      if (!isRemote(error, "unsupported_capability")) throw error;
    }
  }
  return initialize(capabilities);
}

/**
 * The optional capabilities worth asking for: each once, none already required. More than
 * MAX_OPTIONAL is the caller's mistake, refused before any child starts.
 */
export function optionalOf(options: {
  capabilities: readonly Capability[];
  optional?: readonly Capability[];
}): Capability[] {
  const optional = [...new Set(options.optional ?? [])].filter(
    (name) => !options.capabilities.includes(name),
  );
  if (optional.length > MAX_OPTIONAL)
    throw new RangeError(`At most ${MAX_OPTIONAL} optional capabilities can be asked for at once.`);
  return optional;
}

/** Every subset of `names`, largest first; among equals, the one keeping earlier names first. */
export function largestFirst<T>(names: readonly T[]): T[][] {
  const subsets: T[][] = [];
  for (let mask = 0; mask < 1 << names.length; mask += 1)
    subsets.push(names.filter((_, i) => (mask & (1 << (names.length - 1 - i))) !== 0));
  // Larger first; equal sizes keep the mask order, highest (earliest names) first.
  return subsets.reverse().sort((a, b) => b.length - a.length);
}

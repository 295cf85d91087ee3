import type { z } from "zod";
import { CAPABILITIES } from "../protocol/capabilities.js";
import { EXTENSION_NAMES, EXTENSION_SPECS } from "../protocol/extensions.js";
import type { InitializeFacts } from "./initialize-fast.js";

/**
 * The capabilities whose `initialize.extensions` parameters the child finds out before it
 * answers (`ServerState.extensionPending`): the turn extension's sandbox, from a real run, and
 * its checkpoints. The starter leaves an initialize negotiating one of them to the full child;
 * test/boot/fast-start.test.ts checks this list against the handlers' own.
 */
const FOUND_OUT_CAPABILITIES: readonly string[] = ["turn"];

/**
 * What the starter answers `initialize` from (initialize-fast.ts), read from the protocol's
 * tables: scripts/bundle.js inlines it into dist/child/starter.cjs, so the starter loads none
 * of the tables (nor zod) and holds nothing written twice.
 */
export function initializeFacts(): InitializeFacts {
  return {
    capabilities: [...CAPABILITIES],
    extensions: EXTENSION_NAMES.map((name) => [name, EXTENSION_SPECS[name].parameters] as const),
    foundOut: FOUND_OUT_CAPABILITIES,
    keyOrders: FOUND_OUT_CAPABILITIES.map((name) => [name, schemaKeys(name)] as const),
  };
}

/**
 * The keys of an extension's parameter object in its schema's order: the child's result passes
 * its schema (outbound.ts), which writes an object's keys in that order, found-out ones included.
 */
function schemaKeys(name: string): string[] {
  const spec = EXTENSION_SPECS[name as keyof typeof EXTENSION_SPECS];
  return Object.keys((spec.schema() as z.ZodObject).shape);
}

import { z } from "zod";
import { DISCOVER_EXTENSION, REFRESH_EXTENSION } from "./constants.js";
import { type Infer, type Lazy, lazy } from "./lazy.js";
import { TURN_EXTENSION, TurnExtension } from "./schemas/turns.js";

export const DiscoverExtension = lazy(() =>
  z.strictObject({
    consistency: z.literal("provisional_until_complete"),
    ordering: z.literal("directory"),
    step_directory_entries: z.number().int(),
    step_lines: z.number().int(),
    step_bytes: z.number().int(),
    record_bytes: z.number().int(),
    step_ms: z.number().int(),
    page_entries: z.number().int(),
    page_bytes: z.number().int(),
  }),
);

export const RefreshExtension = lazy(() =>
  z.strictObject({
    providers_per_request: z.number().int(),
    cache_bytes: z.number().int(),
    models: z.number().int(),
    preferences: z.literal("unchanged"),
  }),
);

interface ExtensionSpec {
  /** The parameter object's schema (what a client decodes it with), built on first use. */
  schema: Lazy<z.ZodType>;
  /** The parameter object this child advertises in `initialize.extensions` when negotiated. */
  parameters: object;
  /** Which contract fixes it: the seed's extension contract, or ours (docs/turns.md). */
  contract: "seed" | "turns";
}

/**
 * The extensions that carry a parameter object, keyed by capability. The `extensions` schema of
 * the initialize result, what the child advertises and what the SDK decodes all derive from it.
 */
export const EXTENSION_SPECS = {
  "session.discover": {
    schema: DiscoverExtension,
    parameters: DISCOVER_EXTENSION,
    contract: "seed",
  },
  "model.refresh": { schema: RefreshExtension, parameters: REFRESH_EXTENSION, contract: "seed" },
  // `sandbox` is what the child found it can start; null unless it says otherwise (lifecycle.ts).
  turn: {
    schema: TurnExtension,
    parameters: { ...TURN_EXTENSION, sandbox: null },
    contract: "turns",
  },
} as const satisfies Record<string, ExtensionSpec>;

export type ExtensionName = keyof typeof EXTENSION_SPECS;
export const EXTENSION_NAMES = Object.keys(EXTENSION_SPECS) as ExtensionName[];

type ExtensionsShape = {
  [K in ExtensionName]: z.ZodOptional<ReturnType<(typeof EXTENSION_SPECS)[K]["schema"]>>;
};

/** `initialize.extensions`: one optional parameter object per negotiated extension. */
export const Extensions = lazy(() =>
  z.strictObject(
    Object.fromEntries(
      EXTENSION_NAMES.map((name) => [name, EXTENSION_SPECS[name].schema().optional()]),
    ) as ExtensionsShape,
  ),
);
export type Extensions = Infer<typeof Extensions>;

import type { Capability } from "../protocol/capabilities.js";
import {
  type DiscoverExtension as DiscoverExtensionSchema,
  EXTENSION_NAMES,
  EXTENSION_SPECS,
  type Extensions,
  type RefreshExtension as RefreshExtensionSchema,
} from "../protocol/extensions.js";
import type { Infer } from "../protocol/lazy.js";
import { type InitializeResult, Limits as LimitsSchema } from "../protocol/schemas/lifecycle.js";
import type { TurnExtension as TurnExtensionType } from "../protocol/schemas/turns.js";
import { ClientError } from "./errors.js";

export type Limits = Infer<typeof LimitsSchema>;
export type DiscoverExtension = Infer<typeof DiscoverExtensionSchema>;
export type RefreshExtension = Infer<typeof RefreshExtensionSchema>;
export type TurnExtension = TurnExtensionType;

/** The extension parameter objects, each decoded by its own schema. */
type NegotiatedExtensions = Extensions;

export interface Negotiated {
  server: InitializeResult["server"];
  capabilities: ReadonlySet<Capability>;
  limits: Limits;
  extensions: NegotiatedExtensions;
}

/**
 * Checks an initialize result against what was asked: exactly the requested capabilities, the
 * base `limits` (unchanged by negotiation), and one parameter object per negotiated extension
 * that has one, decoded separately from the base fields. Anything else is a protocol violation.
 */
export function decodeNegotiation(
  requested: readonly Capability[],
  result: InitializeResult,
): Negotiated {
  const asked = [...new Set(requested)].sort();
  const got = [...result.capabilities].sort();
  if (asked.join(",") !== got.join(","))
    throw violation("negotiated a different capability set than was asked");
  const limits = LimitsSchema().parse(result.limits);
  const extensions: NegotiatedExtensions = {};
  for (const name of EXTENSION_NAMES) {
    const raw = result.extensions[name];
    const expected = (asked as string[]).includes(name);
    if (expected !== (raw !== undefined))
      throw violation(`${expected ? "omitted" : "sent"} the ${name} extension parameters`);
    if (raw !== undefined) {
      const decoded = EXTENSION_SPECS[name].schema().safeParse(raw);
      if (!decoded.success) throw violation(`sent malformed ${name} extension parameters`);
      Object.assign(extensions, { [name]: decoded.data });
    }
  }
  return {
    server: result.server,
    capabilities: new Set(asked as Capability[]),
    limits,
    extensions,
  };
}

function violation(what: string): ClientError {
  return new ClientError("protocol_violation", `The child ${what} at initialize.`);
}

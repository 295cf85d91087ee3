import type { z } from "zod";
import { type Capability, EXTENSION_PARAMETERS } from "../protocol/constants.js";
import {
  DiscoverExtension as DiscoverExtensionSchema,
  type InitializeResult,
  Limits as LimitsSchema,
  RefreshExtension as RefreshExtensionSchema,
} from "../protocol/schemas/lifecycle.js";
import { ClientError } from "./errors.js";

export type Limits = z.infer<typeof LimitsSchema>;
export type DiscoverExtension = z.infer<typeof DiscoverExtensionSchema>;
export type RefreshExtension = z.infer<typeof RefreshExtensionSchema>;

/** The extension parameter objects, each decoded by its own schema. */
export interface NegotiatedExtensions {
  "session.discover"?: DiscoverExtension;
  "model.refresh"?: RefreshExtension;
}

export interface Negotiated {
  server: InitializeResult["server"];
  capabilities: ReadonlySet<Capability>;
  limits: Limits;
  extensions: NegotiatedExtensions;
}

const EXTENSION_SCHEMAS = {
  "session.discover": DiscoverExtensionSchema,
  "model.refresh": RefreshExtensionSchema,
} as const;

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
  const limits = LimitsSchema.parse(result.limits);
  const extensions: NegotiatedExtensions = {};
  for (const [name, schema] of Object.entries(EXTENSION_SCHEMAS) as [
    keyof NegotiatedExtensions,
    (typeof EXTENSION_SCHEMAS)[keyof NegotiatedExtensions],
  ][]) {
    const raw = result.extensions[name];
    const expected = asked.includes(name) && EXTENSION_PARAMETERS[name] !== undefined;
    if (expected !== (raw !== undefined))
      throw violation(`${expected ? "omitted" : "sent"} the ${name} extension parameters`);
    if (raw !== undefined) {
      const decoded = schema.safeParse(raw);
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

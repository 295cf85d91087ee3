import { z } from "zod";
import { METHODS, PUBLIC_METHOD_NAMES } from "./methods.js";
import { ErrorFrame, RequestFrame, SuccessFrame } from "./schemas/common.js";

/**
 * The published JSON Schema of every frame: the envelopes, and each public method's params and
 * result. Generated from the zod schemas so the two never drift.
 */
export function buildProtocolSchema(): Record<string, unknown> {
  const methods: Record<string, unknown> = {};
  for (const name of PUBLIC_METHOD_NAMES) {
    const spec = METHODS[name];
    methods[name] = {
      capability: spec.capability,
      params: z.toJSONSchema(spec.params, { io: "input" }),
      result: z.toJSONSchema(spec.result, { io: "output" }),
    };
  }
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "local-agent stdio protocol, version 1 (mc-agent)",
    frames: {
      request: z.toJSONSchema(RequestFrame),
      success: z.toJSONSchema(SuccessFrame),
      error: z.toJSONSchema(ErrorFrame),
    },
    methods,
  };
}

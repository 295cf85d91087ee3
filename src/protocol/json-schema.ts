import { z } from "zod";
import { METHODS, NOTIFICATIONS, type NotificationName, PUBLIC_METHOD_NAMES } from "./methods.js";
import { ErrorFrame, NotificationFrame, RequestFrame, SuccessFrame } from "./schemas/common.js";

/**
 * The published JSON Schema of every frame: the envelopes, each public method's params and
 * result, and each notification's params. Generated from the zod schemas so they never drift.
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
  const notifications: Record<string, unknown> = {};
  for (const name of Object.keys(NOTIFICATIONS) as NotificationName[]) {
    const spec = NOTIFICATIONS[name];
    notifications[name] = {
      capability: spec.capability,
      request: spec.request,
      params: z.toJSONSchema(spec.params, { io: "output" }),
    };
  }
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "local-agent stdio protocol, version 1 (mc-agent)",
    frames: {
      request: z.toJSONSchema(RequestFrame),
      success: z.toJSONSchema(SuccessFrame),
      error: z.toJSONSchema(ErrorFrame),
      notification: z.toJSONSchema(NotificationFrame),
    },
    methods,
    notifications,
  };
}

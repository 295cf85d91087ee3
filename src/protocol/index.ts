/**
 * mc-agent/protocol: the wire contract as data — constants, error codes, the zod schemas of
 * every params and result object, and the method table. No I/O.
 */
export * from "./capabilities.js";
export * from "./codes.js";
export * from "./constants.js";
export * from "./envelope.js";
export * from "./extensions.js";
export * from "./framing.js";
export { buildProtocolSchema } from "./json-schema.js";
export * from "./methods.js";
export * from "./paging.js";
export * from "./recovery.js";
export * from "./schemas/common.js";
export * from "./schemas/lifecycle.js";
export * from "./schemas/models.js";
export * from "./schemas/sessions.js";
export * from "./schemas/turns.js";

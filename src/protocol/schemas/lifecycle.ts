import { z } from "zod";
import { Extensions } from "../extensions.js";
import { type Infer, lazy } from "../lazy.js";
import { Effort, ModelId, RequestId, SessionId } from "./common.js";

export const InitializeParams = lazy(() =>
  z.strictObject({
    // Any integer is accepted here so that a wrong version gets `unsupported_protocol_version`.
    protocol_version: z.number().int(),
    client: z.strictObject({
      name: z.string().min(1).max(256),
      version: z.string().min(1).max(256),
    }),
    // Names are checked by negotiation (`unsupported_capability`), not by the schema.
    required_capabilities: z.array(z.string().max(256)).max(64),
  }),
);

export const Limits = lazy(() =>
  z.strictObject({
    frame_bytes: z.number().int(),
    child_requests: z.number().int(),
    active_requests: z.number().int(),
    discovery_sessions: z.number().int(),
    history_bytes: z.number().int(),
    page_entries: z.number().int(),
    page_bytes: z.number().int(),
    cleanup_ms: z.number().int(),
  }),
);

// The extension parameter objects live with the extension table.
export { DiscoverExtension, Extensions, RefreshExtension } from "../extensions.js";

export const InitializeResult = lazy(() =>
  z.strictObject({
    protocol_version: z.literal(1),
    server: z.strictObject({ name: z.string(), version: z.string() }),
    capabilities: z.array(z.string()),
    limits: Limits(),
    extensions: Extensions(),
  }),
);

export const Attachment = lazy(() =>
  z.strictObject({ session_id: SessionId(), saved: z.boolean() }),
);
export const Selection = lazy(() =>
  z.strictObject({ model: ModelId().nullable(), effort: Effort().nullable() }),
);

export const StatusResult = lazy(() =>
  z.strictObject({
    state: z.enum(["uninitialized", "ready", "shutting_down"]),
    cwd: z.string(),
    attachment: Attachment().nullable(),
    selection: Selection(),
    worker: z.enum(["idle", "busy"]),
    active_requests: z.array(z.strictObject({ id: RequestId(), method: z.string() })),
    requests_left: z.number().int().min(0),
  }),
);

export const ShutdownResult = lazy(() => z.strictObject({ state: z.literal("stopped") }));

export const CancelParams = lazy(() => z.strictObject({ request_id: RequestId() }));
export const CancelResult = lazy(() =>
  z.strictObject({
    state: z.literal("cancelling"),
    request_id: RequestId(),
  }),
);

/** Test-only slow operation; registered only when MC_AGENT_TEST_METHODS=1. */
export const TestSleepParams = lazy(() =>
  z.strictObject({
    ms: z.number().int().min(0).max(60_000),
    /** Ignore the abort signal (to exercise the shutdown cleanup bound). */
    stubborn: z.boolean().optional(),
  }),
);
export const TestSleepResult = lazy(() => z.strictObject({ slept_ms: z.number().int() }));

/** Test-only: the exported schemas this child has built so far, and how many lazy values in all. */
export const TestSchemasResult = lazy(() =>
  z.strictObject({ built: z.array(z.string()), builds: z.number().int().min(0) }),
);

export type InitializeParams = Infer<typeof InitializeParams>;
export type InitializeResult = Infer<typeof InitializeResult>;
export type StatusResult = Infer<typeof StatusResult>;
export type Attachment = Infer<typeof Attachment>;
export type Selection = Infer<typeof Selection>;

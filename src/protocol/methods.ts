import type { z } from "zod";
import type { Capability } from "./constants.js";
import { EmptyParams } from "./schemas/common.js";
import {
  CancelParams,
  CancelResult,
  InitializeParams,
  InitializeResult,
  ShutdownResult,
  StatusResult,
  TestSleepParams,
  TestSleepResult,
} from "./schemas/lifecycle.js";
import {
  ModelCatalogParams,
  ModelCatalogResult,
  ModelCatalogStatusParams,
  ModelCatalogStatusResult,
  ModelRefreshParams,
  ModelRefreshResult,
  ModelSelectParams,
  ModelSelectResult,
} from "./schemas/models.js";
import {
  SessionCreateParams,
  SessionCreateResult,
  SessionDiscoverParams,
  SessionDiscoverResult,
  SessionHistoryParams,
  SessionHistoryResult,
  SessionListParams,
  SessionListResult,
  SessionOpenParams,
  SessionOpenResult,
} from "./schemas/sessions.js";

/**
 * How a method is admitted:
 * - `loop`: answered at once on the protocol loop, never counted or remembered (status, shutdown);
 * - `initialize`: the handshake;
 * - `control`: answered at once, counted, exempt from the active bound (operation.cancel);
 * - `worker`: the single session worker, `busy` while it runs;
 * - `listing`: runs beside the worker, bounded only by the active limit;
 * - `scan`: like listing, but one at a time (session.discover).
 */
export type Admission = "loop" | "initialize" | "control" | "worker" | "listing" | "scan";

export interface MethodSpec {
  params: z.ZodType;
  result: z.ZodType;
  capability: Capability | null;
  admission: Admission;
  /** Reachable only in test builds (MC_AGENT_TEST_METHODS=1); absent from the schema and docs. */
  testOnly?: boolean;
}

/** The one table of methods: dispatch, capability checks, the JSON Schema and the SDK read it. */
export const METHODS = {
  initialize: {
    params: InitializeParams,
    result: InitializeResult,
    capability: null,
    admission: "initialize",
  },
  status: { params: EmptyParams, result: StatusResult, capability: null, admission: "loop" },
  shutdown: { params: EmptyParams, result: ShutdownResult, capability: null, admission: "loop" },
  "operation.cancel": {
    params: CancelParams,
    result: CancelResult,
    capability: "operation.cancel",
    admission: "control",
  },
  "session.list": {
    params: SessionListParams,
    result: SessionListResult,
    capability: "session.list",
    admission: "listing",
  },
  "session.discover": {
    params: SessionDiscoverParams,
    result: SessionDiscoverResult,
    capability: "session.discover",
    admission: "scan",
  },
  "session.create": {
    params: SessionCreateParams,
    result: SessionCreateResult,
    capability: "session.create",
    admission: "worker",
  },
  "session.open": {
    params: SessionOpenParams,
    result: SessionOpenResult,
    capability: "session.open",
    admission: "worker",
  },
  "session.history": {
    params: SessionHistoryParams,
    result: SessionHistoryResult,
    capability: "session.history",
    admission: "listing",
  },
  "model.catalog": {
    params: ModelCatalogParams,
    result: ModelCatalogResult,
    capability: "model.catalog",
    admission: "listing",
  },
  "model.catalog.status": {
    params: ModelCatalogStatusParams,
    result: ModelCatalogStatusResult,
    capability: "model.catalog.status",
    admission: "listing",
  },
  "model.select": {
    params: ModelSelectParams,
    result: ModelSelectResult,
    capability: "model.select",
    admission: "worker",
  },
  "model.refresh": {
    params: ModelRefreshParams,
    result: ModelRefreshResult,
    capability: "model.refresh",
    admission: "worker",
  },
  "test.sleep": {
    params: TestSleepParams,
    result: TestSleepResult,
    capability: null,
    admission: "listing",
    testOnly: true,
  },
  "test.sleep_worker": {
    params: TestSleepParams,
    result: TestSleepResult,
    capability: null,
    admission: "worker",
    testOnly: true,
  },
} as const satisfies Record<string, MethodSpec>;

export type MethodName = keyof typeof METHODS;
export type ParamsOf<M extends MethodName> = z.infer<(typeof METHODS)[M]["params"]>;
export type ResultOf<M extends MethodName> = z.infer<(typeof METHODS)[M]["result"]>;

export function isMethodName(name: string): name is MethodName {
  return Object.hasOwn(METHODS, name);
}

/** Methods a production child or client may use (test-only ones excluded). */
export const PUBLIC_METHOD_NAMES = (Object.keys(METHODS) as MethodName[]).filter(
  (name) => !(METHODS[name] as MethodSpec).testOnly,
);

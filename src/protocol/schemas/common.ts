import { z } from "zod";
import { ErrorCode } from "../codes.js";
import {
  CURSOR_PATTERN,
  MODEL_ID_PATTERN,
  PROVIDER_ID_PATTERN,
  REQUEST_ID_PATTERN,
  SESSION_ID_PATTERN,
} from "../constants.js";
import { type Infer, lazy } from "../lazy.js";
import { NEXT_STEPS } from "../recovery.js";

export const RequestId = lazy(() => z.string().regex(REQUEST_ID_PATTERN));
export const SessionId = lazy(() => z.string().regex(SESSION_ID_PATTERN));
export const ProviderId = lazy(() => z.string().regex(PROVIDER_ID_PATTERN));
export const ModelId = lazy(() => z.string().regex(MODEL_ID_PATTERN));
export const Cursor = lazy(() => z.string().regex(CURSOR_PATTERN));
export const IsoTime = lazy(() => z.string().min(1).max(64));
export const EFFORT_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;
export const Effort = lazy(() => z.string().regex(EFFORT_PATTERN));

export const EmptyParams = lazy(() => z.strictObject({}));
/**
 * EmptyParams' verdict on a decoded frame's params (always a plain object, envelope.ts), without
 * the parse: it accepts exactly the object with no key. `status`, pipelined by the thousand, is
 * answered with this instead of the schema (test/protocol/empty-params.test.ts holds the two
 * equal).
 */
export function isEmptyParams(params: Record<string, unknown>): boolean {
  for (const key in params) if (Object.hasOwn(params, key)) return false;
  return true;
}
export const CursorParams = lazy(() => z.strictObject({ cursor: Cursor().optional() }));

export const ErrorRecovery = lazy(() => z.enum(NEXT_STEPS));

/** A settings file: MC_HOME's (`global`) or the workspace's (`project`); never a path. */
export const SettingsFile = lazy(() => z.enum(["global", "project"]));

/**
 * `recovery` and `provider` only with `errors.recovery` negotiated, and then only on
 * `model_unavailable` and `authentication_unavailable` (docs/extensions.md).
 */
export const ErrorObject = lazy(() =>
  z.strictObject({
    code: ErrorCode(),
    message: z.string(),
    recovery: ErrorRecovery().optional(),
    provider: ProviderId().nullable().optional(),
  }),
);

export const RequestFrame = lazy(() =>
  z.strictObject({
    id: RequestId(),
    method: z.string(),
    params: z.record(z.string(), z.unknown()),
  }),
);
export const SuccessFrame = lazy(() =>
  z.strictObject({
    id: RequestId(),
    result: z.record(z.string(), z.unknown()),
  }),
);
export const ErrorFrame = lazy(() =>
  z.strictObject({ id: RequestId().nullable(), error: ErrorObject() }),
);
/** Child to client only; a frame without `id` from a client stays `invalid_request`. */
export const NotificationFrame = lazy(() =>
  z.strictObject({
    method: z.string(),
    params: z.record(z.string(), z.unknown()),
  }),
);

export type RequestFrame = Infer<typeof RequestFrame>;
export type ErrorObject = Infer<typeof ErrorObject>;

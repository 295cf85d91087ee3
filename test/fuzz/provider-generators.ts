import fc from "fast-check";

/**
 * Generators of provider answers for refresh fuzzing: model lists that are right, nearly right
 * (unsafe or duplicate IDs, wrong shapes) or garbage, under assorted HTTP statuses, now and then
 * over the 2 MiB body bound. Every body carries a canary that must never reach a frame.
 */
export const BODY_CANARY = "BODY-CANARY-91e4";

export interface ProviderAnswer {
  status: number;
  body: Buffer;
}

const safeId = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,30}$/);
const unsafeId = fc.constantFrom("", "../etc", "a b", "x/".repeat(200), BODY_CANARY, "é");
const modelId = fc.oneof({ weight: 8, arbitrary: safeId }, { weight: 1, arbitrary: unsafeId });

const modelList = fc
  .array(modelId, { maxLength: 30 })
  .map((ids) => ({ object: "list", data: ids.map((id) => ({ id, object: "model" })) }));

const body: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 10, arbitrary: modelList.map((v) => Buffer.from(JSON.stringify(v))) },
  {
    weight: 2,
    arbitrary: fc
      .jsonValue({ maxDepth: 3 })
      .map((v) => Buffer.from(JSON.stringify({ data: v, note: BODY_CANARY }))),
  },
  {
    weight: 2,
    arbitrary: modelList.chain((v) => {
      const text = JSON.stringify(v);
      return fc.nat({ max: text.length }).map((cut) => Buffer.from(text.slice(0, cut)));
    }),
  },
  { weight: 1, arbitrary: fc.constant(Buffer.from(`<html>${BODY_CANARY}</html>`)) },
  { weight: 1, arbitrary: fc.constant(Buffer.alloc(0)) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: -1, max: 1 })
      .map((extra) => oversizedList(2 * 1024 * 1024 + extra)),
  },
);

const status = fc.oneof(
  { weight: 10, arbitrary: fc.constant(200) },
  { weight: 3, arbitrary: fc.constantFrom(401, 403, 404, 429, 500, 502, 503) },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 599 }) },
);

export const providerAnswer: fc.Arbitrary<ProviderAnswer> = fc.record({ status, body });

/** Params for model.refresh: mostly the configured provider, sometimes not. */
export const refreshParams = fc.oneof(
  { weight: 10, arbitrary: fc.constant({ provider: "demo" }) },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.record({ provider: fc.string({ maxLength: 300 }) }),
      fc.constant({ provider: "demo", extra: 1 }),
      fc.constant({}),
      fc.constant({ provider: "nope" }),
    ),
  },
);

/** A valid model list padded to exactly `bytes` bytes. */
function oversizedList(bytes: number): Buffer {
  const head = '{"object":"list","data":[{"id":"demo-1","object":"model"}],"pad":"';
  const tail = '"}';
  return Buffer.from(head + "p".repeat(bytes - head.length - tail.length) + tail);
}

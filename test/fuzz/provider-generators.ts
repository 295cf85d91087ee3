import fc from "fast-check";
import { jwt } from "../../src/conformance/provider-home.js";

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

/** Params that are not a plain configured provider: unknown, malformed, extra fields. */
export const oddRefreshParams: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record({ provider: fc.string({ maxLength: 300 }) }),
  fc.constant({ provider: "demo", extra: 1 }),
  fc.constant({}),
  fc.constant({ provider: "nope" }),
  fc.constant({ provider: "x".repeat(257) }),
);

/** A valid model list padded to exactly `bytes` bytes. */
function oversizedList(bytes: number): Buffer {
  const head = '{"object":"list","data":[{"id":"demo-1","object":"model"}],"pad":"';
  const tail = '"}';
  return Buffer.from(head + "p".repeat(bytes - head.length - tail.length) + tail);
}

/** What Codex's token endpoint answers: renewed tokens, an OAuth error, or garbage. */
const tokenAnswer: fc.Arbitrary<ProviderAnswer> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.tuple(fc.nat({ max: 9999 }), fc.boolean()).map(([n, rotate]) => ({
      status: 200,
      body: Buffer.from(
        JSON.stringify({
          access_token: jwt(Math.floor(Date.now() / 1000) + 3600, `fz-${n}`),
          ...(rotate ? { refresh_token: `rt-${n}` } : {}),
        }),
      ),
    })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom(400, 401),
        fc.constantFrom("refresh_token_reused", "refresh_token_expired", "invalid_grant"),
      )
      .map(([status, error]) => ({ status, body: Buffer.from(JSON.stringify({ error })) })),
  },
  { weight: 1, arbitrary: providerAnswer },
);

const codexModelsAnswer: fc.Arbitrary<ProviderAnswer> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.array(safeId, { maxLength: 20 }).map((slugs) => ({
      status: 200,
      body: Buffer.from(JSON.stringify({ models: slugs.map((slug) => ({ slug })) })),
    })),
  },
  { weight: 1, arbitrary: providerAnswer },
);

/** One refresh to fuzz: of the custom provider, or of Codex with a credential renewal. */
export type RefreshCase =
  | { provider: "demo"; demo: ProviderAnswer }
  | { provider: "codex"; token: ProviderAnswer; codex: ProviderAnswer };

export const refreshCase: fc.Arbitrary<RefreshCase> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ provider: fc.constant("demo" as const), demo: providerAnswer }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      provider: fc.constant("codex" as const),
      token: tokenAnswer,
      codex: codexModelsAnswer,
    }),
  },
);

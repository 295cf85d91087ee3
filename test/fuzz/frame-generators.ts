import fc from "fast-check";
import { CAPABILITIES } from "../../src/protocol/capabilities.js";
import { LIMITS } from "../../src/protocol/constants.js";
import { METHODS } from "../../src/protocol/methods.js";
import { SESSION_ID_POOL } from "./store-generators.js";

/**
 * Generators of inbound lines for the protocol fuzzer: well-formed requests with plausible or
 * random params, mutations of them (bytes dropped, inserted, keys added, IDs broken), random
 * JSON and random bytes, and now and then a frame over the 1 MiB bound. A line never holds an
 * LF, so every generated line is exactly one frame and must get exactly one response.
 *
 * Left out on purpose: `shutdown` (it ends the child; covered by the conformance cases) and
 * `model.refresh` (a deliberate remote effect allowed to write the cache; covered by its own
 * fault cases against loopback servers).
 */
const FUZZED_METHODS = Object.keys(METHODS).filter(
  (m) => m !== "shutdown" && m !== "model.refresh",
);

const idChar = fc.constantFrom(..."abcXYZ019._:-".split(""));
export const validId = fc.string({ unit: idChar, minLength: 1, maxLength: 64 });
const badId = fc.oneof(
  fc.constant(""),
  fc.string({ unit: idChar, minLength: 65, maxLength: 80 }),
  fc.string({ minLength: 1, maxLength: 10 }).map((s) => `${s} /`),
  fc.integer(),
  fc.constant(null),
  fc.constant(["x"]),
);

const anyJson = fc.jsonValue({ maxDepth: 3 });
const anyObject = fc.dictionary(fc.string({ maxLength: 12 }), anyJson, { maxKeys: 4 });
const sessionIdish = fc.oneof(
  fc.constantFrom(...SESSION_ID_POOL),
  fc.constantFrom(...SESSION_ID_POOL),
  fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_-]{0,20}$/),
  fc.constantFrom("s1", "s2", "../s1", "s1.lock", "archive", ""),
  fc.string({ maxLength: 70 }),
);
const cursorish = fc.oneof(
  fc.string({ maxLength: 70 }),
  fc.constantFrom("c1", "0", "x".repeat(64)),
);

/** Params that are right, nearly right, or plainly wrong for the method. */
function paramsFor(method: string): fc.Arbitrary<unknown> {
  const plausible: Record<string, fc.Arbitrary<unknown>> = {
    initialize: fc.record({
      protocol_version: fc.oneof(fc.constant(1), fc.integer({ min: -2, max: 3 })),
      client: fc.oneof(
        fc.constant({ name: "fuzz", version: "1" }),
        anyObject,
        fc.record({ name: fc.string({ maxLength: 300 }), version: fc.string({ maxLength: 5 }) }),
      ),
      required_capabilities: fc.oneof(
        fc.subarray([...CAPABILITIES]),
        fc.array(fc.oneof(fc.constantFrom(...CAPABILITIES), fc.string({ maxLength: 20 })), {
          maxLength: 12,
        }),
      ),
    }),
    "operation.cancel": fc.record({ request_id: fc.oneof(validId, badId) }),
    "test.sleep": fc.record(
      { ms: fc.integer({ min: -1, max: 5 }), stubborn: fc.boolean(), worker: fc.boolean() },
      { requiredKeys: ["ms"] },
    ),
    "session.list": fc.record({ cursor: cursorish }, { requiredKeys: [] }),
    "session.discover": fc.record({ cursor: cursorish }, { requiredKeys: [] }),
    "session.open": fc.record({ id: sessionIdish }),
    "session.history": fc.record({ id: sessionIdish, cursor: cursorish }, { requiredKeys: ["id"] }),
    "model.catalog": fc.record({ cursor: cursorish }, { requiredKeys: [] }),
    "model.catalog.status": fc.record({ cursor: cursorish }, { requiredKeys: [] }),
    "model.select": fc.record({
      model: fc.oneof(fc.constantFrom("demo/demo-1", "openai/gpt-x", "nope"), fc.string()),
      effort: fc.oneof(fc.constant(null), fc.constantFrom("low", "medium", "high", "MAX")),
      catalog_revision: fc.string({ maxLength: 70 }),
    }),
  };
  return fc.oneof(
    {
      weight: 8,
      arbitrary: Object.hasOwn(plausible, method)
        ? (plausible[method] as fc.Arbitrary<unknown>)
        : fc.constant({}),
    },
    { weight: 1, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: anyObject },
    { weight: 1, arbitrary: anyJson },
  );
}

const method = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...FUZZED_METHODS) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 1, arbitrary: fc.constantFrom("Status", "session.", "model.catalog.", "__proto__") },
);

export const request = method.chain((name) =>
  fc.record({ id: validId, method: fc.constant(name), params: paramsFor(name) }),
);

/** A request with one envelope rule broken: a key missing or extra, a bad ID, wrong types. */
const brokenEnvelope = fc
  .tuple(request, fc.integer({ min: 0, max: 5 }), badId, anyJson)
  .map(([req, kind, id, junk]) => {
    const frame: Record<string, unknown> = { ...req };
    if (kind === 0) delete frame.params;
    if (kind === 1) delete frame.method;
    if (kind === 2) frame.id = id;
    if (kind === 3) frame.extra = junk;
    if (kind === 4) frame.method = junk;
    if (kind === 5) frame.params = Array.isArray(junk) ? junk : [junk];
    return JSON.stringify(frame);
  });

/** Text-level mutation of a valid request: characters dropped, inserted or truncated. */
const mutatedText = fc
  .tuple(request, fc.nat(), fc.nat({ max: 6 }), fc.string({ maxLength: 6 }))
  .map(([req, at, drop, insert]) => {
    const text = JSON.stringify(req);
    const p = at % (text.length + 1);
    return text.slice(0, p) + insert + text.slice(p + drop);
  });

const noLf = (s: string) => s.replaceAll("\n", " ");

/** One inbound line as bytes, without its LF. */
export const line: fc.Arbitrary<Uint8Array> = fc.oneof(
  { weight: 200, arbitrary: request.map((r) => JSON.stringify(r)).map(encode) },
  { weight: 60, arbitrary: brokenEnvelope.map(noLf).map(encode) },
  { weight: 60, arbitrary: mutatedText.map(noLf).map(encode) },
  {
    weight: 20,
    arbitrary: anyJson
      .map((v) => JSON.stringify(v))
      .map(noLf)
      .map(encode),
  },
  { weight: 20, arbitrary: fc.string({ maxLength: 40 }).map(noLf).map(encode) },
  { weight: 10, arbitrary: fc.string({ unit: "binary", maxLength: 20 }).map(noLf).map(encode) },
  {
    weight: 20,
    arbitrary: fc.uint8Array({ maxLength: 40 }).map((b) => b.map((x) => (x === 10 ? 32 : x))),
  },
  { weight: 20, arbitrary: fc.constantFrom("", " ", "{}", "[]", "null", "\r").map(encode) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(validId, fc.integer({ min: -1, max: 2 }))
      .map(([id, extra]) => oversized(id, extra)),
  },
);

/** A batch of lines sent in one write. */
export const batch = fc.array(line, { minLength: 1, maxLength: 4 });

/** A status frame padded to exactly the bound plus `extra` bytes. */
function oversized(id: string, extra: number): Uint8Array {
  const head = `{"id":"${id}","method":"status","params":{},"pad":"`;
  const tail = `"}`;
  const pad = LIMITS.frame_bytes + extra - head.length - tail.length;
  return encode(head + "x".repeat(pad) + tail);
}

function encode(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

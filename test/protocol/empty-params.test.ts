import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { decodeFrame } from "../../src/protocol/envelope.js";
import { METHODS } from "../../src/protocol/methods.js";
import { isEmptyParams } from "../../src/protocol/schemas/common.js";

/**
 * The dispatcher answers `status` and `shutdown` (the loop methods) with `isEmptyParams` instead
 * of their params schema: the two must give the same verdict on every params a frame can carry.
 */
describe("isEmptyParams agrees with the loop methods' params schemas", () => {
  const paramsOf = (text: string) => {
    const decoded = decodeFrame(
      new TextEncoder().encode(`{"id":"a","method":"status","params":${text}}`),
    );
    assert.ok(decoded.ok, text);
    return decoded.request.params;
  };
  for (const text of [
    "{}",
    '{"a":1}',
    '{"__proto__":{}}',
    '{"constructor":null}',
    '{"":0}',
    '{"a":1,"b":2}',
    '{"toString":"x"}',
  ]) {
    test(`params ${text}`, () => {
      const params = paramsOf(text);
      for (const method of ["status", "shutdown"] as const) {
        assert.equal(
          isEmptyParams(params),
          METHODS[method].params.safeParse(params).success,
          `${method} ${text}`,
        );
      }
    });
  }
});

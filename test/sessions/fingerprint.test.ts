import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { FingerprintKey } from "../../src/sessions/history/fingerprint.js";

/** The fingerprint of `bytes` under `key`, fed in pieces cut at `cuts`. */
function fingerprintOf(key: FingerprintKey, bytes: Buffer, cuts: number[] = []): Buffer {
  const fingerprint = key.start();
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    fingerprint.update(bytes.subarray(at, cut));
    at = cut;
  }
  return fingerprint.finish();
}

describe("the history memo's keyed fingerprint", () => {
  const bytes = randomBytes(200_003);

  it("is the same for the same bytes, however they are cut into reads", () => {
    const key = new FingerprintKey();
    const whole = fingerprintOf(key, bytes);
    assert.equal(whole.length, 16);
    assert.deepEqual(fingerprintOf(key, bytes, [1, 15, 16, 17, 65_536, 65_536, 131_071]), whole);
    assert.deepEqual(fingerprintOf(key, Buffer.from(bytes)), whole);
  });

  it("differs for one flipped bit anywhere, one byte more or less, and empty", () => {
    const key = new FingerprintKey();
    const whole = fingerprintOf(key, bytes);
    for (const at of [0, 15, 16, 100_000, bytes.length - 1]) {
      const flipped = Buffer.from(bytes);
      flipped[at] = (flipped[at] as number) ^ 1;
      assert.notDeepEqual(fingerprintOf(key, flipped), whole, `bit flipped at ${at}`);
    }
    assert.notDeepEqual(fingerprintOf(key, bytes.subarray(0, -1)), whole);
    assert.notDeepEqual(fingerprintOf(key, Buffer.concat([bytes, Buffer.of(0)])), whole);
    // Trailing zeros are bytes too (GHASH pads to blocks; the length block tells them apart).
    const zeros = Buffer.alloc(16);
    assert.notDeepEqual(fingerprintOf(key, zeros.subarray(0, 15)), fingerprintOf(key, zeros));
    assert.notDeepEqual(fingerprintOf(key, Buffer.alloc(0)), fingerprintOf(key, zeros));
  });

  it("depends on the key: another memo's key gives another fingerprint of the same bytes", () => {
    assert.notDeepEqual(
      fingerprintOf(new FingerprintKey(), bytes),
      fingerprintOf(new FingerprintKey(), bytes),
    );
  });
});

import assert from "node:assert/strict";
import { test } from "node:test";
import { getHeapStatistics } from "node:v8";
import { watchBufferGarbage } from "../../src/boot/buffer-garbage.js";

const MIB = 1_048_576;
const SLACK = 8 * MIB;

/** Resolves once `done()` holds, looking every 10 ms; rejects after `ms` (a loaded machine). */
async function until(done: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** `bytes` of external memory, held until the array is dropped (written, so it is committed). */
function external(bytes: number): Buffer[] {
  const held: Buffer[] = [];
  for (let i = 0; i < bytes / MIB; i++) held.push(Buffer.alloc(MIB, i));
  return held;
}

test("external memory past the slack brings one collection; the same memory still held brings no second", async () => {
  let collections = 0;
  const stop = watchBufferGarbage(() => {
    collections += 1;
  }, SLACK);
  try {
    const held = external(SLACK + 4 * MIB);
    await until(() => collections === 1);
    // Held, not garbage: the floor rose with it, so the next looks find nothing to collect.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(collections, 1, "live buffers did not bring collections one after another");
    assert.ok(held.length > 0);
  } finally {
    stop();
  }
});

test("growth under the slack brings none; growth past it again brings the next", async () => {
  let collections = 0;
  const stop = watchBufferGarbage(() => {
    collections += 1;
  }, SLACK);
  try {
    const some = external(SLACK / 2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(collections, 0, `${some.length} MiB is under the slack`);
    const more = external(SLACK);
    await until(() => collections === 1);
    assert.ok(more.length > 0);
  } finally {
    stop();
  }
});

test("stopped, it collects nothing", async () => {
  let collections = 0;
  const stop = watchBufferGarbage(() => {
    collections += 1;
  }, SLACK);
  stop();
  const held = external(SLACK * 2);
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(collections, 0);
  assert.ok(held.length > 0 && getHeapStatistics().external_memory > SLACK);
});

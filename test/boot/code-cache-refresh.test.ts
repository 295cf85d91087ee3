import assert from "node:assert/strict";
import { test } from "node:test";
import { REFRESH_HOOK, type RefreshHook, StartReach } from "../../src/boot/code-cache-hook.js";
import { refreshCodeCacheAfterStart } from "../../src/boot/code-cache-refresh.js";

/** Polls until `done` holds (the refresh's timers are unref'd: this keeps the test alive). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 20));
}

test("the code cache refresh waits while the child is busy, then runs once", async () => {
  const global = globalThis as { [REFRESH_HOOK]?: RefreshHook };
  let refreshed = 0;
  let checks = 0;
  let busy = true;
  global[REFRESH_HOOK] = (reach) => {
    assert.equal(reach, StartReach.served);
    refreshed += 1;
  };
  refreshCodeCacheAfterStart({}, () => {
    checks += 1;
    return busy;
  });
  // The hook is taken at once: a second call finds nothing to refresh.
  assert.equal(global[REFRESH_HOOK], undefined);
  // Busy at its time and at two later looks: not made in the middle of the work.
  await until(() => checks >= 3 || refreshed > 0);
  assert.equal(refreshed, 0);
  busy = false;
  await until(() => refreshed === 1);
  const seen = checks;
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(refreshed, 1);
  assert.equal(checks, seen, "no look after the refresh ran");
});

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { collectBetweenSteps } from "../../src/boot/heap-flags.js";

const tick = () => new Promise((resolve) => setImmediate(resolve));

test("collectBetweenSteps runs a real full collection: an unreachable object is gone after it", async () => {
  let ref: WeakRef<object> | null = null;
  (() => {
    ref = new WeakRef({ payload: "x".repeat(1_000_000) });
  })();
  // A WeakRef's target lives at least until the end of the job that made it.
  await tick();
  assert.notEqual(ref, null);
  collectBetweenSteps();
  await tick();
  assert.equal((ref as unknown as WeakRef<object>).deref(), undefined);
});

test("the process's own global scope gets no gc function from it", () => {
  const script = `import("${new URL("../../src/boot/heap-flags.js", import.meta.url).href}").then((m) => { m.collectBetweenSteps(); console.log(typeof globalThis.gc); })`;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
  });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), "undefined");
});

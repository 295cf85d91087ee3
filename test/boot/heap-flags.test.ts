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

/**
 * readingWhole (issue 44, "Opening a big history"), in a process of its own (V8's flags are the
 * process's): with the child's flags, a history-like parse's garbage leaves the young generation
 * small; inside readingWhole the same garbage grows it to WHOLE_READ_YOUNG_BYTES, not to V8's
 * own 32 MiB; once the read ends it is held there again. The parse yields every couple of
 * milliseconds, as a history scan does (slicer.ts).
 */
test("readingWhole lets the young generation grow to its bound while a whole read runs, then holds it", () => {
  const flags = new URL("../../src/boot/heap-flags.js", import.meta.url).href;
  const script = `
    const m = await import(${JSON.stringify(flags)});
    const line = JSON.stringify({ type: "assistant_message", ts: "2026-01-01T00:00:00.000Z", text: "x".repeat(300), items: [1, 2, 3] });
    // Records parsed and kept a while (a replay's pending records), as a history's open does.
    async function parse(records) {
      const ring = new Array(5000);
      let slice = performance.now();
      for (let i = 0; i < records; i += 1) {
        ring[i % ring.length] = JSON.parse(line);
        if (i % 256 === 0 && performance.now() - slice >= 2) {
          await new Promise((resolve) => setImmediate(resolve));
          slice = performance.now();
        }
      }
    }
    m.tuneHeapForChild();
    await parse(300000);
    const held = m.youngBytes();
    await m.readingWhole(() => parse(600000));
    const grown = m.youngBytes();
    await parse(600000);
    const after = m.youngBytes();
    console.log(JSON.stringify({ held, grown, after, bound: m.WHOLE_READ_YOUNG_BYTES }));
  `;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
  });
  assert.equal(run.status, 0, run.stderr);
  const { held, grown, after, bound } = JSON.parse(run.stdout) as {
    held: number;
    grown: number;
    after: number;
    bound: number;
  };
  assert.ok(held < bound, `held at ${held} bytes outside a whole read`);
  // Grown to the bound and stopped there (V8 doubles it: the next step would be 2 × bound).
  assert.ok(grown >= bound && grown < 2 * bound, `grown to ${grown} bytes inside it`);
  assert.equal(after, grown, `${after} bytes after it`);
});

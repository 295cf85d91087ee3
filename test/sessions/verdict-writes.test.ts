import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { setTimeout as sleep, setImmediate as turn } from "node:timers/promises";
import { SessionDiscoverResult } from "../../src/protocol/schemas/sessions.js";
import { discoveryHandler } from "../../src/server/handlers/discovery.js";
import { createState } from "../../src/server/state.js";
import { buildSnapshot } from "../../src/sessions/listing/list.js";
import { Slicer } from "../../src/sessions/slicer.js";
import { VerdictCache, type VerdictOptions } from "../../src/sessions/verdicts/verdict-cache.js";
import { verdictPlace } from "../../src/sessions/verdicts/verdict-root.js";
import { StoreBuilder } from "../fixtures/store-builder.js";
import { type Sandbox, sandbox } from "../helpers/child.js";
import { discoverAll, inSandbox, startSessions } from "../helpers/sessions.js";

/**
 * A first listing's verdict writes wait until the listing has read (sessions/verdicts/verdict-writer.ts):
 * a file's creation is kernel work on a thread-pool thread, and four of them at once beside the
 * scan took the cores of a 2-core machine from the scan and from the frontend's `status`
 * (docs/benchmarks.md, "Discovery against older builds"). Driven in-process, so that what runs
 * between two steps is known exactly: the listing's handler on a real store and a real cache
 * folder, and, between the steps, the thread pool given every chance to run queued writes (a
 * hundred round trips of its own). No clock is asserted: the writer's quiet delay is set far
 * out of reach, so only a hold, a completion or a waiter can start a write.
 */
const COUNT = 250;
const NEVER_MS = 600_000;

function options(quietMs = NEVER_MS): VerdictOptions {
  return { enabled: true, marginNs: 0n, sync: false, minBytes: 0n, quietMs };
}

/** A store of COUNT small histories (a few steps of 100 rows) and its cache. */
async function storeWithCache(box: Sandbox, quietMs?: number) {
  const store = new StoreBuilder(box.home, box.workspace, 31);
  for (let i = 0; i < COUNT; i += 1) store.sized(`h${i}`, 2048, 512);
  // The ctime margin is 0, against a clock of whole milliseconds: past the histories' ctimes.
  await sleep(5);
  return cacheIn(box, "user-cache", quietMs);
}

/** A verdict cache of the sandbox's home, rooted at `root` in the sandbox. */
function cacheIn(box: Sandbox, root: string, quietMs?: number) {
  const env = { MC_AGENT_CACHE_DIR: join(box.root, root) };
  const cache = new VerdictCache(box.home, env, options(quietMs));
  const folder = verdictPlace(env, box.home)?.folder as string;
  return { cache, folder };
}

function verdictFiles(folder: string): string[] {
  return existsSync(folder) ? readdirSync(folder).filter((name) => name.endsWith(".json")) : [];
}

/** Gives queued pool work every chance to run: round trips through the pool and the loop. */
async function drainPool(box: Sandbox): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    await stat(box.root);
    await turn();
  }
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 3000 && !check(); i += 1) await sleep(10);
  assert.ok(check(), what);
}

describe("verdict writes wait for the listing", () => {
  it("session.discover: no verdict is written between steps; every one once the listing completes", async () => {
    const box = sandbox();
    try {
      const { cache, folder } = await storeWithCache(box);
      const state = createState(box.workspace, box.home, {});
      const handler = discoveryHandler(state, { verdicts: cache });
      const signal = new AbortController().signal;
      const ctx = {
        id: "r",
        signal,
        state,
        commit: (effect: () => unknown) => effect(),
        notify: () => Promise.reject(new Error("discovery notified")),
      };
      let cursor: string | null | undefined;
      let steps = 0;
      let rows = 0;
      do {
        const page = SessionDiscoverResult().parse(
          await handler(cursor ? { cursor } : {}, ctx as Parameters<typeof handler>[1]),
        );
        steps += 1;
        rows += page.sessions.length;
        cursor = page.cursor;
        if (cursor === null) break;
        await drainPool(box);
        assert.equal(cache.writer.written, 0, `after step ${steps}: nothing written yet`);
        assert.deepEqual(verdictFiles(folder), [], `after step ${steps}: no verdict file`);
      } while (cursor !== null);
      assert.ok(steps >= 3, `the listing took several steps: ${steps}`);
      assert.equal(rows, COUNT);
      await until(() => cache.writer.written === COUNT, "every verdict written once complete");
      assert.equal(verdictFiles(folder).length, COUNT);
    } finally {
      box.cleanup();
    }
  });

  it("session.list: nothing written while it reads; every verdict after", async () => {
    const box = sandbox();
    try {
      const { cache, folder } = await storeWithCache(box);
      let done = false;
      let watched = 0;
      const listing = buildSnapshot(
        box.home,
        box.workspace,
        new Slicer(new AbortController().signal),
        cache,
      ).finally(() => {
        done = true;
      });
      while (!done) {
        await stat(box.root);
        await turn();
        if (!done) {
          watched += 1;
          assert.equal(cache.writer.written, 0, "nothing written while the listing reads");
        }
      }
      const snapshot = await listing;
      assert.equal(snapshot.entries.length, COUNT);
      assert.ok(watched > 0, "the listing yielded while it read");
      await until(() => cache.writer.written === COUNT, "every verdict written after the listing");
      assert.equal(verdictFiles(folder).length, COUNT);
    } finally {
      box.cleanup();
    }
  });

  it("a listing left unfinished is written after the quiet delay; a waiter gets its writes at once", async () => {
    const box = sandbox();
    try {
      const { cache, folder } = await storeWithCache(box, 0);
      const state = createState(box.workspace, box.home, {});
      const handler = discoveryHandler(state, { verdicts: cache });
      const ctx = {
        id: "r",
        signal: new AbortController().signal,
        state,
        commit: (effect: () => unknown) => effect(),
        notify: () => Promise.reject(new Error("discovery notified")),
      };
      const first = SessionDiscoverResult().parse(
        await handler({}, ctx as Parameters<typeof handler>[1]),
      );
      assert.ok(first.cursor, "one step of several, never followed");
      await until(() => cache.writer.written === first.sessions.length, "written after the delay");
      assert.equal(verdictFiles(folder).length, first.sessions.length);

      // Held (a step reading) and a waiter: the waiter's writes run.
      const { cache: held, folder: heldFolder } = cacheIn(box, "second-cache");
      const release = held.writer.hold();
      const snapshot = await buildSnapshot(
        box.home,
        box.workspace,
        new Slicer(new AbortController().signal),
        held,
      );
      await drainPool(box);
      assert.equal(held.writer.written, 0, "still held by the outer step");
      await held.writer.idle();
      assert.equal(held.writer.written, snapshot.entries.length);
      assert.equal(verdictFiles(heldFolder).length, snapshot.entries.length);
      release();
    } finally {
      box.cleanup();
    }
  });

  it("at shutdown the queue is dropped and nothing more is written (the exit waits for none)", async () => {
    const box = sandbox();
    try {
      const { cache, folder } = await storeWithCache(box);
      const release = cache.writer.hold();
      const snapshot = await buildSnapshot(
        box.home,
        box.workspace,
        new Slicer(new AbortController().signal),
        cache,
      );
      assert.equal(snapshot.entries.length, COUNT);
      release();
      await cache.writer.stop();
      await drainPool(box);
      assert.equal(cache.writer.written, 0, "the queued verdicts were dropped");
      assert.deepEqual(verdictFiles(folder), []);
      // Nothing queued after the stop either, even by a completed listing.
      await buildSnapshot(box.home, box.workspace, new Slicer(new AbortController().signal), cache);
      await cache.writer.idle();
      assert.equal(cache.writer.written, 0);
    } finally {
      box.cleanup();
    }
  });

  it("a child shut down right after its first listing exits 0 (no write holds its exit)", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 32);
      for (let i = 0; i < 600; i += 1) store.sized(`h${i}`, 9000, 1000);
      const env = {
        MC_AGENT_CACHE_DIR: join(box.root, "user-cache"),
        MC_AGENT_TEST_VERDICT_MARGIN_MS: "0",
      };
      const child = await startSessions(box, { testMethods: true, env });
      children.push(child);
      const found = await discoverAll(child);
      assert.equal(found.error, null);
      assert.equal(found.ids.length, 600);
      const exit = await child.close();
      assert.deepEqual(exit, { code: 0, signal: null }, child.stderr);
      assert.doesNotMatch(child.stderr, /stuck/);
    }));
});

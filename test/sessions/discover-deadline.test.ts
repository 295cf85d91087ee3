import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DISCOVER_EXTENSION } from "../../src/protocol/constants.js";
import { SessionDiscoverResult } from "../../src/protocol/schemas/sessions.js";
import { discoveryHandler } from "../../src/server/handlers/discovery.js";
import { createState, type ServerState } from "../../src/server/state.js";
import type { Clock } from "../../src/sessions/slicer.js";
import { StoreBuilder } from "../fixtures/store-builder.js";
import { sandbox } from "../helpers/child.js";

/** Discovery never notifies; a call would be a bug. */
const noNotify = () => Promise.reject(new Error("discovery notified"));

const MiB = 1024 * 1024;

/**
 * The `deadline` bound (`step_ms`, 2,000 ms) cannot be reached honestly by a fast test on real
 * time, so the discovery handler is driven in-process with a virtual clock that advances a
 * fixed amount at every reading. Everything else is the production path: the real store
 * reader over a real temp folder, the real cursor store, the real step driver.
 */
const TICK_MS = 100;

function virtualClock(): Clock {
  let now = 0;
  return () => {
    now += TICK_MS;
    return now;
  };
}

async function followAll(
  state: ServerState,
  clock?: Clock,
): Promise<{ pages: SessionDiscoverResult[]; ids: string[] }> {
  const handler = discoveryHandler(state, clock ? { clock } : {});
  const signal = new AbortController().signal;
  const pages: SessionDiscoverResult[] = [];
  let cursor: string | null | undefined;
  do {
    const params = cursor ? { cursor } : {};
    const page = SessionDiscoverResult().parse(
      await handler(params, {
        id: "r",
        signal,
        state,
        commit: (effect) => effect(),
        notify: noNotify,
      }),
    );
    pages.push(page);
    cursor = page.cursor;
  } while (cursor !== null);
  return { pages, ids: pages.flatMap((page) => page.sessions.map((entry) => entry.id)) };
}

describe("session.discover deadline", () => {
  it("a step that reaches step_ms yields deadline with a cursor that resumes the scan exactly", async () => {
    const box = sandbox();
    try {
      const store = new StoreBuilder(box.home, box.workspace, 23);
      for (let i = 0; i < 3; i += 1) store.chat(`c${i}`, { records: 3 });
      // 2 MiB: the slicer reads the clock every 32 KiB, so one step of 2,000 virtual ms reads
      // at most 20 x 32 KiB of it and the history must span several steps.
      store.sized("big", 2 * MiB, 1000);
      const state = createState(box.workspace, box.home, {});

      const timed = await followAll(state, virtualClock());
      const first = timed.pages[0] as SessionDiscoverResult;
      assert.equal(first.progress, "deadline");
      assert.equal(first.complete, false);
      assert.equal(first.recovery, "continue_cursor");
      assert.ok(first.cursor);
      const deadlines = timed.pages.filter((page) => page.progress === "deadline").length;
      assert.ok(deadlines >= 3, `the 2 MiB history spans steps: ${deadlines} deadline steps`);
      const last = timed.pages.at(-1) as SessionDiscoverResult;
      assert.equal(last.complete, true);
      assert.equal(last.progress, "complete");

      // Resuming after each deadline neither skips nor repeats work: same entries, same
      // summaries (first and last timestamps of the history read across steps) as a scan on
      // the real clock, which never comes near 2,000 ms on this store.
      const real = await followAll(state);
      assert.ok(real.pages.every((page) => page.progress !== "deadline"));
      const entries = (run: { pages: SessionDiscoverResult[] }) =>
        run.pages.flatMap((page) => page.sessions).sort((a, b) => a.id.localeCompare(b.id));
      assert.deepEqual(entries(timed), entries(real));
      assert.deepEqual([...timed.ids].sort(), ["big", "c0", "c1", "c2"]);
    } finally {
      box.cleanup();
    }
  });

  it("the deadline falls at step_ms exactly: 1 ms short of it the step runs on", async () => {
    const box = sandbox();
    try {
      const store = new StoreBuilder(box.home, box.workspace, 24);
      for (let i = 0; i < 3; i += 1) store.chat(`c${i}`, { records: 3 });
      const state = createState(box.workspace, box.home, {});
      const signal = new AbortController().signal;
      // The step's first reading starts its budget; every later reading is `elapsed` later.
      const firstStep = async (elapsed: number) => {
        let readings = 0;
        const clock: Clock = () => (readings++ === 0 ? 0 : elapsed);
        const handler = discoveryHandler(state, { clock });
        return SessionDiscoverResult().parse(
          await handler(
            {},
            { id: "r", signal, state, commit: (effect) => effect(), notify: noNotify },
          ),
        );
      };
      const short = await firstStep(DISCOVER_EXTENSION.step_ms - 1);
      assert.equal(short.progress, "complete");
      assert.equal(short.sessions.length, 3);
      const reached = await firstStep(DISCOVER_EXTENSION.step_ms);
      assert.equal(reached.progress, "deadline");
      assert.deepEqual(reached.sessions, []);
      assert.ok(reached.cursor);
    } finally {
      box.cleanup();
    }
  });
});

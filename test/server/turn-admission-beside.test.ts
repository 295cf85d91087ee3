import assert from "node:assert/strict";
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createModelServices } from "../../src/server/handlers/model-services.js";
import { admitTurn } from "../../src/server/handlers/turn-admission.js";
import { createState } from "../../src/server/state.js";
import { HistoryMemo } from "../../src/sessions/history/admission-memo.js";
import { sandbox } from "../helpers/child.js";
import { FileReadWatch } from "../helpers/file-read-watch.js";
import { cacheDoc, demoConfig, writeCache, writeConfig } from "../models/fixtures.js";

/**
 * Issue 44: the part of a turn's admission that grows with the session is the history's check
 * (each pass reads and fingerprints every byte); the catalog's snapshot before it is a chain of
 * small file reads, mostly waiting. The check before the lock now runs beside the snapshot, in
 * short slices, its verdict taken in the refusals' order (turn-admission.ts). Counted on the
 * real history's reads; the catalog is the real one, its `fresh` wrapped to wait for them.
 */
const USAGE = { input_tokens: 1, output_tokens: 2, cached_input_tokens: 0, reasoning_tokens: 0 };

function writeHistory(path: string, id: string, cwd: string, turns: number): void {
  const ts = "2026-01-01T00:00:00.000Z";
  const lines: object[] = [{ type: "session_meta", ts, cwd, id }];
  for (let n = 0; n < turns; n++) {
    const at = { ts, cwd, turn_id: `t-${n}` };
    lines.push(
      { type: "turn_start", ...at, model: "demo/demo-1", effort: null, permissions: "ask" },
      { type: "user_message", ...at, text: `question ${n}` },
      { type: "assistant_message", ...at, text: `answer ${n}`, model: "demo/demo-1" },
      { type: "turn_end", ...at, status: "completed", stop_reason: "end_turn", usage: USAGE },
    );
  }
  writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("turn admission: the history's check before the lock runs beside the catalog", () => {
  const box = sandbox("mc-admission-beside-");
  const small = { id: "s-small", path: join(box.home, "sessions", "s-small.jsonl") };
  const big = { id: "s-big", path: join(box.home, "sessions", "s-big.jsonl") };
  before(() => {
    const identity = { type: "openai-compatible", base_url: "http://127.0.0.1:9/v1" };
    writeConfig(box, demoConfig(identity.base_url, { model: "demo/demo-1" }));
    writeCache(box, "demo", cacheDoc("demo", identity, [{ id: "demo-1" }]));
    mkdirSync(join(box.home, "sessions"), { mode: 0o700 });
    writeHistory(small.path, small.id, box.workspace, 300);
    // Large enough that its first full parse takes many slices.
    writeHistory(big.path, big.id, box.workspace, 20_000);
  });
  after(() => box.cleanup());

  /**
   * The state and services of an admission of `session`, the history's reads counted, and the
   * catalog's snapshot held back until the history was read (at most about two seconds).
   */
  function world(session: { id: string; path: string }) {
    const state = createState(box.workspace, box.home, { DEMO_KEY: "sk-test" });
    const services = createModelServices(state);
    state.attachment = { session_id: session.id, saved: true };
    const seen = { reads: 0, bytes: 0, readsWhileSnapshotPending: 0 };
    const watch = new FileReadWatch(session.path, ({ got }) => {
      seen.reads += 1;
      seen.bytes += got;
    });
    const fresh = services.catalog.fresh.bind(services.catalog);
    services.catalog.fresh = async () => {
      for (let waited = 0; waited < 400 && seen.reads === 0; waited++) await pause(5);
      seen.readsWhileSnapshotPending = seen.reads;
      return fresh();
    };
    return { state, services, seen, watch };
  }

  it("reads the history while the snapshot is pending, and admits as before", async () => {
    const { state, services, seen, watch } = world(small);
    watch.install();
    try {
      const admitted = await admitTurn(
        state,
        services,
        new AbortController().signal,
        new HistoryMemo(),
      );
      await admitted.writer.close();
      // Before: the check began only once the snapshot (and the credential, and the lock's
      // liveness) had been read, so no history byte was read while the snapshot was pending.
      assert.ok(seen.readsWhileSnapshotPending > 0, "the check ran beside the snapshot");
      assert.equal(seen.bytes, 2 * statSync(small.path).size, "both passes read every byte");
      assert.equal(admitted.history.filter((item) => item.kind === "user").length, 300);
    } finally {
      watch.uninstall();
    }
  });

  it("`onLocked` starts once the lock is held, before the pass under it", async () => {
    const { state, services, seen, watch } = world(small);
    const size = statSync(small.path).size;
    const lock = join(box.home, "sessions", `${small.id}.lock`);
    const at: { bytes: number; locked: boolean }[] = [];
    const onLocked = () => at.push({ bytes: seen.bytes, locked: existsSync(lock) });
    watch.install();
    try {
      const signal = new AbortController().signal;
      const admitted = await admitTurn(
        state,
        services,
        signal,
        new HistoryMemo(),
        {},
        {
          images: false,
          onLocked,
        },
      );
      await admitted.writer.close();
      // Once: after the check before the lock read every byte, with the lock held.
      assert.deepEqual(at, [{ bytes: size, locked: true }]);
      assert.equal(seen.bytes, 2 * size, "the pass under the lock came after it");
    } finally {
      watch.uninstall();
    }
  });

  it("a refusal of the catalog's stops the check: it reads no further after the answer", async () => {
    const { state, services, seen, watch } = world(big);
    state.selection = { model: "demo/not-enabled", effort: null };
    watch.install();
    try {
      await assert.rejects(
        admitTurn(state, services, new AbortController().signal, new HistoryMemo()),
        (error: { code?: string }) => error.code === "model_unavailable",
      );
      // Until the reads have stopped (none for a while): a check left running would read on to
      // the end of the file, its every byte.
      let last = -1;
      while (last !== seen.reads) {
        last = seen.reads;
        await pause(50);
      }
      assert.ok(seen.reads > 0, "the check had begun beside the snapshot");
      const size = statSync(big.path).size;
      assert.ok(seen.bytes < size, `it read ${seen.bytes} of ${size} bytes after the refusal`);
    } finally {
      watch.uninstall();
    }
  });
});

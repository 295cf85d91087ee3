import assert from "node:assert/strict";
import type { ConformanceCase } from "../case.js";
import { within } from "../expect.js";
import type { Frame } from "../frame.js";
import type { Sandbox, TestChild } from "../harness.js";
import {
  discoverAll,
  SESSION_CAPABILITIES,
  writeHistoryOfSize,
  writeSmallHistory,
} from "../session-store.js";
import { readyOrSkip } from "../skip.js";

/**
 * Cancelling session.discover at every kind of step it takes (directory, record, byte,
 * page and validation work): the step ends with exactly one terminal response, an acknowledged
 * cancel ends in operation_cancelled, the cancelled scan is gone, and a fresh scan still finds
 * exactly what an uninterrupted one found.
 */
interface Page {
  cursor: string | null;
  progress: string;
}

/**
 * Advances a fresh scan until a step that stopped with `kind`; returns its cursor, or null when
 * this scan completed without one. A backend may legitimately take other steps on a later scan
 * of the same store (a cache of verdicts, for one, skips the reading a first scan did).
 */
async function advanceTo(child: TestChild, kind: string): Promise<string | null> {
  let cursor: string | undefined;
  for (let i = 0; i < 10_000; i += 1) {
    const frame = await child.request("session.discover", cursor ? { cursor } : {});
    assert.ok(frame.result, `step ${i}: ${JSON.stringify(frame.error)}`);
    const page = frame.result as unknown as Page;
    if (page.cursor === null) return null;
    cursor = page.cursor;
    if (page.progress === kind) return cursor;
  }
  throw new Error("the scan did not end");
}

/** Advances a fresh scan by `steps` requests; returns the last cursor. */
async function advance(child: TestChild, steps: number): Promise<string> {
  let cursor: string | null = null;
  for (let i = 0; i < steps; i += 1) {
    const frame = await child.request("session.discover", cursor ? { cursor } : {});
    assert.ok(frame.result, `step ${i}: ${JSON.stringify(frame.error)}`);
    cursor = (frame.result as unknown as Page).cursor;
    assert.ok(cursor, `step ${i} ended the scan early`);
  }
  return cursor as string;
}

/** A store whose scan takes several steps: 300 small histories and one of 9 MiB. */
function multiStepStore(ctx: { box: Sandbox }): void {
  for (let i = 0; i < 300; i += 1) writeSmallHistory(ctx.box, `small${i}`);
  writeHistoryOfSize(ctx.box, "bytes", 9 * 1024 * 1024, 1024);
}

/** The ID of the last request sent (the step just sent). */
function lastRequestId(child: TestChild): string {
  const last = child.sent.at(-1);
  assert.ok(last, "a request was sent");
  return last.id;
}

export const CANCEL_DISCOVER_CASES: ConformanceCase[] = [
  {
    id: "cancel.discover.each_step_kind",
    tier: "MUST",
    clause:
      "extensions §Incremental session discovery: Cancellation/error abandons scan; restart explicitly. extensions §Operation cancellation: Acknowledgement is not completion or rollback.",
    title: "cancel during each kind of discover step: one terminal each, fresh scan still complete",
    async run(ctx) {
      const child = await readyOrSkip(ctx, SESSION_CAPABILITIES);
      for (let i = 0; i < 300; i += 1) writeSmallHistory(ctx.box, `small${i}`);
      writeHistoryOfSize(ctx.box, "lines", 12_000 * 256, 256);
      writeHistoryOfSize(ctx.box, "bytes", 9 * 1024 * 1024, 1024);
      const full = await discoverAll(child);
      assert.equal(full.last.error, undefined, JSON.stringify(full.last.error));
      const expected = [...full.ids].sort();
      const kinds = [...new Set(full.progress.slice(0, -1))];
      for (const kind of kinds) {
        const cursor = await advanceTo(child, kind);
        if (cursor === null) continue;
        const step = child.request("session.discover", { cursor });
        const cancel = await child.request("operation.cancel", {
          request_id: lastRequestId(child),
        });
        const terminal: Frame = await within(step, 30_000, `step after ${kind}`);
        if (cancel.result) {
          assert.equal(terminal.error?.code, "operation_cancelled", `after ${kind}`);
        } else {
          assert.equal(cancel.error?.code, "operation_missing");
          assert.ok(terminal.result, `after ${kind}: ${JSON.stringify(terminal)}`);
        }
        const again = await discoverAll(child);
        assert.deepEqual([...again.ids].sort(), expected, `fresh scan after cancel at ${kind}`);
      }
    },
  },
  {
    id: "cancel.discover.same_write",
    tier: "MUST",
    clause:
      "extensions §Incremental session discovery: Cancellation/error abandons scan; restart explicitly.",
    title: "a discover step cancelled in the same write: operation_cancelled; its cursor is dead",
    async run(ctx) {
      const child = await readyOrSkip(ctx, SESSION_CAPABILITIES);
      multiStepStore(ctx);
      const cursor = await advance(child, 1);
      const id = "step-cancelled";
      const terminal = child.waitFor((f) => f.id === id, 30_000);
      const ack = child.waitFor((f) => f.id === "cancel-it");
      child.send(
        `${JSON.stringify({ id, method: "session.discover", params: { cursor } })}\n` +
          `${JSON.stringify({ id: "cancel-it", method: "operation.cancel", params: { request_id: id } })}\n`,
      );
      assert.equal((await ack).result?.state, "cancelling");
      assert.equal((await terminal).error?.code, "operation_cancelled");
      const reuse = await child.request("session.discover", { cursor });
      assert.equal(reuse.error?.code, "stale_revision", "the abandoned scan's cursor is stale");
    },
  },
  {
    id: "cancel.discover.after_completion_and_twice",
    tier: "MUST",
    clause:
      "extensions §Operation cancellation: Missing/completed/different request returns operation_missing.",
    title: "cancelling a finished discover step, or twice: operation_missing, no second answer",
    async run(ctx) {
      const child = await readyOrSkip(ctx, SESSION_CAPABILITIES);
      multiStepStore(ctx);
      const first = await child.request("session.discover", {}, "first-step");
      assert.ok(first.result, JSON.stringify(first.error));
      for (const attempt of [1, 2]) {
        const late = await child.request("operation.cancel", { request_id: "first-step" });
        assert.equal(late.error?.code, "operation_missing", `attempt ${attempt}`);
      }
      const cursor = (first.result as unknown as Page).cursor;
      const next = await child.request("session.discover", { cursor });
      assert.ok(next.result, "the scan goes on: a late cancel does not touch it");
    },
  },
  {
    id: "cancel.discover.racing_shutdown",
    tier: "MUST",
    clause:
      "base §5: shutdown ... cancel everything in flight ... answer {state: stopped}, exit 0.",
    title: "a discover step, its cancel and shutdown in one write: one answer each, exit 0",
    async run(ctx) {
      const child = await readyOrSkip(ctx, SESSION_CAPABILITIES);
      multiStepStore(ctx);
      const ids = ["step", "cancel-step", "stop"];
      const answers = ids.map((id) => child.waitFor((f) => f.id === id, 10_000));
      child.send(
        `${JSON.stringify({ id: "step", method: "session.discover", params: {} })}\n` +
          `${JSON.stringify({ id: "cancel-step", method: "operation.cancel", params: { request_id: "step" } })}\n` +
          `${JSON.stringify({ id: "stop", method: "shutdown", params: {} })}\n`,
      );
      const [step, , stop] = await Promise.all(answers);
      assert.equal(step?.error?.code, "operation_cancelled");
      assert.deepEqual(stop?.result, { state: "stopped" });
      assert.deepEqual(await within(child.exited, 5000, "exit"), { code: 0, signal: null });
    },
  },
];

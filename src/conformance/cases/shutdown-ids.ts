import assert from "node:assert/strict";
import type { ConformanceCase } from "../case.js";
import {
  assertCancelled,
  assertCleanExit,
  indexOfResponse,
  startSleep,
  untilActive,
  within,
} from "../expect.js";
import type { Frame } from "../frame.js";
import { nextId } from "../harness.js";

/**
 * A shutdown holds its ID until it is answered, like any active request: while it drains, a
 * second frame with that ID (any method, shutdown and status included) is
 * `duplicate_request_id`, is not counted, and is never mistaken for the shutdown's own answer.
 */
const frame = (id: string, method: string, params: object = {}) =>
  `${JSON.stringify({ id, method, params })}\n`;

export const SHUTDOWN_ID_CASES: ConformanceCase[] = [
  {
    id: "shutdown.id_held_while_draining",
    tier: "MUST",
    clause:
      "base §3: an ID that an active request holds is duplicate_request_id for them too (and that frame does not count as a new request).",
    title: "while shutdown drains, its ID is duplicate_request_id for every method, uncounted",
    needsTestMethods: true,
    async run({ ready }) {
      const child = await ready(["operation.cancel"]);
      const stubborn = startSleep(child, 20_000, { stubborn: true });
      await untilActive(child, stubborn.id);
      const before = await child.request("status", {});
      const left = before.result?.requests_left as number;
      const stopId = nextId("stop");
      const probeId = nextId("status");
      const freshId = nextId("fresh");
      const stopped = child.waitFor((f) => f.id === stopId && f.result !== undefined, 10_000);
      const probe = child.waitFor((f) => f.id === probeId, 10_000);
      const fresh = child.waitFor((f) => f.id === freshId, 10_000);
      // One write: the shutdown, three frames reusing its ID, a status, a fresh request.
      child.send(
        frame(stopId, "shutdown") +
          frame(stopId, "status") +
          frame(stopId, "test.sleep", { ms: 1 }) +
          frame(stopId, "shutdown") +
          frame(probeId, "status") +
          frame(freshId, "test.sleep", { ms: 1 }),
      );
      const counted = (await within(probe, 10_000, "status while draining")).result;
      assert.equal(counted?.state, "shutting_down");
      assert.equal(counted?.requests_left, left, "the duplicate frames were not counted");
      assert.equal((await fresh).error?.code, "shutting_down", "a fresh ID is shutting_down");
      assert.deepEqual((await stopped).result, { state: "stopped" });
      const withStopId: Frame[] = child.frames.filter((f) => f.id === stopId);
      const stops = withStopId.filter((f) => f.result !== undefined);
      assert.equal(stops.length, 1, "the shutdown is answered once");
      const others = withStopId.filter((f) => f.result === undefined).map((f) => f.error?.code);
      assert.deepEqual(others, Array(3).fill("duplicate_request_id"), JSON.stringify(withStopId));
      assertCancelled(await stubborn.done, "the stubborn request");
      assert.ok(
        indexOfResponse(child, stubborn.id) < child.frames.indexOf(stops[0] as Frame),
        "the stubborn request is answered before stopped",
      );
      await assertCleanExit(child, 5000);
    },
  },
];

/**
 * The exit status after a stop signal (issue 35, item 12; docs/turns.md section 7): 0 when the
 * shutdown's cleanup finished within its bound, else 128 + the signal's number. The black-box
 * tests (test/turns/turn-signals.test.ts, test/acp/acp-signals.test.ts) see the clean case; this
 * one holds a request past the bound, which no real tool can be made to do on purpose, and checks
 * that the Dispatcher reports the overrun that then sets the status.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { stopExitCode } from "../../src/process/stop-signals.js";
import { Dispatcher } from "../../src/server/dispatcher.js";
import type { HandlerTable } from "../../src/server/handler.js";
import { createState } from "../../src/server/state.js";
import { within } from "../helpers/fakes.js";

/** A dispatcher whose session.list runs `listing`; resolves with onStopped's `finished`. */
function stopWith(listing: HandlerTable["session.list"]): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const dispatcher = new Dispatcher({
      state: createState("/w", "/h", {}),
      handlers: { "session.list": listing },
      write: () => Promise.resolve(),
      onStopped: (_deadline, finished) => resolve(finished),
    });
    const send = (id: string, method: string, params: object) =>
      dispatcher.handle({
        kind: "frame",
        bytes: new TextEncoder().encode(JSON.stringify({ id, method, params })),
      });
    send("i", "initialize", {
      protocol_version: 1,
      client: { name: "t", version: "1" },
      required_capabilities: ["session.list"],
    });
    send("l", "session.list", {});
    setImmediate(() => dispatcher.endOfInput());
  });
}

describe("stop signals: the exit status", () => {
  test("a cleanup that finished in time: finished, exit 0 whatever the signal", async () => {
    const finished = await within(
      stopWith(
        (_params, ctx) =>
          new Promise((_resolve, reject) =>
            ctx.signal.addEventListener("abort", () => reject(new Error("aborted"))),
          ),
      ),
    );
    assert.equal(finished, true);
    for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const)
      assert.equal(stopExitCode(signal, finished), 0);
  });

  test("a request that outlives the bound: not finished, exit 128 + the signal's number", async () => {
    const finished = await within(stopWith(() => new Promise(() => {})));
    assert.equal(finished, false);
    assert.equal(stopExitCode("SIGTERM", finished), 143);
    assert.equal(stopExitCode("SIGINT", finished), 130);
    assert.equal(stopExitCode("SIGHUP", finished), 129);
    // A shutdown or EOF (no signal) keeps its exit 0.
    assert.equal(stopExitCode(null, finished), 0);
  });
});

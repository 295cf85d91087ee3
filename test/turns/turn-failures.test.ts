import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";
import {
  cut,
  type FailSpec,
  fail,
  garbage,
  reset,
  type Script,
  stall,
  text,
} from "../fixtures/chat-completions-server.js";
import { assertNothingLeaked, BODY_MARKER, forbiddenOf } from "./leaks.js";
import {
  runTurn,
  type TurnEvent,
  type TurnResultShape,
  type TurnWorld,
  turnWorld,
  typesOf,
} from "./turn-harness.js";

/**
 * Provider failures through the real child and a loopback Chat Completions server: each ends the
 * turn with one `failed` result of the right code (or is retried as the contract says), and no
 * frame repeats the server's URL, the key, a body the server sent, or a path.
 */

const KEY = "sk-test-secret-key";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** An error status whose body carries the marker in every field a server would fill. */
function refused(status: number, spec: FailSpec = {}): Script {
  return fail(status, {
    ...spec,
    body: {
      error: {
        message: `${BODY_MARKER} says no`,
        type: BODY_MARKER,
        param: BODY_MARKER,
        code: null,
      },
    },
  });
}

/** OpenAI's too-long answer, with the marker in its prose. */
function tooLong(): Script {
  return fail(400, {
    body: {
      error: {
        message: `This model's maximum context length is 8192 tokens. ${BODY_MARKER}`,
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    },
  });
}

async function turnOn(scripts: Script[], env: Record<string, string> = {}) {
  world = await turnWorld({ env });
  await world.child.call("session.create", {});
  world.server.reply(...scripts);
  const { result, events } = await runTurn(world.child, "Please answer.");
  assert.equal(world.server.unscripted, 0, "every request had its scripted answer");
  return { result, events, world };
}

function assertFailed(result: TurnResultShape, code: string): void {
  assert.equal(result.status, "failed");
  assert.equal(result.stop_reason, null);
  assert.equal(result.error?.code, code, `failed with ${JSON.stringify(result.error)}`);
  assert.ok(result.error?.message, "a failure says what happened");
}

function retries(events: TurnEvent[]) {
  return events.filter((e) => e.event.type === "retry").map(({ event }) => event);
}

/** Nothing leaked in any frame of this world's child, nor the key in its stderr. */
function assertClean(w: TurnWorld): void {
  assertNothingLeaked(w.child, forbiddenOf(w.box, [w.server.baseUrl], [KEY]), [KEY]);
}

async function historyTypes(w: TurnWorld, sessionId: string): Promise<string[]> {
  const history = await w.child.call("session.history", { id: sessionId });
  return history.events.map((e) => e.type);
}

describe("turns: provider failures", () => {
  for (const status of [401, 403]) {
    test(`${status} is authentication_rejected at once, not retried`, async () => {
      const { result, events, world: w } = await turnOn([refused(status)]);
      assertFailed(result, "authentication_rejected");
      assert.equal(w.server.requests.length, 1);
      assert.deepEqual(retries(events), []);
      assert.deepEqual(typesOf(events), ["turn_started"]);
      assert.deepEqual(await historyTypes(w, result.session_id), [
        "session_meta",
        "turn_start",
        "user_message",
        "turn_end",
      ]);
      assertClean(w);
    });
  }

  test("429 with Retry-After and a 503 are retried with retry events, then the turn succeeds", async () => {
    const {
      result,
      events,
      world: w,
    } = await turnOn([refused(429, { retryAfter: 1 }), refused(503), text("Recovered.")]);
    assert.equal(result.status, "completed");
    assert.equal(w.server.requests.length, 3);
    // Retry-After (1 s) honoured as sent; the 503 takes the second backoff step (500 ms x 1%).
    assert.deepEqual(retries(events), [
      { type: "retry", attempt: 1, reason: "rate_limited", delay_ms: 1000 },
      { type: "retry", attempt: 2, reason: "remote_unavailable", delay_ms: 5 },
    ]);
    assert.deepEqual(typesOf(events).slice(0, 3), ["turn_started", "retry", "retry"]);
    const done = events.filter((e) => e.event.type === "message_done");
    assert.deepEqual(
      done.map((e) => e.event.text),
      ["Recovered."],
    );
    // The same request each time: a retry is the same call again.
    assert.deepEqual(w.server.requests[2]?.body, w.server.requests[0]?.body);
    assertClean(w);
  });

  test("429 past the retries: four retries, then failed rate_limited", async () => {
    const {
      result,
      events,
      world: w,
    } = await turnOn([refused(429), refused(429), refused(429), refused(429), refused(429)]);
    assertFailed(result, "rate_limited");
    assert.equal(w.server.requests.length, 5);
    assert.deepEqual(
      retries(events).map((e) => [e.attempt, e.reason, e.delay_ms]),
      [
        [1, "rate_limited", 0],
        [2, "rate_limited", 5],
        [3, "rate_limited", 10],
        [4, "rate_limited", 20],
      ],
    );
    assertClean(w);
  });

  test("a provider down without Retry-After: the first retry at once, the next after the backoff", async () => {
    // Production backoff (100%): the first retry waits nothing, the second 500 ms.
    const {
      result,
      events,
      world: w,
    } = await turnOn([refused(503), refused(503), text("Back.")], {
      MC_AGENT_TEST_BACKOFF_PERCENT: "100",
    });
    assert.equal(result.status, "completed");
    assert.deepEqual(
      retries(events).map((e) => [e.attempt, e.reason, e.delay_ms]),
      [
        [1, "remote_unavailable", 0],
        [2, "remote_unavailable", 500],
      ],
    );
    assertClean(w);
  });

  test("a Retry-After past 60 s is not waited for: failed rate_limited at once", async () => {
    const { result, events, world: w } = await turnOn([refused(429, { retryAfter: 61 })]);
    assertFailed(result, "rate_limited");
    assert.equal(w.server.requests.length, 1);
    assert.deepEqual(retries(events), []);
    assertClean(w);
  });

  test("5xx past the retries is remote_unavailable", async () => {
    const {
      result,
      events,
      world: w,
    } = await turnOn([refused(500), refused(502), refused(503), refused(504), refused(500)]);
    assertFailed(result, "remote_unavailable");
    assert.equal(w.server.requests.length, 5);
    assert.deepEqual(
      retries(events).map((e) => e.reason),
      ["remote_unavailable", "remote_unavailable", "remote_unavailable", "remote_unavailable"],
    );
    assertClean(w);
  });

  test("a connection reset before any output is retried", async () => {
    const { result, events, world: w } = await turnOn([reset(), text("After the reset.")]);
    assert.equal(result.status, "completed");
    assert.equal(w.server.requests.length, 2);
    assert.deepEqual(
      retries(events).map((e) => [e.attempt, e.reason]),
      [[1, "remote_unavailable"]],
    );
    assert.equal(
      events.find((e) => e.event.type === "message_done")?.event.text,
      "After the reset.",
    );
    assertClean(w);
  });

  test("a stream cut after output is not retried: failed, the partial reply kept", async () => {
    // Three SSE lines: the role chunk, then "Hell" and "o wo"; then the socket is destroyed.
    const { result, events, world: w } = await turnOn([cut(text("Hello world, and more"), 3)]);
    assertFailed(result, "remote_unavailable");
    assert.equal(w.server.requests.length, 1);
    assert.deepEqual(retries(events), []);
    const done = events.find((e) => e.event.type === "message_done");
    assert.equal(done?.event.text, "Hello wo");
    const history = await w.child.call("session.history", { id: result.session_id });
    const assistant = history.events.find((e) => e.type === "assistant_message") as
      | { text?: string; interrupted?: boolean }
      | undefined;
    assert.equal(assistant?.text, "Hello wo");
    assert.equal(assistant?.interrupted, true);
    assertClean(w);
  });

  test("a stall past the idle bound after output is remote_timeout, not retried", async () => {
    const {
      result,
      events,
      world: w,
    } = await turnOn([stall(text("Hello there"), 2)], {
      MC_AGENT_TEST_IDLE_MS: "1500",
    });
    assertFailed(result, "remote_timeout");
    assert.equal(w.server.requests.length, 1);
    assert.deepEqual(retries(events), []);
    assert.equal(events.find((e) => e.event.type === "message_done")?.event.text, "Hell");
    assertClean(w);
  });

  test("headers and then silence past the idle bound is remote_timeout", async () => {
    const { result, world: w } = await turnOn([stall(text("never sent"), 0)], {
      MC_AGENT_TEST_IDLE_MS: "1500",
    });
    assertFailed(result, "remote_timeout");
    assertClean(w);
  });

  test("garbage SSE is invalid_response", async () => {
    const {
      result,
      events,
      world: w,
    } = await turnOn([garbage(`data: {not json ${BODY_MARKER}\n\n`)]);
    assertFailed(result, "invalid_response");
    assert.equal(w.server.requests.length, 1);
    assert.deepEqual(retries(events), []);
    assertClean(w);
  });

  test("a 200 that is not an event stream at all is invalid_response", async () => {
    const { result, world: w } = await turnOn([
      garbage(`<html><body>${BODY_MARKER}</body></html>\n`, "text/html"),
    ]);
    assertFailed(result, "invalid_response");
    assertClean(w);
  });

  test("a context-length 400 compacts once and retries the call, which then fits", async () => {
    const {
      result,
      events,
      world: w,
    } = await turnOn([
      tooLong(),
      text("Summary: the user asked for an answer."),
      text("Here it is."),
    ]);
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    assert.equal(w.server.requests.length, 3);
    const types = typesOf(events);
    assert.ok(types.includes("compacted"), `no compacted event in ${types}`);
    // The summary call offers no tools; the retried call starts from the summary.
    assert.equal(w.server.requests[1]?.body.tools, undefined);
    const retried = w.server.requests[2]?.body.messages.slice(1);
    assert.match(retried[0].content, /Summary of the conversation so far/);
    assert.match(retried[0].content, /the user asked for an answer/);
    assert.deepEqual(retried.at(-1), { role: "user", content: "Please answer." });
    assert.ok((await historyTypes(w, result.session_id)).includes("compaction"));
    assertClean(w);
  });

  test("a context-length 400 that still does not fit after compaction is context_exceeded", async () => {
    const {
      result,
      events,
      world: w,
    } = await turnOn([tooLong(), text("Summary: the user asked for an answer."), tooLong()]);
    assertFailed(result, "context_exceeded");
    // Compacted once, then the same call once more: no second compaction.
    assert.equal(w.server.requests.length, 3);
    assert.equal(typesOf(events).filter((t) => t === "compacted").length, 1);
    assert.deepEqual(retries(events), []);
    assertClean(w);
  });
});

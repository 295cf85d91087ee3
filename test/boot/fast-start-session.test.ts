import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { after, describe, test } from "node:test";
import fc from "fast-check";
import { isFastSessionCreate } from "../../src/boot/session-create-fast.js";
import type { Frame } from "../../src/conformance/frame.js";
import { type Sandbox, sandbox, TestChild } from "../../src/conformance/harness.js";
import { TURN_FRONTEND_CAPABILITIES } from "../../src/protocol/capabilities.js";
import type { Request } from "../../src/protocol/envelope.js";
import { buildHandlers } from "../../src/server/handlers/index.js";
import { createState } from "../../src/server/state.js";
import { fullChildAnswer } from "../helpers/answer-of.js";

/**
 * The starter's `session.create` (src/boot/session-create-fast.ts, src/boot/starter.ts): right
 * behind the initialize it answered, the frontend's `session.create` is answered before the child
 * has loaded, as the full child (`MC_AGENT_FAST_START=0`) answers it, and the child adopts it: the
 * handle is its attachment, the ID is used, the request counted. Whatever the hand check leaves
 * is the full child's, with the full child's answer.
 */

const PLAIN_CAPS = ["session.create", "session.open", "session.discover"];
/** What a turn-driving frontend negotiates (the SDK's, the conformance kit's). */
const TURN_CAPS = [...TURN_FRONTEND_CAPABILITIES];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const boxes: Sandbox[] = [];
after(() => {
  for (const box of boxes) box.cleanup();
});

/** A child in a fresh world, the fast start on or off (the full child answers everything). */
function childOf(fast: boolean): { child: TestChild; box: Sandbox } {
  const box = sandbox("mc-fast-session-");
  boxes.push(box);
  const child = new TestChild({
    cwd: box.workspace,
    home: box.home,
    testMethods: true,
    env: fast ? {} : { MC_AGENT_FAST_START: "0" },
  });
  return { child, box };
}

/** Whether the child parsed a session.create itself (the starter builds no schema). */
async function childParsedCreate(child: TestChild): Promise<boolean> {
  const schemas = await child.request("test.schemas", {});
  assert.ok(schemas.result, JSON.stringify(schemas.error));
  return (schemas.result as { built: string[] }).built.includes("sessions.SessionCreateParams");
}

/** A frame's line with each session ID and its world's workspace replaced by placeholders. */
function shapeOf(line: string): string {
  return line
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<id>")
    .replace(/"cwd":"[^"]*"/g, '"cwd":"<workspace>"');
}

/**
 * As a frontend starts: initialize, its answer awaited, then session.create, then `more` (each
 * awaited). The lines of every answer, and whether the child parsed the session.create.
 */
async function startOf(
  fast: boolean,
  caps: string[],
  create: { id: string; params: object },
  more: (child: TestChild, created: Frame) => Promise<void> = async () => {},
): Promise<{ lines: string[]; byChild: boolean; created: Frame }> {
  const { child } = childOf(fast);
  try {
    await child.request(
      "initialize",
      {
        protocol_version: 1,
        client: { name: "fast-session-test", version: "1.0.0" },
        required_capabilities: caps,
      },
      "i1",
    );
    const created = await child.request("session.create", create.params, create.id);
    await more(child, created);
    const lines = [...child.rawLines];
    return { lines, byChild: await childParsedCreate(child), created };
  } finally {
    await child.close();
  }
}

describe("a session.create behind the starter's initialize", () => {
  for (const [name, caps] of [
    ["plain", PLAIN_CAPS],
    ["negotiating turn", TURN_CAPS],
  ] as const) {
    test(`is answered by the starter as the full child answers it (${name})`, async () => {
      const full = await startOf(false, [...caps], { id: "c1", params: {} });
      const fast = await startOf(true, [...caps], { id: "c1", params: {} });
      assert.equal(full.byChild, true);
      assert.equal(fast.byChild, false, "the starter answered it");
      assert.deepEqual(fast.lines.map(shapeOf), full.lines.map(shapeOf));
      const session = (fast.created.result as { session: { id: string; saved: boolean } }).session;
      assert.match(session.id, UUID);
      assert.equal(session.saved, false);
    });
  }

  test("is adopted by the child: its attachment, its request ID, its count", async () => {
    const after = async (child: TestChild, created: Frame) => {
      const id = (created.result as { session: { id: string } }).session.id;
      // Attached as a lazy handle: its history is empty, with nothing read from the store.
      const history = await child.request("session.history", { id }, "h1");
      assert.deepEqual(history.result, { events: [], cursor: null, complete: true });
      // The ID is used for the child's life.
      assert.equal(await child.errorCode("session.create", {}, "c1"), "duplicate_request_id");
      // Counted against the child's bound: the initialize, the create, the history (a refused duplicate is not).
      await child.request("status", {}, "s1");
      // A turn on it is refused for the model it lacks, not for a missing session.
      await child.request("turn.start", { input: "hi", permissions: "read_only" }, "t1");
    };
    const full = await startOf(false, TURN_CAPS, { id: "c1", params: {} }, after);
    const fast = await startOf(true, TURN_CAPS, { id: "c1", params: {} }, after);
    assert.equal(fast.byChild, false, "the starter answered it");
    assert.deepEqual(fast.lines.map(shapeOf), full.lines.map(shapeOf));
    const status = JSON.parse(fast.lines.find((line) => line.includes('"s1"')) as string);
    assert.equal(status.result.requests_left, 4096 - 3);
  });

  for (const [name, caps, create, code] of [
    ["with a param", PLAIN_CAPS, { id: "c1", params: { title: "x" } }, "invalid_params"],
    ["with the initialize's ID", PLAIN_CAPS, { id: "i1", params: {} }, "duplicate_request_id"],
    ["not negotiated", ["session.open"], { id: "c1", params: {} }, "unsupported_capability"],
  ] as const) {
    test(`is the full child's ${name}`, async () => {
      const full = await startOf(false, [...caps], create);
      const fast = await startOf(true, [...caps], create);
      assert.deepEqual(fast.lines, full.lines);
      assert.equal(fast.created.error?.code, code);
    });
  }

  test("is the full child's behind another frame, and nothing of it is written", async () => {
    const { child, box } = childOf(true);
    try {
      await child.initialize(PLAIN_CAPS);
      await child.request("status", {}, "s1");
      const created = await child.request("session.create", {}, "c1");
      assert.ok(created.result, JSON.stringify(created.error));
      assert.equal(await childParsedCreate(child), true);
      assert.deepEqual(readdirSync(box.home), []);
    } finally {
      await child.close();
    }
  });

  test("a frontend that writes nothing more still gets the child, and its end is an exit", async () => {
    const { child } = childOf(true);
    await child.initialize(PLAIN_CAPS);
    child.closeStdin();
    const exit = await child.exited;
    assert.equal(exit.code, 0);
    assert.equal(child.rawLines.length, 1);
  });
});

describe("the hand check accepts only what the full child answers with a result", () => {
  const box = sandbox("mc-fast-session-check-");
  after(() => box.cleanup());
  const state = createState(box.workspace, box.home, { PATH: process.env.PATH });
  const handlers = buildHandlers(state, {});

  /** The full child's answer to `request` after an initialize with `capabilities` (id i1). */
  function fullAnswer(request: Request, capabilities: string[]): Promise<string> {
    state.attachment = null;
    return fullChildAnswer(state, handlers, JSON.stringify(request), {
      prepare: (dispatcher) => dispatcher.adoptInitialize("i1", capabilities),
    });
  }

  test("on generated requests", async () => {
    const request = fc.record({
      id: fc.constantFrom("i1", "c1", "session.create"),
      method: fc.constantFrom("session.create", "session.open", "status", "session.list"),
      params: fc.oneof(
        fc.constant({}),
        fc.dictionary(fc.constantFrom("id", "title", "cwd"), fc.jsonValue(), { minKeys: 1 }),
      ),
    });
    const capabilities = fc.subarray([
      "session.create",
      "session.open",
      "session.list",
      "model.catalog",
    ]);
    await fc.assert(
      fc.asyncProperty(request, capabilities, async (request, capabilities) => {
        if (!isFastSessionCreate(request as Request, { id: "i1", capabilities })) return;
        const answer = JSON.parse(await fullAnswer(request as Request, capabilities));
        assert.equal(answer.id, request.id);
        assert.equal(answer.result?.session?.saved, false, JSON.stringify(answer));
        assert.match(answer.result.session.id, UUID);
        assert.deepEqual(Object.keys(answer.result.session), ["id", "saved"]);
      }),
      { numRuns: 200 },
    );
  });
});

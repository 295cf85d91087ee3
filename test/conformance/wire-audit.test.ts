import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Frame } from "../../src/conformance/frame.js";
import { unsafeMessage } from "../../src/conformance/message-leaks.js";
import { auditWire, requestsIn } from "../../src/conformance/wire-audit.js";

const status = {
  state: "ready",
  cwd: "/w",
  attachment: null,
  selection: { model: null, effort: null },
  worker: "idle",
  active_requests: [],
  requests_left: 4096,
};
const sent = requestsIn(
  `${JSON.stringify({ id: "a", method: "status", params: {} })}\n{"id":"b","method":"nope"}\nnot json\n`,
);

describe("wire audit", () => {
  test("reads the requests of a chunk: valid IDs only, methods of whole envelopes only", () => {
    assert.deepEqual(sent, [
      { id: "a", method: "status" },
      { id: "b", method: null },
    ]);
  });

  test("a clean exchange has no problems", () => {
    const received: Frame[] = [
      { id: "a", result: status },
      { id: "b", error: { code: "invalid_request", message: "Bad." } },
      { id: null, error: { code: "invalid_request", message: "Bad." } },
    ];
    assert.deepEqual(auditWire({ sent, received }), []);
  });

  test("errors.recovery: a next step only on the two first-run codes, with its provider", () => {
    const sentThree = requestsIn(
      ["c", "d", "e"]
        .map((id) => JSON.stringify({ id, method: "turn.start", params: {} }))
        .join("\n"),
    );
    const problems = auditWire({
      sent: sentThree,
      received: [
        {
          id: "c",
          error: {
            code: "model_unavailable",
            message: "No.",
            recovery: "run_setup",
            provider: null,
          },
        },
        {
          id: "d",
          error: { code: "busy", message: "Busy.", recovery: "run_setup", provider: null },
        },
        {
          id: "e",
          error: {
            code: "authentication_unavailable",
            message: "No.",
            recovery: "configure_authentication",
          },
        },
      ],
    });
    assert.equal(problems.length, 2, problems.join("\n"));
    assert.match(problems[0] as string, /^a next step on busy, which never carries one/);
    assert.match(problems[1] as string, /^a next step without recovery and provider/);
  });

  test("two answers to one request, and an answer to an ID never sent", () => {
    const received: Frame[] = [
      { id: "a", result: status },
      { id: "a", result: status },
      { id: "zz", error: { code: "busy", message: "Busy." } },
    ];
    assert.deepEqual(auditWire({ sent, received }), [
      '2 responses to ID "a", sent 1 time(s)',
      'response to ID "zz", which was never sent',
    ]);
  });

  test("results outside their schema, unknown codes, success for a bad envelope", () => {
    const problems = auditWire({
      sent,
      received: [
        { id: "a", result: { ...status, extra: 1 } },
        { id: "b", result: {} },
        { id: null, error: { code: "oops" as never, message: "x" } },
      ],
    });
    assert.equal(problems.length, 3);
    assert.match(problems[0] as string, /^status result outside its schema/);
    assert.match(problems[1] as string, /^success for an unknown method "null"/);
    assert.match(problems[2] as string, /^bad error frame/);
  });

  test("leaks: paths, file names, URLs, forbidden words, secrets anywhere", () => {
    assert.equal(unsafeMessage("Cannot read /home/u/.mc", []), "a path");
    assert.equal(unsafeMessage("bad s1.jsonl", []), '".jsonl"');
    assert.equal(unsafeMessage("C:\\x", []), '"\\"');
    assert.equal(unsafeMessage("history says hello", ["hello"]), '"hello"');
    assert.equal(unsafeMessage("The operation was cancelled.", ["hello"]), null);
    const problems = auditWire({
      sent,
      received: [{ id: "a", result: { ...status, cwd: "sk-secret" } }],
      secrets: ["sk-secret"],
    });
    assert.match(problems[0] as string, /^a frame carries a credential/);
  });

  test("a lone surrogate anywhere in a frame: refused as a strict UTF-8 decoder refuses it", () => {
    const lone = auditWire({
      sent,
      received: [{ id: "a", result: { ...status, cwd: "/w\ud83c" } }],
    });
    assert.equal(lone.length, 1, lone.join("\n"));
    assert.match(lone[0] as string, /^a frame a strict UTF-8 JSON decoder refuses/);
    const low = auditWire({
      sent,
      received: [{ id: "b", error: { code: "invalid_request", message: "Bad \udf89." } }],
    });
    assert.match(low[0] as string, /^a frame a strict UTF-8 JSON decoder refuses/);
    const pair = auditWire({
      sent,
      received: [{ id: "a", result: { ...status, cwd: "/w\u{1F389}" } }],
    });
    assert.deepEqual(pair, [], "a whole pair is fine");
  });

  test("notifications: inside their schema, of a request sent, before its response", () => {
    const turnSent = requestsIn(
      `${JSON.stringify({ id: "t1", method: "turn.start", params: { input: "hi" } })}\n${JSON.stringify({ id: "a", method: "status", params: {} })}\n`,
    );
    const event = (request_id: string, extra: Record<string, unknown> = {}) =>
      ({
        method: "turn.event",
        params: {
          request_id,
          turn_id: "t-1",
          seq: 0,
          event: { type: "message_delta", item_id: "t-1.1", text: "hi" },
          ...extra,
        },
      }) as unknown as Frame;
    const result = {
      turn_id: "t-1",
      session_id: "s1",
      usage: { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0, reasoning_tokens: 0 },
      steps: 1,
      status: "completed",
      stop_reason: "end_turn",
      error: null,
    };
    assert.deepEqual(
      auditWire({ sent: turnSent, received: [event("t1"), { id: "t1", result }] }),
      [],
    );
    const problems = auditWire({
      sent: turnSent,
      received: [
        event("a"),
        event("t1", { seq: -1 }),
        { method: "turn.other", params: {} } as unknown as Frame,
        { id: "t1", result },
        event("t1"),
        event("t1", { note: "sk-secret" }),
      ],
      secrets: ["sk-secret"],
    });
    assert.match(problems[0] as string, /^turn\.event names no turn\.start request/);
    assert.match(problems[1] as string, /^turn\.event params outside its schema \(seq/);
    assert.match(problems[2] as string, /^unknown notification "turn\.other"/);
    assert.match(problems[3] as string, /^turn\.event after the response to its request "t1"/);
    assert.match(problems[4] as string, /^a notification carries a credential/);
    assert.equal(problems.length, 6, problems.join("\n"));
  });
});

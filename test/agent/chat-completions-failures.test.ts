import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, test } from "node:test";
import { retryAfterMs } from "../../src/agent/providers/failures.js";
import type { StreamEvent } from "../../src/agent/providers/provider.js";
import { STREAM_LINE_BYTES } from "../../src/agent/providers/sse.js";
import {
  answerEvents,
  type ChatServer,
  contextTooLong,
  custom,
  cut,
  fail,
  garbage,
  reset,
  type Script,
  stall,
  startChatServer,
  text,
  toolCall,
} from "../fixtures/chat-completions-server.js";
import { pause, within } from "../helpers/fakes.js";
import { closedPort, startSilentListener } from "../models/fake-server.js";
import { assertFailure, chatProvider, drain, joinedText, request } from "./chat-helpers.js";

/** The documented bound, stated here: a changed constant fails this test. */
const ERROR_BODY_BYTES = 65_536;
/** The documented bound, stated here: a changed constant fails this test. */
const TOOL_ARGUMENT_BYTES = 8 * 1_048_576;

let server: ChatServer;
beforeEach(async () => {
  server = await startChatServer();
});
afterEach(async () => {
  await server.close();
});

async function failsWith(script: Script, code: string, what: string) {
  server.reply(script);
  return assertFailure(await drain(chatProvider(server.baseUrl)), code, server, what);
}

describe("Chat Completions failures", () => {
  test("status answers: 401, 403, 429, 5xx, context length, other 4xx", async () => {
    const cases: [Script, string, string][] = [
      [fail(401), "authentication_rejected", "401"],
      [fail(403), "authentication_rejected", "403"],
      [fail(429), "rate_limited", "429"],
      [fail(500), "remote_unavailable", "500"],
      [fail(503, { body: "<html>down</html>" }), "remote_unavailable", "503 html"],
      [fail(502, { body: "" }), "remote_unavailable", "502 empty"],
      [contextTooLong(), "context_exceeded", "OpenAI's context_length_exceeded"],
      [
        // vLLM's shape: no `error` object, the wording in a top-level message.
        fail(400, {
          body: {
            object: "error",
            message: "This model's maximum context length is 4096 tokens.",
            type: "BadRequestError",
            code: 400,
          },
        }),
        "context_exceeded",
        "vLLM's maximum context length",
      ],
      [
        fail(400, {
          body: { error: { code: 400, message: "x", type: "exceed_context_size_error" } },
        }),
        "context_exceeded",
        "llama.cpp's exceed_context_size_error",
      ],
      [fail(413, { body: "too large" }), "context_exceeded", "413"],
      [fail(400), "provider_error", "400"],
      [fail(404), "provider_error", "404"],
      [fail(422, { body: { detail: "bad tools" } }), "provider_error", "422"],
    ];
    for (const [script, code, what] of cases) {
      const failure = await failsWith(script, code, what);
      assert.equal(failure.retryAfterMs, null, what);
    }
    assert.equal(server.requests.length, cases.length, "each failure was one request: no retries");
  });

  test("Retry-After in seconds or as an HTTP date, and retry-after-ms, on 429 and 503", async () => {
    assert.equal(
      (await failsWith(fail(429, { retryAfter: 2 }), "rate_limited", "s")).retryAfterMs,
      2000,
    );
    const ms = await failsWith(
      fail(429, { retryAfterMs: 1500, retryAfter: 9 }),
      "rate_limited",
      "ms",
    );
    assert.equal(ms.retryAfterMs, 1500);
    const date = new Date(Date.now() + 30_000).toUTCString();
    const dated = await failsWith(fail(429, { retryAfter: date }), "rate_limited", "date");
    assert.ok((dated.retryAfterMs ?? 0) > 20_000 && (dated.retryAfterMs ?? 0) <= 30_000);
    const busy = await failsWith(fail(503, { retryAfter: 1 }), "remote_unavailable", "503");
    assert.equal(busy.retryAfterMs, 1000);
    const headers = (value: string) => new Headers({ "retry-after": value });
    assert.equal(retryAfterMs(headers("soon")), null);
    assert.equal(retryAfterMs(headers("Wed, 21 Oct 2015 07:28:00 GMT")), 0, "a past date is 0");
    assert.equal(retryAfterMs(headers("0.5")), 500);
    assert.equal(retryAfterMs(undefined), null);
  });

  test("an error answer's body is read only to its bound: a huge 429 is still rate_limited", async () => {
    const body = { error: { message: "x".repeat(4 * ERROR_BODY_BYTES), code: "rate_limit" } };
    const failure = await failsWith(fail(429, { body, retryAfter: 1 }), "rate_limited", "huge");
    assert.equal(failure.retryAfterMs, 1000);
    // Past the bound, a context wording is not seen: the body was cut before it.
    const late = { error: { pad: "x".repeat(ERROR_BODY_BYTES), code: "context_length_exceeded" } };
    await failsWith(fail(400, { body: late }), "provider_error", "wording past the bound");
  });

  test("connection refused and reset before output are remote_unavailable", async () => {
    const refused = chatProvider(`${await closedPort()}/v1`);
    assertFailure(await drain(refused), "remote_unavailable", null, "refused");
    await failsWith(reset(), "remote_unavailable", "reset");
  });

  test("a stream cut mid-way is remote_unavailable, after the text it did send", async () => {
    server.reply(cut(text("Hello there, world"), 3));
    const outcome = await drain(chatProvider(server.baseUrl));
    assertFailure(outcome, "remote_unavailable", server, "cut");
    assert.equal(joinedText(outcome.events), "Hello there, world".slice(0, 8));
    assert.ok(!outcome.events.some((e) => e.type === "done" || e.type === "usage"));
  });

  test("garbage: invalid JSON, wrong shapes, no finish_reason, a non-SSE body", async () => {
    const cases: [string, string][] = [
      ["data: {not json\n\n", "invalid JSON"],
      ['data: {"choices": 5}\n\n', "choices not a list"],
      ['data: {"choices": [{"index": 0, "delta": {"content": 7}}]}\n\n', "content not text"],
      [
        'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}]}\n\n',
        "a tool call without a name",
      ],
      ["hello\nworld\n\n", "no data lines"],
      [`${answerEvents({ text: "hi", finish: null }).join("")}`, "no finish_reason, with [DONE]"],
      [`${answerEvents({ text: "hi", finish: null, done: false }).join("")}`, "just ends"],
      ["", "an empty body"],
    ];
    for (const [raw, what] of cases) await failsWith(garbage(raw), "invalid_response", what);
    await failsWith(
      garbage('{"id":"x","choices":[]}', "application/json"),
      "invalid_response",
      "JSON",
    );
  });

  test("a named thread event is invalid_response, and nothing prints its data", async () => {
    const printed: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => printed.push(args);
    try {
      for (const raw of ["event: thread.run\ndata: {bad body\n\n", "event:thread.x\ndata: {}\n\n"])
        await failsWith(garbage(raw), "invalid_response", raw);
      // Split across writes, the line is still seen.
      server.reply(
        custom(async ({ res }) => {
          res.writeHead(200, { "content-type": "text/event-stream" });
          for (const piece of ["ev", "ent: thr", "ead.run\ndata: {bad", " body\n\n"]) {
            await new Promise<void>((resolve) => res.write(piece, () => resolve()));
            await pause(20);
          }
          res.end();
        }),
      );
      assertFailure(await drain(chatProvider(server.baseUrl)), "invalid_response", server);
    } finally {
      console.error = original;
    }
    assert.deepEqual(printed, []);
  });

  test("an error object inside the stream", async () => {
    const errorLine = (error: unknown) =>
      garbage(
        `${answerEvents({ text: "hi" }).slice(0, 2).join("")}data: ${JSON.stringify({ error })}\n\n`,
      );
    await failsWith(
      errorLine({ message: "boom", code: "server_error" }),
      "provider_error",
      "generic",
    );
    await failsWith(errorLine({ message: "slow", code: 429 }), "rate_limited", "429 in stream");
    await failsWith(errorLine({ message: "down", code: 502 }), "remote_unavailable", "502");
    await failsWith(
      errorLine({ message: "maximum context length exceeded" }),
      "context_exceeded",
      "context",
    );
  });
});

describe("Chat Completions bounds", () => {
  const lineOf = (content: string) =>
    `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })}`;
  const finished = `${answerEvents({ text: "" }).slice(-3).join("")}`;

  test(`a stream line of ${STREAM_LINE_BYTES} bytes passes; one more byte is invalid_response`, async () => {
    const overhead = lineOf("").length;
    const atBound = lineOf("x".repeat(STREAM_LINE_BYTES - overhead));
    assert.equal(atBound.length, STREAM_LINE_BYTES);
    server.reply(garbage(`${atBound}\n\n${finished}`));
    const ok = await drain(chatProvider(server.baseUrl));
    assert.equal(ok.failure, null);
    assert.equal(joinedText(ok.events).length, STREAM_LINE_BYTES - overhead);
    const past = lineOf("x".repeat(STREAM_LINE_BYTES - overhead + 1));
    await failsWith(garbage(`${past}\n\n${finished}`), "invalid_response", "one byte past");
  });

  test(`tool arguments of ${TOOL_ARGUMENT_BYTES} bytes pass; one more byte is invalid_response`, async () => {
    const pieces = Math.ceil(TOOL_ARGUMENT_BYTES / 65_536);
    server.reply(
      toolCall("write_file", "y".repeat(TOOL_ARGUMENT_BYTES), { argumentPieces: pieces }),
    );
    const ok = await drain(chatProvider(server.baseUrl));
    assert.equal(ok.failure, null);
    const event = ok.events.find((e) => e.type === "tool_call");
    assert.equal(event?.type === "tool_call" && event.arguments.length, TOOL_ARGUMENT_BYTES);
    const past = toolCall("write_file", "y".repeat(TOOL_ARGUMENT_BYTES + 1), {
      argumentPieces: pieces,
    });
    await failsWith(past, "invalid_response", "one byte past");
  });

  test("a stall past the idle bound is remote_timeout, before and after output", async () => {
    // 1 s: the loopback server's first bytes must come within it on a busy machine.
    const bounds = { connectMs: 10_000, idleMs: 1_000 };
    server.reply(stall(text("Hello"), 2));
    const outcome = await drain(chatProvider(server.baseUrl, null, bounds));
    assertFailure(outcome, "remote_timeout", server, "stall after output");
    assert.equal(joinedText(outcome.events), "Hell");
    server.reply(stall(text("Hello"), 0));
    assertFailure(
      await drain(chatProvider(server.baseUrl, null, bounds)),
      "remote_timeout",
      server,
    );
    // No headers at all: the request is read and never answered.
    server.reply(custom(() => {}));
    assertFailure(
      await drain(chatProvider(server.baseUrl, null, bounds)),
      "remote_timeout",
      server,
    );
  });

  test("the idle bound resets on every byte: a slow healthy stream is never cut", async () => {
    const idleMs = 1000;
    server.reply(
      custom(async ({ res }) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        // About 2.5 idle bounds in all, never more than a quarter of one without a byte.
        for (const line of answerEvents({ text: "slow but steady", pieceChars: 2 })) {
          res.write(line);
          await pause(idleMs / 4);
        }
        res.end();
      }),
    );
    const outcome = await drain(chatProvider(server.baseUrl, null, { connectMs: 10_000, idleMs }));
    assert.equal(outcome.failure, null);
    assert.equal(joinedText(outcome.events), "slow but steady");
  });

  test("a consumer slower than the idle bound is back-pressure, not a silent remote", async () => {
    server.reply(text("one two three four"));
    // The idle bound leaves a busy machine room for the server's first byte; the consumer holds
    // two events well past it.
    const provider = chatProvider(server.baseUrl, null, { connectMs: 10_000, idleMs: 600 });
    const events: StreamEvent[] = [];
    const run = async () => {
      for await (const event of provider.stream(request())) {
        events.push(event);
        if (events.length < 3) await pause(1500);
      }
    };
    await within(run(), 20_000, "a slow consumer");
    assert.deepEqual(events.at(-1), { type: "done", stop: "end_turn" });
  });

  test("abort mid-stream ends the iteration promptly, without an error, and closes the socket", async () => {
    let closed: Promise<void> = Promise.resolve();
    server.reply(
      custom(async (exchange) => {
        closed = new Promise((resolve) => exchange.socket.once("close", () => resolve()));
        await stall(text("Hello world"), 3)(exchange);
      }),
    );
    const controller = new AbortController();
    const provider = chatProvider(server.baseUrl, null, { connectMs: 10_000, idleMs: 60_000 });
    const events: StreamEvent[] = [];
    const run = async () => {
      for await (const event of provider.stream(request({ signal: controller.signal }))) {
        events.push(event);
        controller.abort();
      }
    };
    await within(run(), 5_000, "the aborted stream");
    assert.equal(events.length, 1);
    await within(closed, 5_000, "the server's socket closing");
  });

  test("abort before the answer's headers ends at once too", async () => {
    server.reply(custom(() => {}));
    const controller = new AbortController();
    const provider = chatProvider(server.baseUrl, null, { connectMs: 10_000, idleMs: 60_000 });
    setTimeout(() => controller.abort(), 200);
    const outcome = await drain(provider, request({ signal: controller.signal }), 5_000);
    assert.deepEqual(outcome, { events: [], failure: null });
  });

  test("the connect bound: a listener that never accepts is remote_timeout", async () => {
    const listener = await startSilentListener();
    try {
      const provider = chatProvider(`${listener.url}/v1`, null, { connectMs: 300, idleMs: 60_000 });
      assertFailure(await drain(provider), "remote_timeout", null, "connect");
    } finally {
      await listener.close();
    }
  });
});

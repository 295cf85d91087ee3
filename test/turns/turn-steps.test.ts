import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { anthropicReply } from "../fixtures/anthropic-server.js";
import {
  custom,
  fail,
  type Script,
  stall,
  text,
  toolCall,
} from "../fixtures/chat-completions-server.js";
import { responsesReply } from "../fixtures/responses-server.js";
import type { Reply } from "../fixtures/scripted-sse.js";
import { type ProviderWorld, providerWorld } from "./provider-world.js";
import { settled, waitUntil } from "./turn-control-fixtures.js";
import { runTurn, startTurn, type TurnResultShape } from "./turn-harness.js";

/**
 * `steps` counts the model calls that produced a reply (issue 17, defect 7), on each wire
 * format: a call that got none (an error status, every retried attempt, an interrupt before its
 * first output) is no step; a call retried before output and then answered is one; a call
 * interrupted after some of its reply is one.
 */

type Format = "responses" | "anthropic" | "chat";

interface Wire {
  /** A reply streaming `pieces` and finishing. */
  answer(pieces: string[]): void;
  /** A reply asking for one `list_dir` call. */
  listDir(): void;
  /** An error status, as this API sends it. */
  status(code: number): void;
  /** The request is read and never answered. */
  silent(): void;
  /** Three pieces of text, then the stream stays open and sends nothing more. */
  partial(): void;
  /** Requests the server has read. */
  requests(): number;
}

function wireOf(world: ProviderWorld, format: Format): Wire {
  if (format === "chat") {
    const server = world.chat();
    const add = (script: Script) => server.reply(script);
    return {
      answer: (pieces) => add(text(pieces)),
      listDir: () => add(toolCall("list_dir", { path: "." })),
      status: (code) => add(fail(code)),
      silent: () => add(custom(() => {})),
      // The role chunk and three pieces of four characters.
      partial: () => add(stall(text("Some words and more"), 4)),
      requests: () => server.requests.length,
    };
  }
  const server = world.sse(format === "responses" ? "openai" : "anthropic");
  const add = (reply: Reply) => server.script(reply);
  const errorBody =
    format === "responses"
      ? { error: { message: "scripted", type: "server_error", code: null } }
      : { type: "error", error: { type: "api_error", message: "scripted" } };
  const reply = format === "responses" ? responsesReply : anthropicReply;
  // Past the text deltas' start, before the events that finish the reply.
  const cutAfter = format === "responses" ? 6 : 5;
  return {
    answer: (pieces) => add(reply({ text: pieces })),
    listDir: () =>
      add(
        format === "responses"
          ? responsesReply({
              calls: [{ call_id: "call_1", name: "list_dir", arguments: '{"path":"."}' }],
            })
          : anthropicReply({
              tools: [{ id: "toolu_1", name: "list_dir", json: ['{"path":', '"."}'] }],
              stop_reason: "tool_use",
            }),
      ),
    status: (code) => add({ kind: "status", status: code, body: errorBody }),
    silent: () => add({ kind: "stall" }),
    partial: () =>
      add(reply({ text: ["Some ", "words ", "and ", "more"], cutAfter, ending: "stall" })),
    requests: () => server.seen.length,
  };
}

const PROVIDER = { responses: "openai", anthropic: "anthropic", chat: "demo" } as const;
const ENV = { responses: { OPENAI_API_KEY: "sk-o" }, anthropic: { ANTHROPIC_API_KEY: "sk-a" } };

function assertOutcome(result: TurnResultShape, status: string, code: string | null): void {
  assert.equal(result.status, status, JSON.stringify(result.error));
  assert.equal(result.error?.code ?? null, code);
}

for (const format of ["responses", "anthropic", "chat"] as const) {
  describe(`turns: steps on ${format}`, () => {
    let world: ProviderWorld;
    let wire: Wire;
    before(async () => {
      world = await providerWorld({
        providers: [PROVIDER[format]],
        ...(format === "chat" ? {} : { env: ENV[format] }),
      });
      await world.child.call("session.create", {});
      wire = wireOf(world, format);
    });
    after(() => world.close());

    test("five 5xx answers (four retries): failed remote_unavailable, steps 0", async () => {
      const seen = wire.requests();
      for (const code of [500, 502, 503, 504, 500]) wire.status(code);
      const { result } = await runTurn(world.child, "Fail five times");
      assertOutcome(result, "failed", "remote_unavailable");
      assert.equal(wire.requests() - seen, 5);
      assert.equal(result.steps, 0);
    });

    test("a 401: failed authentication_rejected, steps 0", async () => {
      wire.status(401);
      const { result } = await runTurn(world.child, "Refuse me");
      assertOutcome(result, "failed", "authentication_rejected");
      assert.equal(result.steps, 0);
    });

    test("an interrupt before any byte of the answer: interrupted, steps 0", async () => {
      const seen = wire.requests();
      wire.silent();
      const turn = startTurn(world.child, "Never answered");
      await waitUntil(() => wire.requests() > seen, "the request to reach the server");
      await world.child.call("turn.interrupt", { request_id: turn.id });
      const { result } = await settled(world.child, turn);
      assertOutcome(result, "interrupted", null);
      assert.equal(result.steps, 0);
    });

    test("an interrupt after part of the reply: interrupted, steps 1", async () => {
      wire.partial();
      const turn = startTurn(world.child, "Half an answer");
      await turn.event("message_delta");
      await world.child.call("turn.interrupt", { request_id: turn.id });
      const { result } = await settled(world.child, turn);
      assertOutcome(result, "interrupted", null);
      assert.equal(result.steps, 1);
    });

    test("two 503s, then an answer: completed, steps 1", async () => {
      wire.status(503);
      wire.status(503);
      wire.answer(["Third ", "time."]);
      const { result } = await runTurn(world.child, "Try again");
      assertOutcome(result, "completed", null);
      assert.equal(result.steps, 1);
    });

    test("a tool call, then a retried answer: completed, steps 2", async () => {
      wire.listDir();
      wire.status(500);
      wire.answer(["Listed."]);
      const { result } = await runTurn(world.child, "List the workspace", "read_only");
      assertOutcome(result, "completed", null);
      assert.equal(result.steps, 2);
    });
  });
}

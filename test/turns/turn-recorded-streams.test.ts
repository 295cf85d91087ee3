import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { shownToolName } from "../../src/agent/tool-step.js";
import { custom } from "../fixtures/chat-completions-server.js";
import { bodies, type Reply, writePieces } from "../fixtures/scripted-sse.js";
import { type ProviderWorld, providerWorld, selectModel } from "./provider-world.js";
import {
  byteSplit,
  closingCall,
  type Format,
  loadRecordings,
  type RecordedCall,
  type Recording,
  streamsDir,
  wireOf,
} from "./recorded-streams.js";
import { runTurn, type TurnEvent } from "./turn-harness.js";

/**
 * Every stream recorded from a real provider (index.json of ../shared/provider-streams) replayed
 * through a loopback server in its API's wire format into a real turn of the spawned child, cut
 * into pieces of 1 byte up and again with CRLF line ends; the turn must show what the recording
 * says (recorded-streams.ts reads that from the payloads by each API's documentation): each
 * message with its phase, the reasoning, each tool call under the model's own name (none of them
 * is ours, so each ends failed), the usage of each call, the stop or the failure (retried when it
 * is a 5xx or a rate limit), and the next request giving back what the provider needs.
 */

const DIR = streamsDir();
const MODEL: Record<Format, string> = {
  responses: "openai/gpt-5",
  chat: "demo/demo-1",
  anthropic: "anthropic/claude-sonnet-4-test",
};
const RETRIED = new Set(["remote_unavailable", "rate_limited"]);

interface Plan {
  served: RecordedCall[];
  retried: string | null;
  failed: string | null;
}

/** The calls a turn makes of a recording: on after tool calls, once more after a retried error. */
function planOf(recording: Recording): Plan {
  const served: RecordedCall[] = [];
  const closing = closingCall(recording.format);
  for (const [index, call] of recording.calls.entries()) {
    served.push(call);
    const { failure, calls } = call.meaning;
    if (failure) {
      if (!RETRIED.has(failure)) return { served, retried: null, failed: failure };
      served.push(closing);
      return { served, retried: failure, failed: null };
    }
    if (calls.length === 0) break;
    if (index === recording.calls.length - 1) served.push(closing);
  }
  return { served, retried: null, failed: null };
}

type Variant = "pieces" | "crlf";

function replyOf(recording: Recording, call: RecordedCall, variant: Variant): Uint8Array[] {
  const lineEnd = variant === "crlf" ? "\r\n" : "\n";
  const recorded = recording.raw !== null && call === recording.calls[0];
  const wire = recorded
    ? (recording.raw as string).replace(/\r?\n/g, lineEnd)
    : wireOf(recording.format, call, lineEnd);
  return variant === "pieces" ? byteSplit(wire) : [Buffer.from(wire)];
}

function script(world: ProviderWorld, recording: Recording, plan: Plan, variant: Variant): void {
  for (const call of plan.served) {
    const pieces = replyOf(recording, call, variant);
    if (recording.format === "chat")
      world.chat().reply(custom(({ res }) => writePieces(res, "text/event-stream", pieces)));
    else {
      const reply: Reply = { kind: "pieces", contentType: "text/event-stream", pieces };
      world.sse(recording.format === "responses" ? "openai" : "anthropic").script(reply);
    }
  }
}

function requestsOf(world: ProviderWorld, format: Format): Record<string, unknown>[] {
  if (format === "chat") return world.chat().requests.map((r) => r.body);
  return bodies(world.sse(format === "responses" ? "openai" : "anthropic"));
}

const of = (events: TurnEvent[], type: string) =>
  events.filter((e) => e.event.type === type).map((e) => e.event);

/** What the turn showed against what the recording says; the differences, by name. */
async function replay(world: ProviderWorld, recording: Recording, variant: Variant) {
  const plan = planOf(recording);
  const format = recording.format;
  const before = requestsOf(world, format).length;
  await world.child.call("session.create", {});
  script(world, recording, plan, variant);
  const { result, events } = await runTurn(world.child, "Replay", "read_only");
  const answered = plan.served.filter((call) => !call.meaning.failure);
  const expected = {
    messages: answered.flatMap((c) => c.meaning.messages),
    reasoning: answered.map((c) => c.meaning.reasoning).join(""),
    tools: answered.flatMap((c) => c.meaning.calls.map((call) => shownToolName(call.name))),
    usage: answered.flatMap((c) => (c.meaning.usage ? [c.meaning.usage] : [])),
    retries: plan.retried ? [plan.retried] : [],
    status: plan.failed ? "failed" : "completed",
    outcome: plan.failed ?? answered.at(-1)?.meaning.stop,
  };
  const tools = of(events, "tool_call").map((e) => e.tool);
  const actual = {
    messages: of(events, "message_done").map((e) => ({ text: e.text, phase: e.phase })),
    reasoning: of(events, "reasoning_delta")
      .map((e) => e.text)
      .join(""),
    tools,
    usage: of(events, "usage").map(({ type, context_window, ...usage }) => usage),
    retries: of(events, "retry").map((e) => e.reason),
    status: result.status,
    outcome: result.status === "failed" ? result.error?.code : result.stop_reason,
  };
  assert.deepEqual(actual, expected, `${recording.entry.file} (${variant})`);
  const done = of(events, "tool_done").map((e) => e.status);
  assert.deepEqual(
    done,
    tools.map(() => "failed"),
    `${recording.entry.file}: tool_done`,
  );
  const requests = requestsOf(world, format).slice(before);
  assert.equal(requests.length, plan.served.length, `${recording.entry.file}: calls made`);
  for (const [index, call] of answered.entries()) {
    if (call.meaning.calls.length === 0) continue;
    assertGivenBack(format, call, requests[index + 1] ?? {}, recording.entry.file);
  }
}

/**
 * The request after a call with tool calls carries each call (by its ID) and its result, and
 * on Chat Completions the step's reasoning in the field it came in (DeepSeek answers 400 without
 * it; docs/providers.md "Reasoning replay").
 */
function assertGivenBack(
  format: Format,
  call: RecordedCall,
  next: Record<string, unknown>,
  file: string,
) {
  const text = JSON.stringify(next);
  for (const { id } of call.meaning.calls)
    assert.ok(text.includes(JSON.stringify(id)), `${file}: the next request lacks call ${id}`);
  if (format === "responses") return assertReasoningGivenBack(call, next, file);
  if (format !== "chat") return;
  const messages = next.messages as Record<string, unknown>[];
  const carrier = messages.find(
    (m) =>
      m.role === "assistant" &&
      JSON.stringify(m.tool_calls ?? []).includes(call.meaning.calls[0]?.id ?? "?"),
  );
  assert.ok(carrier, `${file}: no assistant message carries the calls`);
  const field = call.meaning.reasoningField;
  if (field) assert.equal(carrier[field], call.meaning.reasoning, `${file}: ${field} given back`);
  else {
    assert.equal(carrier.reasoning_content, undefined, `${file}: no reasoning_content invented`);
    assert.equal(carrier.reasoning, undefined, `${file}: no reasoning invented`);
  }
}

/**
 * On Responses (store false) the step's reasoning items go back in the next request's input,
 * each as it came: OpenAI's encrypted form, an open-weight server's plain `reasoning_text`
 * content (DeepSeek's Responses API, LM Studio); one with neither (a summary alone) cannot.
 */
function assertReasoningGivenBack(call: RecordedCall, next: Record<string, unknown>, file: string) {
  const input = (next.input ?? []) as Record<string, unknown>[];
  for (const payload of call.payloads) {
    const item = payload.item as Record<string, unknown> | undefined;
    if (payload.type !== "response.output_item.done" || item?.type !== "reasoning") continue;
    const content = Array.isArray(item.content) && item.content.length > 0 ? item.content : null;
    const encrypted = typeof item.encrypted_content === "string" ? item.encrypted_content : null;
    if (content === null && encrypted === null) continue;
    const sent = input.find((i) => i.type === "reasoning" && i.id === item.id);
    assert.ok(sent, `${file}: reasoning item ${String(item.id)} given back`);
    assert.equal(sent.encrypted_content, encrypted ?? undefined, `${file}: its encrypted form`);
    assert.deepEqual(sent.content, content ?? undefined, `${file}: its reasoning text`);
  }
}

describe("every recorded provider stream through a real turn", {
  skip: DIR
    ? false
    : "../shared/provider-streams/ (the recorded streams) is absent beside the package",
}, () => {
  let world: ProviderWorld;
  /** The model selected now (the world starts on the first provider's first model). */
  let selected = MODEL.responses;
  before(async () => {
    world = await providerWorld({
      providers: ["openai", "anthropic", "demo"],
      env: { OPENAI_API_KEY: "sk-openai-replay", ANTHROPIC_API_KEY: "sk-ant-replay" },
    });
  });
  after(() => world?.close());

  for (const variant of ["pieces", "crlf"] as const)
    test(`each stream of index.json gives the turn its provider meant (${variant})`, async () => {
      const recordings = loadRecordings(DIR as string);
      assert.ok(recordings.length >= 70, "the index names every recording");
      // Every recording is replayed, and every one that does not hold is named at the end.
      const wrong: string[] = [];
      for (const recording of recordings) {
        const model = MODEL[recording.format];
        if (model !== selected) await selectModel(world.child, model);
        selected = model;
        await replay(world, recording, variant).catch((error: Error) => {
          wrong.push(error.message.split("\n")[0] ?? recording.entry.file);
          // A stream that stopped short leaves replies behind: the next recording starts clean.
          world.chat().clear();
          world.sse("openai").clear();
          world.sse("anthropic").clear();
        });
      }
      assert.deepEqual(wrong, [], wrong.join("\n"));
    });
});

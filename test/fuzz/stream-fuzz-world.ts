import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { join } from "node:path";
import { nextId, type Sandbox, sandbox, type TestChild } from "../../src/conformance/harness.js";
import { bodiesOf, finishTurn, historyOf, startTurn } from "../../src/conformance/turn-driver.js";
import { startReady } from "../helpers/child.js";
import { type FakeServer, startServer } from "../models/fake-server.js";
import { cacheDoc, writeCache, writeConfig } from "../models/fixtures.js";
import { TURN_CAPS } from "../turns/turn-harness.js";
import { fuzzCommand } from "./fuzz-driver.js";
import { checkStubs } from "./history-records.js";
import { type Format, isBenign, type StreamCase, streamChunks } from "./stream-generators.js";
import { frameProblems, historyFileProblems, leftoverLocks } from "./turn-checks.js";

/**
 * The stream fuzzer's world: one loopback server on 127.0.0.1 speaking all three wire formats
 * (by path: `/v1/chat/completions`, `/v1/responses`, `/v1/messages`), configured as the `demo`
 * (OpenAI-compatible), `openai` and `anthropic` providers, and one long-lived child (replaced
 * every `turnsPerChild` turns and after a failure) that runs one turn per case on a new session.
 * The case's mutated stream answers the turn's first model call; any later call (after a tool
 * call, or a retry) gets a plain valid reply.
 */
const MODEL: Record<Format, string> = {
  chat: "demo/fz-1",
  responses: "openai/fz-1",
  anthropic: "anthropic/fz-1",
};
const PATH: Record<Format, string> = {
  chat: "/v1/chat/completions",
  responses: "/v1/responses",
  anthropic: "/v1/messages",
};
export const FALLBACK_TEXT = "Fallback reply.";

export class StreamFuzzWorld {
  private child: TestChild | null = null;
  private box: Sandbox | null = null;
  private model: string | null = null;
  private turns = 0;
  private plan: { path: string; chunks: Buffer[]; ending: "end" | "reset" } | null = null;
  /** How the turns ended ("chat completed end_turn", "anthropic failed provider_error"). */
  readonly outcomes = new Map<string, number>();
  /** Records over a history page that came as stubs and read back whole (history-records.ts). */
  stubs = 0;

  private constructor(
    private readonly server: FakeServer,
    private readonly turnsPerChild: number,
  ) {
    server.route = (req, res) => this.answer(req.url, res);
  }

  static async start(turnsPerChild = 150): Promise<StreamFuzzWorld> {
    return new StreamFuzzWorld(await startServer(() => {}), turnsPerChild);
  }

  /** Runs one case as a turn and throws a readable error when an invariant breaks. */
  async run(c: StreamCase): Promise<void> {
    const child = await this.current();
    const fromLine = child.rawLines.length;
    const fromFrame = child.frames.length;
    try {
      await this.select(child, MODEL[c.format]);
      const { session } = await child.call("session.create", {});
      this.plan = { path: PATH[c.format], chunks: streamChunks(c), ending: c.ending };
      const turn = startTurn(child, "Say something.", "read_only");
      const { result, events } = await finishTurn(child, turn);
      this.plan = null;
      const key = `${c.format} ${result.status} ${result.stop_reason ?? result.error?.code}`;
      this.outcomes.set(key, (this.outcomes.get(key) ?? 0) + 1);
      if (isBenign(c)) {
        assert.equal(result.status, "completed", "a benign mutation completes the turn");
        const texts = bodiesOf(events, "message_done").map((e) => e.text);
        assert.equal(texts[0], c.text, "a benign mutation gives exactly the streamed text");
        if (c.withCall) {
          const calls = bodiesOf(events, "tool_call").map((e) => e.tool);
          assert.deepEqual(calls, ["read_file"], "the streamed tool call, once");
        }
      }
      await this.checkHistory(child, session.id, String(result.turn_id));
      await assertIdle(child);
      const answers = child.frames.filter((f) => f.id === turn.id).length;
      assert.equal(answers, 1, "exactly one result for the turn");
      const problems = frameProblems(child, fromLine, fromFrame);
      assert.deepEqual(problems, [], "every frame well-formed and within its bounds");
    } catch (error) {
      const tail = child.transcript.slice(-10).map((l) => `  ${l.slice(0, 400)}`);
      await this.retire();
      throw new Error(
        `${(error as Error).message}\ntranscript tail:\n${tail.join("\n")}\nstderr: ${child.stderr.slice(-600)}`,
      );
    }
    this.turns += 1;
    if (this.turns >= this.turnsPerChild) await this.retire();
  }

  private async checkHistory(child: TestChild, id: string, turnId: string): Promise<void> {
    const box = this.box as Sandbox;
    const records = await historyOf(child, id);
    const mine = records.filter((r) => r.turn_id === turnId);
    assert.equal(mine.at(-1)?.type, "turn_end", "the turn's end is saved");
    const path = join(box.home, "sessions", `${id}.jsonl`);
    assert.deepEqual(historyFileProblems(path), [], "the saved history is whole and well-formed");
    this.stubs += await checkStubs(child, id, records, path);
    const opened = await child.call("session.open", { id });
    assert.equal(opened.session.id, id, "the history re-opens");
  }

  private async select(child: TestChild, model: string): Promise<void> {
    if (this.model === model) return;
    const catalog = await child.call("model.catalog", {});
    await child.call("model.select", { model, effort: null, catalog_revision: catalog.revision });
    this.model = model;
  }

  private async current(): Promise<TestChild> {
    if (this.child) return this.child;
    const box = sandbox("mc-fz-stream-");
    const base = this.server.url;
    const identity = {
      demo: { type: "openai-compatible", base_url: `${base}/v1` },
      openai: { type: "openai", base_url: `${base}/v1` },
      anthropic: { type: "anthropic", base_url: base },
    };
    writeConfig(box, {
      providers: {
        demo: { ...identity.demo, api_key_env: "DEMO_KEY" },
        openai: { base_url: identity.openai.base_url },
        anthropic: { base_url: identity.anthropic.base_url },
      },
      enabled_models: Object.values(MODEL),
      model: MODEL.chat,
    });
    for (const [provider, id] of Object.entries(identity))
      writeCache(box, provider, cacheDoc(provider, id, [{ id: "fz-1", name: "Fuzz 1" }]));
    this.box = box;
    this.model = MODEL.chat;
    this.turns = 0;
    this.child = await startReady(box, TURN_CAPS, {
      testMethods: true,
      ...fuzzCommand(),
      env: {
        DEMO_KEY: "sk-fz-demo",
        OPENAI_API_KEY: "sk-fz-openai",
        ANTHROPIC_API_KEY: "sk-fz-anthropic",
        MC_AGENT_TEST_BACKOFF_PERCENT: "1",
      },
    });
    return this.child;
  }

  /** Shuts the child down: it must exit 0 and leave no lock behind. */
  async retire(): Promise<void> {
    const child = this.child;
    const box = this.box;
    this.child = null;
    this.box = null;
    if (!child || !box) return;
    try {
      const exit = await child.close();
      assert.deepEqual(exit, { code: 0, signal: null }, "the child exits 0 after shutdown");
      assert.deepEqual(leftoverLocks(box), [], "no lock left after the child ended");
    } finally {
      box.cleanup();
    }
  }

  async close(): Promise<void> {
    await this.retire();
    await this.server.close();
  }

  private answer(url: string, res: ServerResponse): void {
    const plan = this.plan;
    const path = url.split("?")[0] ?? "";
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.socket?.setNoDelay(true);
    if (plan && plan.path === path) {
      this.plan = null;
      void writeChunks(res, plan.chunks, plan.ending);
      return;
    }
    res.end(fallbackStream(path));
  }
}

async function writeChunks(res: ServerResponse, chunks: Buffer[], ending: "end" | "reset") {
  for (const chunk of chunks) {
    if (res.destroyed) return;
    await new Promise<void>((resolve) => res.write(chunk, () => resolve()));
  }
  if (ending === "reset") res.socket?.destroy();
  else res.end();
}

/** A plain valid reply in the path's format. */
function fallbackStream(path: string): string {
  if (path === PATH.responses) {
    const base = { id: "resp_fb", object: "response", created_at: 1, model: "fz-1" };
    const item = {
      id: "msg_fb",
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: FALLBACK_TEXT, annotations: [] }],
    };
    const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2 };
    return sse([
      ["response.created", { response: { ...base, status: "in_progress", output: [] } }],
      ["response.output_item.added", { output_index: 0, item: { ...item, content: [] } }],
      [
        "response.output_text.delta",
        { item_id: "msg_fb", output_index: 0, content_index: 0, delta: FALLBACK_TEXT },
      ],
      ["response.output_item.done", { output_index: 0, item }],
      ["response.completed", { response: { ...base, status: "completed", output: [item], usage } }],
    ]);
  }
  if (path === PATH.anthropic) {
    return sse([
      [
        "message_start",
        {
          message: {
            id: "msg_fb",
            type: "message",
            role: "assistant",
            model: "fz-1",
            content: [],
            stop_reason: null,
            usage: { input_tokens: 1, output_tokens: 1 },
          },
        },
      ],
      ["content_block_start", { index: 0, content_block: { type: "text", text: "" } }],
      ["content_block_delta", { index: 0, delta: { type: "text_delta", text: FALLBACK_TEXT } }],
      ["content_block_stop", { index: 0 }],
      ["message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } }],
      ["message_stop", {}],
    ]);
  }
  const chunk = (delta: unknown, finish: string | null) => ({
    id: "chatcmpl-fb",
    object: "chat.completion.chunk",
    created: 1,
    model: "fz-1",
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  return `${[chunk({ role: "assistant", content: FALLBACK_TEXT }, null), chunk({}, "stop")]
    .map((c) => `data: ${JSON.stringify(c)}\n\n`)
    .join("")}data: [DONE]\n\n`;
}

function sse(events: [string, Record<string, unknown>][]): string {
  return events
    .map(([type, fields]) => `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`)
    .join("");
}

/** After its result, nothing of the turn is still running in the child. */
async function assertIdle(child: TestChild): Promise<void> {
  const id = nextId("idle");
  const status = await child.request("status", {}, id);
  const active = ((status.result?.active_requests ?? []) as { id: string }[]).filter(
    (a) => a.id !== id,
  );
  assert.deepEqual(active, [], "nothing still active after the turn's result");
}

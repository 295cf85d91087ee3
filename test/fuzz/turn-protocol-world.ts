import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type ChatServer,
  type Script,
  startChatServer,
  text,
  toolCalls,
} from "../../src/conformance/chat-server.js";
import type { Frame } from "../../src/conformance/frame.js";
import { nextId, type Sandbox, sandbox, type TestChild } from "../../src/conformance/harness.js";
import {
  assertTurnInvariants,
  eventsOf,
  historyOf,
  type TurnEvent,
  type TurnResultShape,
} from "../../src/conformance/turn-driver.js";
import { startReady } from "../helpers/child.js";
import { cacheDoc, writeCache, writeConfig } from "../models/fixtures.js";
import { TURN_CAPS } from "../turns/turn-harness.js";
import { fuzzCommand } from "./fuzz-driver.js";
import { checkStubs } from "./history-records.js";
import { frameProblems, historyFileProblems, leftoverLocks } from "./turn-checks.js";
import type { Action, ProtocolCase } from "./turn-protocol-generators.js";

const FINAL_TEXT = "All done.";
const WAIT_MS = 30_000;

/**
 * The protocol fuzzer's world: a loopback Chat Completions server as the `demo` provider, a
 * workspace with `a.txt`, and a long-lived child that runs one scripted turn per case on a new
 * session while the case's client actions are fired at their moments. A case that ends the
 * child (shutdown, EOF) checks its exit and the store, and the next case gets a new child on
 * the same store.
 */
export class ProtocolFuzzWorld {
  private child: TestChild | null = null;
  private box: Sandbox | null = null;
  private cases = 0;
  private replies: Script[] = [];
  readonly outcomes = new Map<string, number>();
  /** Records over a history page that came as stubs and read back whole (history-records.ts). */
  stubs = 0;

  private constructor(private readonly server: ChatServer) {
    const fallback = text(FINAL_TEXT);
    server.otherwise((exchange) => (this.replies.shift() ?? fallback)(exchange));
  }

  static async start(): Promise<ProtocolFuzzWorld> {
    return new ProtocolFuzzWorld(await startChatServer());
  }

  async run(c: ProtocolCase): Promise<void> {
    const child = await this.current();
    const fromLine = child.rawLines.length;
    const fromFrame = child.frames.length;
    try {
      await this.runCase(child, c);
      assert.deepEqual(frameProblems(child, fromLine, fromFrame), [], "every frame valid");
    } catch (error) {
      const tail = child.transcript.slice(-14).map((l) => `  ${l.slice(0, 400)}`);
      await this.retire(true);
      throw new Error(
        `${(error as Error).message}\ntranscript tail:\n${tail.join("\n")}\nstderr: ${child.stderr.slice(-600)}`,
      );
    }
    this.cases += 1;
    if (this.cases >= 40) await this.retire();
  }

  private async runCase(child: TestChild, c: ProtocolCase): Promise<void> {
    const { session } = await child.call("session.create", {});
    // This case's replies only: an interrupted case's leftovers must not answer the next one.
    this.replies = [...c.steps.map((step) => toolCalls(step)), text(FINAL_TEXT)];
    const turnId = nextId("turn");
    child.send({
      id: turnId,
      method: "turn.start",
      params: { input: "Go.", permissions: c.permissions },
    });
    const fired: { id: string; action: Action | { kind: "approve" } }[] = [];
    const fire = (action: Action | { kind: "approve"; approval_id: string; decision: string }) => {
      const id = nextId(`fz-${action.kind}`);
      fired.push({ id, action });
      if (action.kind === "interrupt")
        child.send({ id, method: "turn.interrupt", params: { request_id: turnId } });
      if (action.kind === "status") child.send({ id, method: "status", params: {} });
      if (action.kind === "shutdown") child.send({ id, method: "shutdown", params: {} });
      if (action.kind === "eof") child.closeStdin();
      if (action.kind === "bogus-approve")
        child.send({
          id,
          method: "turn.approve",
          params: {
            approval_id: "t-00000000-0000-4000-8000-000000000000",
            decision: action.decision,
          },
        });
      if (action.kind === "approve")
        child.send({
          id,
          method: "turn.approve",
          params: { approval_id: action.approval_id, decision: action.decision },
        });
      return action.kind === "shutdown" || action.kind === "eof";
    };
    let ended = false;
    let seen = 0;
    let approvals = 0;
    const pending = [...c.actions].sort((a, b) => a.afterEvents - b.afterEvents);
    const fireDue = () => {
      while (!ended && pending.length > 0 && (pending[0]?.afterEvents ?? 0) <= seen)
        ended = fire((pending.shift() as { action: Action }).action);
    };
    fireDue();
    for (;;) {
      const events = eventsOf(child, turnId);
      for (const e of events.slice(seen)) {
        seen += 1;
        // An interrupt at every `usage` event: the last one is the turn's end, the moment an
        // interrupt races the result (defect 6).
        if (!ended && c.interruptOnUsage && e.event.type === "usage") fire({ kind: "interrupt" });
        if (!ended && e.event.type === "approval_requested") {
          const decision = c.decisions[approvals++ % c.decisions.length] as string;
          if (decision === "ignore") fire({ kind: "interrupt" });
          else fire({ kind: "approve", approval_id: e.event.approval_id, decision });
        }
        fireDue();
      }
      if (child.frames.some((f) => f.id === turnId)) break;
      await child.waitFor(
        (f) => f.id === turnId || (f as { params?: TurnEvent }).params?.request_id === turnId,
        WAIT_MS,
      );
    }
    const resultFrame = child.frames.find((f) => f.id === turnId) as Frame;
    if (
      ended &&
      resultFrame.error?.code === "shutting_down" &&
      eventsOf(child, turnId).length === 0
    ) {
      // Shutdown or EOF came before the turn was admitted: refused, nothing started.
      await this.checkAnswers(child, turnId, fired);
      return this.afterEnd(child, session.id);
    }
    assert.ok(
      resultFrame.result,
      `turn.start answered an error: ${JSON.stringify(resultFrame.error)}`,
    );
    const result = resultFrame.result as unknown as TurnResultShape;
    assertTurnInvariants(child, turnId, eventsOf(child, turnId), result);
    const key = `${c.permissions} ${result.status}`;
    this.outcomes.set(key, (this.outcomes.get(key) ?? 0) + 1);
    await this.checkAnswers(child, turnId, fired);
    if (ended) return this.afterEnd(child, session.id);
    const records = await historyOf(child, session.id);
    assert.equal(records.filter((r) => r.turn_id === result.turn_id).at(-1)?.type, "turn_end");
    const path = join((this.box as Sandbox).home, "sessions", `${session.id}.jsonl`);
    assert.deepEqual(historyFileProblems(path), [], "the saved history is whole and well-formed");
    this.stubs += await checkStubs(child, session.id, records, path);
  }

  /** Every fired request is answered exactly once, and rightly for when it was sent. */
  private async checkAnswers(
    child: TestChild,
    turnId: string,
    fired: { id: string; action: { kind: string } }[],
  ): Promise<void> {
    const resultAt = child.frames.findIndex((f) => f.id === turnId);
    for (const { id, action } of fired) {
      if (action.kind === "eof") continue;
      const frame =
        child.frames.find((f) => f.id === id) ?? (await child.waitFor((f) => f.id === id, WAIT_MS));
      const at = child.frames.indexOf(frame);
      const code = frame.error?.code ?? "ok";
      if (action.kind === "interrupt") {
        if (code === "turn_missing" && at < resultAt)
          assert.fail("turn_missing for a turn whose result had not been sent");
        assert.ok(["ok", "turn_missing"].includes(code), `turn.interrupt answered ${code}`);
      } else if (action.kind === "approve" || action.kind === "bogus-approve") {
        assert.ok(["ok", "approval_missing"].includes(code), `turn.approve answered ${code}`);
        if (action.kind === "bogus-approve") assert.equal(code, "approval_missing");
        if (code === "ok") {
          const { approval_id, decision } = action as unknown as Record<string, string>;
          const resolved = eventsOf(child, turnId).find(
            (e) => e.event.type === "approval_resolved" && e.event.approval_id === approval_id,
          );
          assert.equal(
            resolved?.event.type === "approval_resolved" && resolved.event.decision,
            decision,
            "an applied decision is the approval's resolution",
          );
        }
      } else if (action.kind === "status" || action.kind === "shutdown") {
        assert.equal(code, "ok", `${action.kind} answered ${code}`);
      }
    }
    for (const { id } of fired) {
      const answers = child.frames.filter((f) => f.id === id).length;
      assert.ok(answers <= 1, `${answers} answers to ${id}`);
    }
  }

  /** After shutdown or EOF: exit 0, no lock left, and a new child re-opens a valid history. */
  private async afterEnd(child: TestChild, sessionId: string): Promise<void> {
    const box = this.box as Sandbox;
    let timer: NodeJS.Timeout | undefined;
    const exit = await Promise.race([
      child.exited,
      new Promise((resolve) => {
        timer = setTimeout(() => resolve("still alive"), WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
    assert.deepEqual(exit, { code: 0, signal: null }, "the child exits 0 after shutdown or EOF");
    assert.deepEqual(leftoverLocks(box), [], "no lock left after the child ended");
    this.child = null;
    const next = await this.current();
    const opened = await next.call("session.open", { id: sessionId }).catch(() => null);
    // A session whose first turn never saved a record does not exist (nothing was saved).
    if (opened) await historyOf(next, sessionId);
    const path = join(box.home, "sessions", `${sessionId}.jsonl`);
    if (opened) assert.deepEqual(historyFileProblems(path), [], "the history is whole after exit");
  }

  private async current(): Promise<TestChild> {
    if (this.child) return this.child;
    if (!this.box) {
      const box = sandbox("mc-fz-proto-");
      const provider = { type: "openai-compatible", base_url: this.server.baseUrl };
      writeConfig(box, {
        providers: { demo: { ...provider, api_key_env: "DEMO_KEY" } },
        enabled_models: ["demo/fz-1"],
        model: "demo/fz-1",
      });
      writeCache(box, "demo", cacheDoc("demo", provider, [{ id: "fz-1", name: "Fuzz 1" }]));
      writeFileSync(join(box.workspace, "a.txt"), "alpha\nbeta\n");
      mkdirSync(join(box.workspace, "w"));
      this.box = box;
    }
    this.cases = 0;
    this.child = await startReady(this.box, TURN_CAPS, {
      testMethods: true,
      ...fuzzCommand(),
      env: { DEMO_KEY: "sk-fz-demo", MC_AGENT_TEST_BACKOFF_PERCENT: "1" },
    });
    return this.child;
  }

  /** Ends the child (exit 0, no lock) and, when asked, the store too. */
  async retire(dropStore = false): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child) {
      const exit = await child.close();
      assert.deepEqual(exit, { code: 0, signal: null }, "the child exits 0 after shutdown");
      assert.deepEqual(leftoverLocks(this.box as Sandbox), [], "no lock left");
    }
    if (dropStore) {
      this.box?.cleanup();
      this.box = null;
    }
  }

  async close(): Promise<void> {
    try {
      await this.retire(true);
    } finally {
      await this.server.close();
    }
  }
}

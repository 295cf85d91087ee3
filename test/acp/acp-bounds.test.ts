import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import { held, startChatServer, text, toolCall } from "../../src/conformance/chat-server.js";
import { KIT_KEY, writeTurnHome } from "../../src/conformance/turn-world.js";
import { LIMITS } from "../../src/protocol/constants.js";
import { sandbox } from "../helpers/child.js";
import { AcpWorld } from "./acp-world.js";
import { RawAgent } from "./raw-agent.js";
import { twoModelWorld } from "./two-models.js";

/** The documented bound of live engines per connection (docs/acp.md, "Many sessions"). */
const MAX_SESSIONS = 64;

/** Saved histories of `cwd`, the i-th one updated at minute i (so the newest is the last). */
function writeSessions(home: string, cwd: string, count: number, prefix: string): string[] {
  const folder = join(home, "sessions");
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `${prefix}${String(i).padStart(3, "0")}`;
    const ts = new Date(Date.UTC(2026, 10, 29, 10, i)).toISOString();
    const records = [
      { type: "session_meta", ts, cwd, id },
      { type: "title", ts, cwd, title: `Work ${i}` },
    ];
    writeFileSync(
      join(folder, `${id}.jsonl`),
      records.map((r) => `${JSON.stringify(r)}\n`).join(""),
    );
    ids.push(id);
  }
  return ids;
}

describe("mc-agent acp: bounds", () => {
  let world: AcpWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it("session/list pages by cursor, newest first, this cwd only; a used cursor is stale", async () => {
    world = await AcpWorld.start();
    const w = world;
    const count = LIMITS.page_entries + 5;
    const ids = writeSessions(w.box.home, w.box.workspace, count, "s");
    writeSessions(w.box.home, w.box.home, 3, "other");
    await w.initialize();
    const first = await w.agent.request("session/list", { cwd: w.box.workspace });
    assert.equal(first.sessions.length, LIMITS.page_entries);
    assert.ok(first.nextCursor);
    const second = await w.agent.request("session/list", {
      cwd: w.box.workspace,
      cursor: first.nextCursor,
    });
    assert.equal(second.nextCursor ?? null, null);
    const listed = [...first.sessions, ...second.sessions].map((s) => s.sessionId);
    assert.deepEqual(listed, [...ids].reverse());
    assert.equal(first.sessions[0]?.title, `Work ${count - 1}`);
    await assert.rejects(
      w.agent.request("session/list", { cwd: w.box.workspace, cursor: first.nextCursor }),
      (error: { data?: { code?: string } }) => error.data?.code === "stale_revision",
    );
  });

  it(`${MAX_SESSIONS} unsaved sessions: the next is busy until one is closed`, async () => {
    world = await AcpWorld.start();
    const w = world;
    await w.initialize();
    const opened: string[] = [];
    // New sessions are lazy (nothing on disk before their first prompt): never evicted.
    for (let i = 0; i < MAX_SESSIONS; i++) opened.push((await w.newSession()).sessionId);
    await assert.rejects(
      w.newSession(),
      (error: { data?: { code?: string } }) => error.data?.code === "busy",
    );
    await w.agent.request("session/close", { sessionId: opened[0] as string });
    assert.match((await w.newSession()).sessionId, /\S/);
  });

  it("past the bound the least recently used idle saved session is evicted and reopened as it was", async () => {
    world = await twoModelWorld();
    const w = world;
    await w.initialize();
    const cwd = w.box.workspace;
    const fillers = writeSessions(w.box.home, cwd, MAX_SESSIONS, "f");
    // L: lazy, never prompted. A: an allow_session rule, kit-2 at effort high. B: full_access.
    const lazy = (await w.newSession()).sessionId;
    const a = (await w.newSession()).sessionId;
    w.permission = () => ({ outcome: { outcome: "selected", optionId: "allow_session" } });
    w.server.reply(toolCall("write_file", { path: "a1.txt", content: "1\n" }), text("ok"));
    await w.prompt(a, "write a1");
    await w.agent.request("session/set_config_option", {
      sessionId: a,
      configId: "model",
      value: "kit/kit-2",
    });
    await w.agent.request("session/set_config_option", {
      sessionId: a,
      configId: "thought_level",
      value: "high",
    });
    const b = (await w.newSession()).sessionId;
    await w.agent.request("session/set_mode", { sessionId: b, modeId: "full_access" });
    w.server.reply(text("ok"));
    await w.prompt(b, "hello");
    w.permission = () => assert.fail("asked after eviction");

    // Loading every filler takes more engines than the bound: A, then B, then the oldest
    // fillers are evicted; the lazy L is passed over.
    for (const id of fillers)
      await w.agent.request("session/load", { sessionId: id, cwd, mcpServers: [] });
    const locks = () =>
      readdirSync(join(w.box.home, "sessions")).filter((n) => n.endsWith(".lock"));
    assert.ok(locks().length <= MAX_SESSIONS, "no more engines hold histories than the bound");
    assert.ok(!locks().includes(`${a}.lock`), "A's engine was closed");

    // A reopens with its rule (the edit is not asked), its model and its effort.
    w.server.reply(toolCall("write_file", { path: "a2.txt", content: "2\n" }), text("ok"));
    assert.equal((await w.prompt(a, "write a2")).stopReason, "end_turn");
    assert.ok(existsSync(join(cwd, "a2.txt")));
    const body = w.server.requests.at(-1)?.body;
    assert.equal(body.model, "kit-2");
    assert.equal(body.reasoning_effort, "high");
    // B reopens at full_access: its command runs unasked.
    w.server.reply(toolCall("shell", { command: "touch b.txt" }), text("ok"));
    assert.equal((await w.prompt(b, "touch")).stopReason, "end_turn");
    assert.ok(existsSync(join(cwd, "b.txt")));
    // The lazy L was never evicted (a reopen would find no history): it still prompts.
    w.server.reply(text("still here"));
    assert.equal((await w.prompt(lazy, "hello")).stopReason, "end_turn");
    // An evicted filler reopens on use too.
    w.server.reply(text("back"));
    assert.equal((await w.prompt(fillers[0] as string, "hello")).stopReason, "end_turn");
  });
});

describe("mc-agent acp: eviction never takes a session in use", () => {
  it("at the bound a prompt read beside an open keeps its session; an idle one is evicted, else busy", async () => {
    const box = sandbox("mc-acp-");
    const server = await startChatServer();
    writeTurnHome(box, server.baseUrl);
    const raw = new RawAgent(box, { MC_KIT_KEY: KIT_KEY });
    const cwd = box.workspace;
    let next = 0;
    const line = (method: string, params: unknown) => {
      next += 1;
      return { id: next, text: JSON.stringify({ jsonrpc: "2.0", id: next, method, params }) };
    };
    type Answer = {
      result?: Record<string, unknown>;
      error?: { message: string; data?: { code?: string } };
    };
    const call = async (method: string, params: unknown): Promise<Answer> => {
      const request = line(method, params);
      raw.send(request.text);
      return (await raw.answer(request.id)) as Answer;
    };
    const open = async (method = "session/new", params: object = {}) => {
      const answer = await call(method, { cwd, mcpServers: [], ...params });
      return answer.result?.sessionId as string | undefined;
    };
    const prompt = (sessionId: string, text: string) =>
      line("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
    const lock = (id: string) => existsSync(join(box.home, "sessions", `${id}.lock`));
    const busy = (answer: Answer) => answer.error?.data?.code === "busy";
    try {
      await call("initialize", { protocolVersion: 1 });
      // X: saved by its first prompt, then idle; with 63 lazy sessions the bound is reached.
      const x = (await open()) as string;
      server.reply(text("first"));
      const first = prompt(x, "hello");
      raw.send(first.text);
      assert.equal(((await raw.answer(first.id)) as Answer).result?.stopReason, "end_turn");
      const lazy: string[] = [];
      for (let i = 0; i < MAX_SESSIONS - 1; i++) lazy.push((await open()) as string);

      // One past: X's prompt and a fork in one write. X is the only idle, saved session, but
      // its prompt was read: the fork is busy and the prompt runs (before, X was evicted for
      // the fork and the prompt found no room: both answered busy).
      let release = () => {};
      server.reply(held(text("second"), 1, new Promise<void>((resolve) => (release = resolve))));
      const second = prompt(x, "again");
      const fork = line("session/fork", { sessionId: x, cwd, mcpServers: [] });
      raw.send(`${second.text}\n${fork.text}`);
      const refused = (await raw.answer(fork.id)) as Answer;
      assert.ok(busy(refused), JSON.stringify(refused));
      assert.match(refused.error?.message ?? "", /^At most 64 sessions can be open/);
      const answered = () => raw.lines.find((l) => l.id === second.id);
      await raw.until(() => server.requests.length === 2 || answered() !== undefined);
      assert.equal(answered(), undefined, "the prompt runs, not refused");
      assert.ok(lock(x), "X's engine is open while its prompt runs");

      // At the bound with X running and an idle saved session F (a fork), the next open
      // evicts F, not X (the least recently used); then every live session is running or lazy:
      // busy. An eviction closes the engine, which would interrupt X's turn: it ends as asked.
      await call("session/close", { sessionId: lazy[0] });
      assert.match((await open("session/fork", { sessionId: x })) ?? "", /\S/);
      assert.match((await open()) ?? "", /\S/);
      assert.ok(busy(await call("session/new", { cwd, mcpServers: [] })));
      assert.ok(lock(x), "X's turn still runs");
      release();
      const ended = (await raw.answer(second.id)) as Answer;
      assert.equal(ended.result?.stopReason, "end_turn", JSON.stringify(ended));

      // Idle now, X is the one evicted for the next open (every other live session is lazy).
      assert.match((await open()) ?? "", /\S/);
    } finally {
      await raw.close();
      await server.close();
      box.cleanup();
    }
  });
});

import assert from "node:assert/strict";
import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  watch,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { AgentClient } from "../../src/client/index.js";
import { anthropicReply, bodies } from "../fixtures/anthropic-server.js";
import { nextId, type Sandbox, sandbox, startReady, type TestChild } from "../helpers/child.js";
import { within } from "../helpers/fakes.js";
import { type ProviderWorld, providerWorld } from "../turns/provider-world.js";
import { runTurn, TURN_CAPS } from "../turns/turn-harness.js";

/**
 * session.fork black-box: forks that go on with their own turns on a real provider's wire
 * (Anthropic's Messages API, thinking signatures replayed), the SDK's `client.fork`, and the
 * copy's bounds: a record of the full 8 MiB bound, a cancel, and a kill -9 in the middle of a
 * large copy (no half session; the orphan temp file goes with the next fork).
 */
const FORK_CAPS = [...TURN_CAPS, "session.fork"];
const TS = "2026-11-29T10:00:00.000Z";
const RECORD_BYTES = 8_388_608;

let world: ProviderWorld | undefined;
let box: Sandbox | undefined;
let children: TestChild[] = [];
/** A child closed after its test, whatever happened (a live one would hold the file open). */
function track(child: TestChild): TestChild {
  children.push(child);
  return child;
}
afterEach(async () => {
  for (const child of children) child.kill();
  children = [];
  await world?.close();
  world = undefined;
  box?.cleanup();
  box = undefined;
});

const historyPath = (home: string, id: string) => join(home, "sessions", `${id}.jsonl`);
const names = (home: string) => readdirSync(join(home, "sessions")).sort();

/** A history of `turns` small turns, then `extra` raw lines, streamed to disk. */
function writeSource(target: Sandbox, id: string, turns: number, extra: string[] = []): string[] {
  const cwd = target.workspace;
  const usage = { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0, reasoning_tokens: 0 };
  const lines = [JSON.stringify({ type: "session_meta", ts: TS, cwd, id })];
  for (let n = 1; n <= turns; n += 1) {
    const base = { ts: TS, cwd, turn_id: `t-${n}` };
    lines.push(
      JSON.stringify({
        type: "turn_start",
        ...base,
        model: "m/m",
        effort: null,
        permissions: "ask",
      }),
      JSON.stringify({ type: "user_message", ...base, text: `question ${n}` }),
      JSON.stringify({ type: "turn_end", ...base, status: "completed", stop_reason: null, usage }),
    );
  }
  const fd = openSync(historyPath(target.home, id), "w");
  try {
    for (const line of [...lines, ...extra]) writeSync(fd, `${line}\n`);
  } finally {
    closeSync(fd);
  }
  return [...lines, ...extra];
}

/** A user message line of exactly `bytes` bytes (without its LF). */
function lineOfSize(cwd: string, bytes: number, fill = "x"): string {
  const head = JSON.stringify({ type: "user_message", ts: TS, cwd, text: "" });
  return `${head.slice(0, -2)}${fill.repeat(bytes - head.length)}"}`;
}

function storeBox(): Sandbox {
  box = sandbox("mc-fork-");
  mkdirSync(join(box.home, "sessions"), { mode: 0o700 });
  return box;
}

type Message = { role: string; content: { type: string; text?: string; signature?: string }[] };

describe("session.fork", () => {
  test("anthropic: a fork at a middle turn and its source each go on with their own turns", async () => {
    world = await providerWorld({
      providers: ["anthropic"],
      env: { ANTHROPIC_API_KEY: "sk-ant-fork-key" },
      capabilities: FORK_CAPS,
    });
    const { child } = world;
    const server = world.sse("anthropic");
    const reply = (n: number) =>
      anthropicReply({
        thinking: { text: [`thinking ${n}`], signature: `sig-${n}` },
        text: [`answer ${n}`],
      });
    await child.call("session.create", {});
    server.script(reply(1), reply(2), reply(3));
    const turns = [];
    for (const n of [1, 2, 3]) turns.push((await runTurn(child, `question ${n}`)).result);
    const source = turns[0]?.session_id as string;
    const sourceBytes = readFileSync(historyPath(world.box.home, source));

    const forked = await child.call("session.fork", { id: source, turn_id: turns[1]?.turn_id ?? undefined });
    assert.equal(forked.turns, 2);
    server.script(reply(4));
    const own = await runTurn(child, "question on the fork");
    assert.equal(own.result.session_id, forked.session.id);
    const forkRequest = bodies(server).at(-1) as { messages: Message[] };
    const sent = JSON.stringify(forkRequest.messages);
    for (const seen of ["question 1", "answer 2", "sig-2", "question on the fork"])
      assert.ok(sent.includes(seen), `the fork's context has ${seen}`);
    for (const unseen of ["question 3", "answer 3", "sig-3"])
      assert.ok(!sent.includes(unseen), `the fork's context lacks ${unseen}`);
    assert.ok(readFileSync(historyPath(world.box.home, source)).equals(sourceBytes));

    // The source goes on too, without the fork's turn.
    await child.call("session.open", { id: source });
    server.script(reply(5));
    const later = await runTurn(child, "question 4 on the source");
    assert.equal(later.result.session_id, source);
    const sourceSent = JSON.stringify((bodies(server).at(-1) as { messages: Message[] }).messages);
    assert.ok(sourceSent.includes("answer 3") && !sourceSent.includes("question on the fork"));
    const history = await child.call("session.history", { id: forked.session.id });
    const meta = history.events[0] as Record<string, unknown>;
    assert.deepEqual(meta.forked_from, { id: source, turn_id: turns[1]?.turn_id });
    const types = history.events.map((e) => e.type);
    assert.equal(types.filter((t) => t === "turn_start").length, 3, "two copied, one its own");
  });

  test("the SDK's client.fork: whole and at a turn, the attachment moves to the fork", async () => {
    const target = storeBox();
    writeSource(target, "src", 3);
    const client = await within(
      AgentClient.spawn({
        cwd: target.workspace,
        env: { PATH: process.env.PATH, MC_HOME: target.home, HOME: target.home },
        capabilities: ["session.fork", "session.open", "session.list"],
      }),
    );
    try {
      const whole = await client.fork("src");
      assert.deepEqual(whole.forked_from, { id: "src", turn_id: null });
      assert.equal(whole.turns, 3);
      assert.equal(whole.session.title, "question 1");
      const cut = await client.fork("src", { turnId: "t-1" });
      assert.equal(cut.turns, 1);
      const status = await client.call("status", {});
      assert.deepEqual(status.attachment, { session_id: cut.session.id, saved: true });
      const listed = (await client.call("session.list", {})).sessions.map((s) => s.id);
      assert.deepEqual(listed.sort(), [cut.session.id, whole.session.id, "src"].sort());
    } finally {
      await within(client.close());
    }
  });

  test("a record of the full 8 MiB bound is copied byte for byte; one byte more refuses", async () => {
    const target = storeBox();
    const big = lineOfSize(target.workspace, RECORD_BYTES);
    const lines = writeSource(target, "big", 1, [big]);
    writeSource(target, "over", 1, [lineOfSize(target.workspace, RECORD_BYTES + 1)]);
    const child = track(await startReady(target, ["session.fork", "session.open"]));
    const frame = await child.request("session.fork", { id: "big" }, nextId(), 60_000);
    const result = frame.result as { session: { id: string } };
    const copied = readFileSync(historyPath(target.home, result.session.id), "utf8");
    assert.deepEqual(copied.slice(0, -1).split("\n").slice(1), lines.slice(1));
    const before = names(target.home);
    assert.equal(await child.errorCode("session.fork", { id: "over" }), "session_invalid");
    assert.deepEqual(names(target.home), before, "nothing written");
    await child.close();
  });

  test("a fork cancelled while it copies answers operation_cancelled and leaves nothing", async () => {
    const target = storeBox();
    const record = lineOfSize(target.workspace, 256 * 1024);
    writeSource(
      target,
      "large",
      2,
      Array.from({ length: 128 }, () => record),
    );
    const child = track(await startReady(target, ["session.fork", "operation.cancel"]));
    const before = names(target.home);
    const sourceBytes = readFileSync(historyPath(target.home, "large"));
    const id = nextId("fork");
    const answer = child.waitFor((f) => f.id === id, 60_000);
    child.send({ id, method: "session.fork", params: { id: "large" } });
    child.send({ id: nextId(), method: "operation.cancel", params: { request_id: id } });
    const frame = await answer;
    assert.equal(frame.error?.code, "operation_cancelled");
    assert.deepEqual(names(target.home), before, "no history and no temp file");
    assert.ok(readFileSync(historyPath(target.home, "large")).equals(sourceBytes));
    const status = (await child.request("status", {})).result as { attachment: unknown };
    assert.equal(status.attachment, null);
    await child.close();
  });

  test("kill -9 while a large fork copies: no half session; the next fork removes the orphan", async () => {
    const target = storeBox();
    const record = lineOfSize(target.workspace, 256 * 1024);
    writeSource(
      target,
      "large",
      2,
      Array.from({ length: 160 }, () => record),
    );
    const sourceBytes = readFileSync(historyPath(target.home, "large"));
    const child = track(await startReady(target, ["session.fork"]));
    // The kill lands as soon as the temp file exists: in the middle of the copy.
    const tempSeen = new Promise<void>((resolve) => {
      const watcher = watch(join(target.home, "sessions"), (_event, name) => {
        if (name?.endsWith(".tmp")) {
          child.kill("SIGKILL");
          watcher.close();
          resolve();
        }
      });
    });
    child.send({ id: nextId("fork"), method: "session.fork", params: { id: "large" } });
    await tempSeen;
    await child.exited;
    // Killed mid-copy (40 MiB take far longer than the kill): its temp file, no new history.
    const left = names(target.home);
    assert.deepEqual(
      left.filter((name) => name.endsWith(".jsonl")),
      ["large.jsonl"],
      "no half session",
    );
    assert.equal(left.filter((name) => name.endsWith(".tmp")).length, 1, "the orphan temp file");
    const next = track(await startReady(target, ["session.fork"]));
    const again = await next.call("session.fork", { id: "large", turn_id: "t-1" });
    assert.equal(again.turns, 1);
    assert.deepEqual(
      names(target.home).filter((name) => name.endsWith(".tmp")),
      [],
      "the orphan of the killed fork is gone",
    );
    assert.ok(readFileSync(historyPath(target.home, "large")).equals(sourceBytes));
    await next.close();
  });
});

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  watch,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { AgentClient } from "../../src/client/index.js";
import { nextId, type Sandbox, sandbox, startReady, type TestChild } from "../helpers/child.js";
import { within } from "../helpers/fakes.js";

/**
 * session.fork carries the derived histories of the subagents it keeps (docs/store.md, "Forks";
 * docs/local-agent-protocol.md "session.fork"): those whose `agent` call is among the copied
 * records, never those of the dropped turns nor unreferenced ones; each copied whole after its
 * own `session_meta`; an invalid or unsafe one left out; linked in the fork's commit, so a fork
 * killed before it leaves no new session and the next fork removes what it left.
 */
const TS = "2026-12-07T10:00:00.000Z";
const CAPS = ["session.fork", "session.history", "subagents"];

let box: Sandbox | undefined;
let children: TestChild[] = [];
function track(child: TestChild): TestChild {
  children.push(child);
  return child;
}
afterEach(() => {
  for (const child of children) child.kill();
  children = [];
  box?.cleanup();
  box = undefined;
});

function storeBox(): Sandbox {
  box = sandbox("mc-fork-derived-");
  mkdirSync(join(box.home, "sessions"), { mode: 0o700 });
  return box;
}

const sessionsDir = (b: Sandbox) => join(b.home, "sessions");
const file = (b: Sandbox, name: string) => join(sessionsDir(b), name);
const names = (b: Sandbox) => readdirSync(sessionsDir(b)).sort();

/** `src`: turns t-1 and t-2, each with one `agent` call (t-n.1) whose derived history exists. */
function writeStore(b: Sandbox, derivedExtra: Record<string, string[]> = {}): void {
  const cwd = b.workspace;
  const usage = { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0, reasoning_tokens: 0 };
  const lines = [{ type: "session_meta", ts: TS, cwd, id: "src" }];
  for (const n of [1, 2]) {
    const base = { ts: TS, cwd, turn_id: `t-${n}` };
    const item = `t-${n}.1`;
    lines.push(
      { type: "turn_start", ...base, model: "m/m", effort: null, permissions: "ask" } as never,
      { type: "user_message", ...base, text: `question ${n}` } as never,
      {
        type: "tool_call",
        ...base,
        item_id: item,
        call_id: `c${n}`,
        tool: "agent",
        input: {},
      } as never,
      {
        type: "tool_result",
        ...base,
        item_id: item,
        call_id: `c${n}`,
        status: "completed",
        output: "ok",
      } as never,
      { type: "turn_end", ...base, status: "completed", stop_reason: "end_turn", usage } as never,
    );
    writeDerived(b, item, derivedExtra[item] ?? []);
  }
  writeFileSync(file(b, "src.jsonl"), lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
  // A derived history no kept record names (a turn killed before its call was recorded).
  writeDerived(b, "t-9.1");
}

function writeDerived(b: Sandbox, item: string, extra: string[] = []): void {
  const cwd = b.workspace;
  const base = { ts: TS, cwd, turn_id: item };
  const lines = [
    JSON.stringify({ type: "session_meta", ts: TS, cwd, id: `src.${item}` }),
    JSON.stringify({
      type: "turn_start",
      ...base,
      model: "m/m",
      effort: null,
      permissions: "read_only",
    }),
    JSON.stringify({ type: "user_message", ...base, text: `task of ${item}` }),
    ...extra,
  ];
  writeFileSync(file(b, `src.${item}.jsonl`), lines.map((l) => `${l}\n`).join(""));
}

const linesOf = (path: string) => readFileSync(path, "utf8").trimEnd().split("\n");

describe("session.fork: derived histories", () => {
  test("a fork at t-1 carries t-1's subagent only; a whole fork both; never an unnamed one", async () => {
    const b = storeBox();
    writeStore(b);
    const child = track(await startReady(b, CAPS));
    const atFirst = await child.call("session.fork", { id: "src", turn_id: "t-1" });
    const id = atFirst.session.id as string;
    assert.deepEqual(
      names(b).filter((n) => n.startsWith(`${id}.`)),
      [`${id}.jsonl`, `${id}.t-1.1.jsonl`],
    );
    const copy = linesOf(file(b, `${id}.t-1.1.jsonl`));
    const meta = JSON.parse(copy[0] as string);
    assert.equal(meta.type, "session_meta");
    assert.equal(meta.id, `${id}.t-1.1`);
    assert.deepEqual(meta.forked_from, { id: "src.t-1.1", turn_id: null });
    assert.deepEqual(copy.slice(1), linesOf(file(b, "src.t-1.1.jsonl")).slice(1), "byte for byte");
    // Read back through the protocol, as the fork's subagent.
    const page = await child.call("session.subagent_history", { id, subagent_id: "t-1.1" });
    assert.deepEqual(
      page.events.map((e: { type: string }) => e.type),
      ["session_meta", "turn_start", "user_message"],
    );
    const dropped = await child.request("session.subagent_history", { id, subagent_id: "t-2.1" });
    assert.equal(dropped.error?.code, "session_missing");
    const whole = await child.call("session.fork", { id: "src" });
    const wid = whole.session.id as string;
    assert.deepEqual(
      names(b).filter((n) => n.startsWith(`${wid}.`)),
      [`${wid}.jsonl`, `${wid}.t-1.1.jsonl`, `${wid}.t-2.1.jsonl`],
      "t-9.1 is named by no record: not copied",
    );
    assert.ok(existsSync(file(b, "src.t-9.1.jsonl")), "the source's files stay");
    assert.deepEqual(
      names(b).filter((n) => n.endsWith(".tmp")),
      [],
      "no temp file left",
    );
  });

  test("an invalid or unsafe derived history is left out; the fork and the others go on", async () => {
    const b = storeBox();
    writeStore(b, { "t-1.1": ["{not json"] });
    // t-2.1 becomes a symlink to a valid copy: never followed.
    const elsewhere = join(b.root, "elsewhere.jsonl");
    writeFileSync(elsewhere, readFileSync(file(b, "src.t-2.1.jsonl")));
    spawnSync("rm", [file(b, "src.t-2.1.jsonl")]);
    symlinkSync(elsewhere, file(b, "src.t-2.1.jsonl"));
    const child = track(await startReady(b, CAPS));
    const forked = await child.call("session.fork", { id: "src" });
    const id = forked.session.id as string;
    assert.deepEqual(
      names(b).filter((n) => n.startsWith(`${id}.`)),
      [`${id}.jsonl`],
    );
    assert.equal(forked.turns, 2);
  });

  test("what a killed fork left: an uncommitted link goes, a committed one stays, a stranger stays", async () => {
    const b = storeBox();
    writeStore(b);
    // A pid that is certainly dead: a process that has exited.
    const dead = spawnSync("true").pid as number;
    const temp = (id: string) => file(b, `.${id}.t-1.1.jsonl.${dead}.0123456789ab.tmp`);
    // Killed between its derived link and its own: no history X, the link is the temp's inode.
    writeFileSync(temp("X"), "{}\n");
    linkSync(temp("X"), file(b, "X.t-1.1.jsonl"));
    // Killed after its commit, before its cleanup: history Y exists; its subagent's stays.
    writeFileSync(file(b, "Y.jsonl"), readFileSync(file(b, "src.jsonl")));
    writeFileSync(temp("Y"), "{}\n");
    linkSync(temp("Y"), file(b, "Y.t-1.1.jsonl"));
    // A file of the same name that is not the temp's: never touched.
    writeFileSync(temp("Z"), "{}\n");
    writeFileSync(file(b, "Z.t-1.1.jsonl"), "{}\n");
    const child = track(await startReady(b, CAPS));
    await child.call("session.fork", { id: "src", turn_id: "t-1" });
    const left = names(b);
    assert.ok(!left.includes("X.t-1.1.jsonl"), "the uncommitted fork's link is gone");
    assert.ok(left.includes("Y.t-1.1.jsonl"), "the committed fork's subagent stays");
    assert.ok(left.includes("Z.t-1.1.jsonl"), "another file is never removed");
    assert.deepEqual(
      left.filter((n) => n.endsWith(".tmp")),
      [],
      "every dead temp file is gone",
    );
  });

  test("the SDK's client.subagentHistory follows the pages of a subagent's history, and its fork's", async () => {
    const b = storeBox();
    const big = (n: number) =>
      JSON.stringify({
        type: "user_message",
        ts: TS,
        cwd: b.workspace,
        text: `${n}`.repeat(20_000),
      });
    writeStore(b, { "t-1.1": [big(1), big(2), big(3)] });
    const client = await within(
      AgentClient.spawn({
        cwd: b.workspace,
        env: { PATH: process.env.PATH, MC_HOME: b.home, HOME: b.home },
        capabilities: ["session.fork", "session.open", "subagents"],
      }),
    );
    try {
      const pages: Record<string, unknown>[][] = [];
      for await (const page of client.subagentHistory("src", "t-1.1")) pages.push(page);
      assert.ok(pages.length >= 3, "one 20 KB record a page");
      const onDisk = linesOf(file(b, "src.t-1.1.jsonl")).map((l) => JSON.parse(l));
      assert.deepEqual(pages.flat(), onDisk);
      const forked = await client.fork("src", { turnId: "t-1" });
      const copied: Record<string, unknown>[] = [];
      for await (const page of client.subagentHistory(forked.session.id, "t-1.1"))
        copied.push(...page);
      assert.deepEqual(copied.slice(1), onDisk.slice(1), "the fork's copy, after its own meta");
    } finally {
      await within(client.close());
    }
  });

  test("kill -9 while a subagent's history is copied: no new session; the next fork cleans up", async () => {
    const b = storeBox();
    const record = JSON.stringify({
      type: "user_message",
      ts: TS,
      cwd: "",
      text: "x".repeat(256 * 1024),
    });
    const big = record.replace('"cwd":""', `"cwd":${JSON.stringify(b.workspace)}`);
    writeStore(b, { "t-1.1": Array.from({ length: 160 }, () => big) });
    const before = names(b);
    const child = track(await startReady(b, CAPS));
    const seen = new Promise<void>((resolve) => {
      const watcher = watch(sessionsDir(b), (_event, name) => {
        if (name && /\.t-1\.1\.jsonl\.\d+\.[0-9a-f]{12}\.tmp$/.test(name)) {
          child.kill("SIGKILL");
          watcher.close();
          resolve();
        }
      });
    });
    child.send({ id: nextId("fork"), method: "session.fork", params: { id: "src" } });
    await within(seen, 30_000, "the subagent's temp file");
    await child.exited;
    const left = names(b);
    assert.deepEqual(
      left.filter((n) => n.endsWith(".jsonl")),
      before.filter((n) => n.endsWith(".jsonl")),
      "no new history, primary or derived",
    );
    const next = track(await startReady(b, CAPS));
    const again = await next.call("session.fork", { id: "src", turn_id: "t-2" });
    assert.equal(again.turns, 2);
    assert.deepEqual(
      names(b).filter((n) => n.endsWith(".tmp")),
      [],
      "the orphans are gone",
    );
    await next.close();
  });
});

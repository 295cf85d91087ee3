import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CaseContext, ConformanceCase } from "../case.js";
import { held, text } from "../chat-server.js";
import type { TestChild } from "../harness.js";
import { homeSnapshot, snapshotDiff } from "../home-snapshot.js";
import { sessionsFolder } from "../session-store.js";
import { readyOrSkip } from "../skip.js";
import { runTurn, startTurn } from "../turn-driver.js";
import { TURN_CAPABILITIES, turnChildOptions, withTurnWorld } from "../turn-world.js";

/**
 * `session.fork` (docs/local-agent-protocol.md "session.fork"): a new saved session holding the
 * source's history up to and including a turn (or whole), named in its `session_meta`, attached
 * like `session.open`; the source is only read. Checked through frames and the store's files.
 */
const FORK_CAPABILITIES = [...TURN_CAPABILITIES, "session.fork"];
const TS = "2026-11-29T10:00:00.000Z";

function historyPath(ctx: CaseContext, id: string): string {
  return join(ctx.box.home, "sessions", `${id}.jsonl`);
}

function linesOf(ctx: CaseContext, id: string): string[] {
  const raw = readFileSync(historyPath(ctx, id), "utf8");
  assert.ok(raw.endsWith("\n"), "the history ends with a whole, LF-ended record");
  return raw.slice(0, -1).split("\n");
}

/** A history of `turns` hand-written turns (as docs/store.md describes the records). */
function writeTurns(ctx: CaseContext, id: string, turns: string[], tail = ""): string {
  const cwd = ctx.box.workspace;
  const lines: unknown[] = [{ type: "session_meta", ts: TS, cwd, id }];
  for (const turn of turns) {
    const base = { ts: TS, cwd, turn_id: turn };
    const usage = {
      input_tokens: 1,
      output_tokens: 1,
      cached_input_tokens: 0,
      reasoning_tokens: 0,
    };
    lines.push(
      { type: "turn_start", ...base, model: "kit/kit-1", effort: null, permissions: "ask" },
      { type: "user_message", ...base, text: `question of ${turn}` },
      { type: "assistant_message", ...base, text: `answer of ${turn}`, model: "kit/kit-1" },
      { type: "turn_end", ...base, status: "completed", stop_reason: "end_turn", usage },
    );
  }
  const raw = `${lines.map((l) => JSON.stringify(l)).join("\n")}\n${tail}`;
  writeFileSync(join(sessionsFolder(ctx.box), `${id}.jsonl`), raw);
  return raw;
}

async function forkReady(ctx: CaseContext): Promise<TestChild> {
  return readyOrSkip(ctx, FORK_CAPABILITIES, turnChildOptions());
}

type ForkResult = {
  session: { id: string; title: string | null };
  forked_from: { id: string; turn_id: string | null };
  turns: number;
};

async function fork(child: TestChild, params: object): Promise<ForkResult> {
  const frame = await child.request("session.fork", params);
  assert.ok(frame.result, `session.fork failed: ${JSON.stringify(frame.error)}`);
  return frame.result as unknown as ForkResult;
}

/** The fork's first line is its own session_meta naming the source; the rest is `expected`. */
function assertForkLines(ctx: CaseContext, result: ForkResult, expected: string[]): void {
  const [meta, ...rest] = linesOf(ctx, result.session.id);
  const parsed = JSON.parse(meta ?? "{}") as Record<string, unknown>;
  assert.equal(parsed.type, "session_meta");
  assert.equal(parsed.id, result.session.id);
  assert.equal(parsed.cwd, ctx.box.workspace);
  assert.deepEqual(parsed.forked_from, result.forked_from);
  assert.deepEqual(rest, expected, "the fork holds the source's records byte for byte");
}

export const SESSION_FORK_CASES: ConformanceCase[] = [
  {
    id: "sessions.fork.continues",
    tier: "MUST",
    clause:
      "local-agent-protocol.md session.fork: a new saved session whose history is the source's up to and including that turn, attached like session.open; the source is untouched.",
    title: "a fork at the first of two turns goes on with its own turn; the source stays as it was",
    async run(ctx) {
      await withTurnWorld(
        ctx,
        async ({ child, server }) => {
          await child.call("session.create", {});
          server.reply(text("First answer."), text("Second answer."));
          const first = await runTurn(child, "first question");
          const second = await runTurn(child, "second question");
          const source = first.result.session_id;
          const before = readFileSync(historyPath(ctx, source));
          const result = await fork(child, { id: source, turn_id: first.result.turn_id });
          assert.notEqual(result.session.id, source);
          assert.deepEqual(result.forked_from, { id: source, turn_id: first.result.turn_id });
          assert.equal(result.turns, 1);
          assert.equal(result.session.title, "first question");
          const status = (await child.request("status", {})).result as {
            attachment: { session_id: string; saved: boolean };
          };
          assert.deepEqual(status.attachment, { session_id: result.session.id, saved: true });
          const sourceLines = before.toString("utf8").slice(0, -1).split("\n");
          const endOfFirst = sourceLines.findIndex(
            (l) => l.includes('"turn_end"') && l.includes(String(first.result.turn_id)),
          );
          assertForkLines(ctx, result, sourceLines.slice(1, endOfFirst + 1));
          // The fork's own turn: its context has the first turn and not the second.
          server.reply(text("Forked answer."));
          const own = await runTurn(child, "forked question");
          assert.equal(own.result.session_id, result.session.id);
          assert.equal(own.result.status, "completed");
          const sent = JSON.stringify(server.requests.at(-1)?.body?.messages ?? []);
          assert.ok(sent.includes("first question") && sent.includes("First answer."));
          assert.ok(!sent.includes("second question") && !sent.includes("Second answer."));
          assert.ok(readFileSync(historyPath(ctx, source)).equals(before), "source unchanged");
          assert.notEqual(second.result.turn_id, own.result.turn_id);
          const list = await child.call("session.list", {});
          const ids = list.sessions.map((s) => s.id);
          assert.ok(ids.includes(source) && ids.includes(result.session.id), "both listed");
        },
        { capabilities: FORK_CAPABILITIES },
      );
    },
  },
  {
    id: "sessions.fork.whole-and-middle",
    tier: "MUST",
    clause:
      "local-agent-protocol.md session.fork: without turn_id the whole history; with one, every record up to and including that turn's turn_end.",
    title: "a whole fork copies every record; a fork at a middle turn stops at its turn_end",
    async run(ctx) {
      writeTurns(ctx, "src", ["t-1", "t-2", "t-3"]);
      const sourceLines = linesOf(ctx, "src");
      const child = await forkReady(ctx);
      const whole = await fork(child, { id: "src" });
      assert.deepEqual(whole.forked_from, { id: "src", turn_id: null });
      assert.equal(whole.turns, 3);
      assertForkLines(ctx, whole, sourceLines.slice(1));
      const middle = await fork(child, { id: "src", turn_id: "t-2" });
      assert.equal(middle.turns, 2);
      assertForkLines(ctx, middle, sourceLines.slice(1, 9));
      // A fork of a fork: its source is the fork, and the cut applies to the fork's turns.
      const again = await fork(child, { id: middle.session.id, turn_id: "t-1" });
      assert.deepEqual(again.forked_from, { id: middle.session.id, turn_id: "t-1" });
      assertForkLines(ctx, again, sourceLines.slice(1, 5));
      const opened = await child.call("session.open", { id: again.session.id });
      assert.equal(opened.session.id, again.session.id);
    },
  },
  {
    id: "sessions.fork.torn-tail",
    tier: "MUST",
    clause:
      "turns.md section 8 (torn tails) and session.fork: a torn last line is no record; a fork never copies it and is a valid history.",
    title: "a source ending in a torn tail forks without it",
    async run(ctx) {
      const raw = writeTurns(ctx, "torn", ["t-1"], '{"type":"user_mess');
      const child = await forkReady(ctx);
      const result = await fork(child, { id: "torn" });
      assertForkLines(ctx, result, raw.split("\n").slice(1, -1));
      assert.equal(readFileSync(historyPath(ctx, "torn"), "utf8"), raw, "source unchanged");
      const second = await child.request("session.open", { id: result.session.id });
      assert.ok(second.result, "the fork opens");
    },
  },
  {
    id: "sessions.fork.refusals",
    tier: "MUST",
    clause:
      "session.fork: the source is opened under session.open's rules, an unknown turn is turn_missing; a refusal writes nothing and keeps the attachment.",
    title: "bad params, missing, foreign and invalid sources and unknown turns change nothing",
    async run(ctx) {
      writeTurns(ctx, "good", ["t-1"]);
      const folder = sessionsFolder(ctx.box);
      writeFileSync(
        join(folder, "foreign.jsonl"),
        `${JSON.stringify({ type: "session_meta", ts: TS, cwd: "/elsewhere/app" })}\n`,
      );
      writeFileSync(
        join(folder, "broken.jsonl"),
        `not json\n${JSON.stringify({ type: "x", ts: TS })}\n`,
      );
      const child = await forkReady(ctx);
      const { session } = await child.call("session.create", {});
      const before = homeSnapshot(ctx.box.home);
      const refusals: [object, string][] = [
        [{}, "invalid_params"],
        [{ id: "good", extra: 1 }, "invalid_params"],
        [{ id: "no such id" }, "invalid_params"],
        [{ id: "good", turn_id: "" }, "invalid_params"],
        [{ id: "absent" }, "session_missing"],
        [{ id: session.id }, "session_missing"],
        [{ id: "foreign" }, "cwd_mismatch"],
        [{ id: "broken" }, "session_invalid"],
        [{ id: "good", turn_id: "t-404" }, "turn_missing"],
      ];
      for (const [params, code] of refusals)
        assert.equal(await child.errorCode("session.fork", params), code, JSON.stringify(params));
      assert.deepEqual(snapshotDiff(before, homeSnapshot(ctx.box.home)), [], "nothing written");
      const status = (await child.request("status", {})).result as {
        attachment: { session_id: string };
      };
      assert.equal(status.attachment.session_id, session.id, "the attachment is unchanged");
    },
  },
  {
    id: "sessions.fork.busy",
    tier: "MUST",
    clause: "session.fork is admitted on the session worker: while a turn runs it is busy.",
    title: "a fork while a turn runs answers busy and writes nothing",
    async run(ctx) {
      await withTurnWorld(
        ctx,
        async ({ child, server }) => {
          writeTurns(ctx, "other", ["t-1"]);
          await child.call("session.create", {});
          let release = () => {};
          const released = new Promise<void>((resolve) => {
            release = resolve;
          });
          server.reply(held(text("A slow answer."), 2, released));
          const turn = startTurn(child, "hold on");
          await turn.event("message_delta");
          // The running turn's lock comes and goes; a history or temp file must not.
          const names = () =>
            readdirSync(sessionsFolder(ctx.box))
              .filter((name) => !name.endsWith(".lock"))
              .sort();
          const before = names();
          assert.equal(await child.errorCode("session.fork", { id: "other" }), "busy");
          assert.deepEqual(names(), before, "no new history or temp file");
          release();
          await turn.response;
          assert.deepEqual(names(), before);
        },
        { capabilities: FORK_CAPABILITIES },
      );
    },
  },
];

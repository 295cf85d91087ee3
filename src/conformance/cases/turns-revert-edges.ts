import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CaseContext, ConformanceCase } from "../case.js";
import { call, text, toolCalls } from "../chat-server.js";
import type { Frame } from "../frame.js";
import { nextId, type TestChild } from "../harness.js";
import { CaseSkipped } from "../skip.js";
import { bodiesOf, runTurn } from "../turn-driver.js";
import { TURN_CAPABILITIES, type TurnWorld, withTurnWorld } from "../turn-world.js";

/**
 * `turn.revert` at its edges (docs/checkpoints.md, "What a checkpoint records"; issue 35): mc's
 * own store inside the workspace is never recorded nor touched, a turn's `*` `.gitignore` is
 * reverted with what it hid, a FIFO where a recorded file was is replaced. Checked through
 * frames and the temp workspace and home.
 */
const CAPABILITIES = [...TURN_CAPABILITIES, "turn.revert"];
const CLAUSE = "docs/checkpoints.md, What a checkpoint records";
const ORIGINAL = "the original line\n";

type Loose = Record<string, unknown>;

/** A full_access turn of tool calls; skips without checkpoints. */
async function turnOf(world: TurnWorld, calls: ReturnType<typeof call>[]): Promise<string> {
  world.server.reply(toolCalls(calls), text("Done."));
  const { result, events } = await runTurn(world.child, "Change the files.", "full_access");
  assert.equal(result.status, "completed");
  const started = bodiesOf(events, "turn_started")[0] as { checkpoint?: unknown } | undefined;
  if (started?.checkpoint === null)
    throw new CaseSkipped("checkpoints are unavailable in this child (no git on its PATH?)");
  assert.deepEqual(bodiesOf(events, "checkpoint_failed"), [], "every checkpoint was recorded");
  return result.turn_id;
}

function revert(child: TestChild, params: object): Promise<Frame> {
  return child.request("turn.revert", params, nextId("revert"), 60_000);
}

/**
 * `a.txt` holds ORIGINAL; in a new session one turn makes `calls`, `meddle` then changes the
 * workspace behind the child's back, that turn is reverted with `force`, and `check` reads the
 * revert's answer while the world still stands.
 */
async function forceRevertOneTurn(
  ctx: CaseContext,
  calls: ReturnType<typeof call>[],
  steps: { meddle?: () => void; check: (done: Frame) => void },
): Promise<void> {
  writeFileSync(join(ctx.box.workspace, "a.txt"), ORIGINAL);
  await withTurnWorld(
    ctx,
    async (world) => {
      const { session } = await world.child.call("session.create", {});
      const turnId = await turnOf(world, calls);
      steps.meddle?.();
      steps.check(
        await revert(world.child, { session_id: session.id, turn_id: turnId, force: true }),
      );
    },
    { capabilities: CAPABILITIES },
  );
}

/** The case's context with the child's workspace one folder up: MC_HOME lies inside it. */
function homeInsideWorkspace(ctx: CaseContext): CaseContext {
  const cwd = ctx.box.root;
  return {
    ...ctx,
    box: { ...ctx.box, workspace: cwd },
    spawn: (extra = {}) => ctx.spawn({ cwd, ...extra }),
    ready: (capabilities, extra = {}) => ctx.ready(capabilities, { cwd, ...extra }),
  };
}

/** Every file under a folder with its bytes (a folder's identity for "intact"). */
function filesUnder(dir: string, prefix = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) Object.assign(out, filesUnder(path, `${prefix}${entry.name}/`));
    else if (entry.isFile()) out[`${prefix}${entry.name}`] = readFileSync(path, "latin1");
  }
  return out;
}

export const TURN_REVERT_EDGE_CASES: ConformanceCase[] = [
  {
    id: "turns.revert.store_inside_workspace",
    tier: "MUST",
    clause: `${CLAUSE}: MC_HOME is never part of a checkpoint or a revert, wherever it lies; a revert never touches a file outside what the checkpoint recorded.`,
    title: "MC_HOME inside the workspace: a forced revert leaves every session's history intact",
    async run(ctx) {
      const rooted = homeInsideWorkspace(ctx);
      const ws = rooted.box.workspace;
      writeFileSync(join(ws, "a.txt"), ORIGINAL);
      await withTurnWorld(
        rooted,
        async (world) => {
          const { child } = world;
          const other = (await child.call("session.create", {})) as { session: { id: string } };
          await turnOf(world, [call("write_file", { path: "b.txt", content: "b\n" }, "c_b")]);
          const { session } = await child.call("session.create", {});
          const first = await turnOf(world, [
            call("write_file", { path: "a.txt", content: "one\n" }, "c_1"),
          ]);
          await turnOf(world, [call("write_file", { path: "a.txt", content: "two\n" }, "c_2")]);
          const latest = await turnOf(world, [
            call("write_file", { path: "made.txt", content: "made\n" }, "c_3"),
          ]);
          const last = await revert(child, { session_id: session.id, turn_id: latest });
          assert.ok(last.result, JSON.stringify(last.error));
          assert.equal(
            (last.result as Loose).workspace_changed,
            false,
            "MC_HOME's changes are not the workspace's",
          );
          const sessions = join(ctx.box.home, "sessions");
          const otherHistory = readFileSync(join(sessions, `${other.session.id}.jsonl`), "latin1");
          const forced = await revert(child, {
            session_id: session.id,
            turn_id: first,
            force: true,
          });
          assert.ok(forced.result, JSON.stringify(forced.error));
          for (const file of (forced.result as { files: { path: string }[] }).files)
            assert.ok(!file.path.startsWith("home/"), `a revert listed ${file.path}`);
          assert.equal(readFileSync(join(ws, "a.txt"), "utf8"), ORIGINAL);
          assert.equal(existsSync(join(ws, "made.txt")), false);
          assert.equal(
            readFileSync(join(sessions, `${other.session.id}.jsonl`), "latin1"),
            otherHistory,
            "another session's history is intact",
          );
          const histories = Object.keys(filesUnder(sessions)).filter((n) => n.endsWith(".jsonl"));
          assert.equal(histories.length, 2, "both histories are there");
        },
        { capabilities: CAPABILITIES },
      );
    },
  },
  {
    id: "turns.revert.ignore_all",
    tier: "MUST",
    clause: `${CLAUSE}: a revert restores the workspace's ignore files too, and never reports reverted for files it did not restore.`,
    title: "a turn that writes * to .gitignore is reverted whole, .gitignore included",
    async run(ctx) {
      const ws = ctx.box.workspace;
      const calls = [
        call("write_file", { path: ".gitignore", content: "*\n" }, "c_ignore"),
        call("write_file", { path: "a.txt", content: "rewritten\n" }, "c_a"),
        call("write_file", { path: "made.txt", content: "made\n" }, "c_made"),
      ];
      await forceRevertOneTurn(ctx, calls, {
        check: (done) => {
          assert.ok(done.result, JSON.stringify(done.error));
          assert.equal(readFileSync(join(ws, "a.txt"), "utf8"), ORIGINAL);
          assert.equal(existsSync(join(ws, ".gitignore")), false, ".gitignore is removed");
          assert.equal(existsSync(join(ws, "made.txt")), false, "the file it hid is removed");
          const listed = (done.result as { files: { path: string }[] }).files.map((f) => f.path);
          assert.ok(listed.includes("made.txt"), `the result lists made.txt: ${listed}`);
        },
      });
    },
  },
  {
    id: "turns.revert.fifo",
    tier: "MUST",
    clause: `${CLAUSE}: a FIFO where a recorded file was is replaced by a forced revert (or refused with a clear code), never internal_error.`,
    title: "a FIFO where a recorded file was: the forced revert restores the file",
    async run(ctx) {
      const ws = ctx.box.workspace;
      const calls = [call("write_file", { path: "a.txt", content: "rewritten\n" }, "c_a")];
      await forceRevertOneTurn(ctx, calls, {
        meddle: () => {
          rmSync(join(ws, "a.txt"));
          try {
            execFileSync("mkfifo", [join(ws, "a.txt")]);
          } catch {
            throw new CaseSkipped("no mkfifo on this machine");
          }
        },
        check: (done) => {
          assert.notEqual(done.error?.code, "internal_error", JSON.stringify(done.error));
          assert.ok(done.result, JSON.stringify(done.error));
          assert.ok(lstatSync(join(ws, "a.txt")).isFile(), "a.txt is a file again");
          assert.equal(readFileSync(join(ws, "a.txt"), "utf8"), ORIGINAL);
        },
      });
    },
  },
];

import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ConformanceCase } from "../case.js";
import { call, held, text, toolCalls } from "../chat-server.js";
import { within } from "../expect.js";
import type { Frame } from "../frame.js";
import { nextId, type TestChild } from "../harness.js";
import { homeSnapshot, snapshotDiff } from "../home-snapshot.js";
import { gate } from "../loopback.js";
import { CaseSkipped } from "../skip.js";
import { bodiesOf, historyOf, runTurn, startTurn } from "../turn-driver.js";
import { TURN_CAPABILITIES, type TurnWorld, withTurnWorld } from "../turn-world.js";

/**
 * `turn.revert` (docs/checkpoints.md): the capability and its `extensions.turn.checkpoints`, a
 * dry run that changes nothing, a revert that restores the files and appends one `revert`
 * record, `workspace_changed` after an outside edit then `force`, refused while a turn runs,
 * an unknown turn, and operation.cancel before it writes. Checked through frames and the temp
 * workspace and home.
 */
const REVERT_CAPABILITIES = [...TURN_CAPABILITIES, "turn.revert"];
const CLAUSE = "docs/checkpoints.md, turn.revert";
const ORIGINAL = "the original line\n";

type Loose = Record<string, unknown>;

/** A world negotiated for turn.revert, the workspace seeded with `a.txt`. */
function withRevertWorld(
  ctx: Parameters<ConformanceCase["run"]>[0],
  body: (world: TurnWorld) => Promise<void>,
): Promise<void> {
  writeFileSync(join(ctx.box.workspace, "a.txt"), ORIGINAL);
  return withTurnWorld(ctx, body, { capabilities: REVERT_CAPABILITIES });
}

/** A full_access turn that rewrites a.txt and creates made.txt; skips without checkpoints. */
async function editingTurn(
  { child, server }: TurnWorld,
  input = "Edit the files.",
): Promise<string> {
  server.reply(
    toolCalls([
      call("write_file", { path: "a.txt", content: "rewritten by the turn\n" }, "c_a"),
      call("write_file", { path: "made.txt", content: "made by the turn\n" }, "c_made"),
    ]),
    text("Done."),
  );
  const { result, events } = await runTurn(child, input, "full_access");
  assert.equal(result.status, "completed");
  const started = bodiesOf(events, "turn_started")[0] as { checkpoint?: unknown } | undefined;
  if (started?.checkpoint === null)
    throw new CaseSkipped("checkpoints are unavailable in this child (no git on its PATH?)");
  assert.match(String((started?.checkpoint as { id?: string })?.id), /^c-[0-9a-f]{32}$/);
  return result.turn_id;
}

async function revert(child: TestChild, params: object): Promise<Frame> {
  return child.request("turn.revert", params, nextId("revert"), 60_000);
}

function revertsOf(records: Record<string, unknown>[]): number {
  return records.filter((r) => r.type === "revert").length;
}

function read(world: TurnWorld, name: string): string | null {
  const path = join(world.ctx.box.workspace, name);
  return existsSync(path) ? readFileSync(path, "utf8") : null;
}

export const TURN_REVERT_CASES: ConformanceCase[] = [
  {
    id: "turns.revert.capability",
    tier: "MUST",
    clause: `${CLAUSE}: capability turn.revert; initialize.extensions.turn.checkpoints is {available, reason}.`,
    title: "turn.revert is negotiated and extensions.turn says whether checkpoints are available",
    async run(ctx) {
      const probe = ctx.spawn();
      try {
        const init = await probe.initialize(REVERT_CAPABILITIES);
        if (String(init.error?.code) === "unsupported_capability")
          throw new CaseSkipped("the child does not offer turn.revert");
        assert.ok(init.result, JSON.stringify(init.error));
        const result = init.result as {
          capabilities: string[];
          extensions: { turn?: { checkpoints?: { available?: unknown; reason?: unknown } } };
        };
        assert.ok(result.capabilities.includes("turn.revert"));
        const checkpoints = result.extensions.turn?.checkpoints;
        assert.equal(typeof checkpoints?.available, "boolean", JSON.stringify(checkpoints));
        if (checkpoints?.available) assert.equal(checkpoints.reason, null);
        else assert.equal(typeof checkpoints?.reason, "string");
      } finally {
        await probe.close();
      }
    },
  },
  {
    id: "turns.revert.dry_run",
    tier: "MUST",
    clause: `${CLAUSE}: dry_run returns the file list and a unified diff per file, without changing anything.`,
    title: "a dry run lists the files with their diffs and changes nothing",
    async run(ctx) {
      await withRevertWorld(ctx, async (world) => {
        const { child } = world;
        const { session } = await child.call("session.create", {});
        const turnId = await editingTurn(world);
        const history = (await historyOf(child, session.id)).length;
        const workspace = homeSnapshot(ctx.box.workspace);
        const frame = await revert(child, {
          session_id: session.id,
          turn_id: turnId,
          dry_run: true,
        });
        assert.ok(frame.result, JSON.stringify(frame.error));
        const result = frame.result as Loose & {
          files: { path: string; change: string; diff: string | null }[];
        };
        assert.equal(result.state, "dry_run");
        assert.equal(result.workspace_changed, false);
        const byPath = new Map(result.files.map((f) => [f.path, f]));
        assert.equal(byPath.get("a.txt")?.change, "restored");
        assert.match(
          String(byPath.get("a.txt")?.diff),
          /-rewritten by the turn\n\+the original line\n/,
        );
        assert.equal(byPath.get("made.txt")?.change, "removed");
        assert.deepEqual(snapshotDiff(workspace, homeSnapshot(ctx.box.workspace)), []);
        const records = await historyOf(child, session.id);
        assert.equal(records.length, history, "a dry run appends no record");
        assert.equal(revertsOf(records), 0);
      });
    },
  },
  {
    id: "turns.revert.restores",
    tier: "MUST",
    clause: `${CLAUSE}: restores the workspace files to their state before that turn (created files removed, changed ones restored) and appends a revert record; the turn cannot be reverted twice.`,
    title: "a revert restores a changed file, removes a created one, and records it once",
    async run(ctx) {
      await withRevertWorld(ctx, async (world) => {
        const { child } = world;
        const { session } = await child.call("session.create", {});
        const turnId = await editingTurn(world);
        assert.notEqual(read(world, "a.txt"), ORIGINAL);
        const frame = await revert(child, { session_id: session.id, turn_id: turnId });
        assert.ok(frame.result, JSON.stringify(frame.error));
        assert.equal((frame.result as Loose).state, "reverted");
        assert.equal((frame.result as Loose).turns_reverted, 1);
        assert.equal(read(world, "a.txt"), ORIGINAL, "a.txt holds its bytes from before the turn");
        assert.equal(read(world, "made.txt"), null, "the file the turn made is gone");
        const records = await historyOf(child, session.id);
        assert.equal(revertsOf(records), 1);
        assert.equal(records.at(-1)?.turn_id, turnId);
        const again = await revert(child, { session_id: session.id, turn_id: turnId });
        assert.equal(again.error?.code, "turn_missing", "a reverted turn is no longer revertable");
      });
    },
  },
  {
    id: "turns.revert.workspace_changed",
    tier: "MUST",
    clause: `${CLAUSE}: refused with workspace_changed when files changed since the session's last turn ended, unless force: true; the message names no file.`,
    title: "an outside edit: workspace_changed (nothing written), then force reverts",
    async run(ctx) {
      await withRevertWorld(ctx, async (world) => {
        const { child } = world;
        const { session } = await child.call("session.create", {});
        const turnId = await editingTurn(world);
        writeFileSync(join(ctx.box.workspace, "outside.txt"), "the user's own edit\n");
        const workspace = homeSnapshot(ctx.box.workspace);
        const refused = await revert(child, { session_id: session.id, turn_id: turnId });
        assert.equal(refused.error?.code, "workspace_changed", JSON.stringify(refused));
        assert.ok(!String(refused.error?.message).includes("outside.txt"), "no file named");
        assert.deepEqual(snapshotDiff(workspace, homeSnapshot(ctx.box.workspace)), []);
        assert.equal(revertsOf(await historyOf(child, session.id)), 0);
        const forced = await revert(child, {
          session_id: session.id,
          turn_id: turnId,
          force: true,
        });
        assert.ok(forced.result, JSON.stringify(forced.error));
        assert.equal((forced.result as Loose).workspace_changed, true);
        assert.equal(read(world, "a.txt"), ORIGINAL);
        assert.equal(read(world, "outside.txt"), null, "force overwrites the outside edit too");
      });
    },
  },
  {
    id: "turns.revert.turn_running",
    tier: "MUST",
    clause: `${CLAUSE}: runs on the session worker under the session lock: refused while a turn runs (busy or session_locked).`,
    title: "a revert while a turn of the session runs is refused and changes nothing",
    async run(ctx) {
      await withRevertWorld(ctx, async (world) => {
        const { child, server } = world;
        const { session } = await child.call("session.create", {});
        const turnId = await editingTurn(world);
        const door = gate();
        server.reply(held(text("A slow reply."), 1, door.wait));
        const turn = startTurn(child, "Take your time.", "full_access");
        try {
          await turn.event("turn_started");
          const workspace = homeSnapshot(ctx.box.workspace);
          const refused = await revert(child, { session_id: session.id, turn_id: turnId });
          assert.ok(
            ["busy", "session_locked"].includes(String(refused.error?.code)),
            JSON.stringify(refused),
          );
          assert.deepEqual(snapshotDiff(workspace, homeSnapshot(ctx.box.workspace)), []);
        } finally {
          door.open();
        }
        await within(turn.response, 30_000, "the held turn");
        assert.equal(revertsOf(await historyOf(child, session.id)), 0);
      });
    },
  },
  {
    id: "turns.revert.unknown_turn",
    tier: "MUST",
    clause: `${CLAUSE}: no turn of the session has that ID: turn_missing.`,
    title: "turn.revert naming no turn of the session: turn_missing, nothing written",
    async run(ctx) {
      await withRevertWorld(ctx, async (world) => {
        const { child } = world;
        const { session } = await child.call("session.create", {});
        await editingTurn(world);
        const workspace = homeSnapshot(ctx.box.workspace);
        for (const dryRun of [false, true]) {
          const frame = await revert(child, {
            session_id: session.id,
            turn_id: "t-never-a-turn-of-this-session",
            dry_run: dryRun,
          });
          assert.equal(frame.error?.code, "turn_missing", JSON.stringify(frame));
        }
        assert.deepEqual(snapshotDiff(workspace, homeSnapshot(ctx.box.workspace)), []);
      });
    },
  },
  {
    id: "turns.revert.cancel_before_write",
    tier: "MUST",
    clause: `${CLAUSE}: cancellable until it starts writing; extensions §Operation cancellation: a cancelled request has no effect.`,
    title:
      "operation.cancel in the same write as turn.revert: cancelled and nothing changed, or reverted",
    async run(ctx) {
      await withRevertWorld(ctx, async (world) => {
        const { child } = world;
        const { session } = await child.call("session.create", {});
        const turnId = await editingTurn(world);
        const workspace = homeSnapshot(ctx.box.workspace);
        const id = nextId("revert");
        const cancelId = nextId("cancel");
        const terminal = child.waitFor((f) => f.id === id, 60_000);
        const ack = child.waitFor((f) => f.id === cancelId, 60_000);
        const params = { session_id: session.id, turn_id: turnId };
        child.send(
          `${JSON.stringify({ id, method: "turn.revert", params })}\n` +
            `${JSON.stringify({ id: cancelId, method: "operation.cancel", params: { request_id: id } })}\n`,
        );
        const [answer, cancel] = await Promise.all([terminal, ack]);
        const records = await historyOf(child, session.id);
        if (answer.error) {
          assert.equal(answer.error.code, "operation_cancelled", JSON.stringify(answer));
          assert.ok(cancel.result, "the cancel was answered as taken");
          assert.deepEqual(snapshotDiff(workspace, homeSnapshot(ctx.box.workspace)), []);
          assert.equal(revertsOf(records), 0, "a cancelled revert records nothing");
          // Nothing was done: the same revert still works.
          const frame = await revert(child, params);
          assert.ok(frame.result, JSON.stringify(frame.error));
        } else {
          assert.equal((answer.result as Loose).state, "reverted");
          assert.equal(revertsOf(records), 1);
        }
        assert.equal(read(world, "a.txt"), ORIGINAL);
        assert.equal(revertsOf(await historyOf(child, session.id)), 1);
      });
    },
  },
];

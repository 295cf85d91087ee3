/**
 * kill -9 during a large turn.revert, then a retry by a new child that completes it: a turn's
 * shell changed 300 files (some of several MiB), removed some, made more; the revert's child is
 * killed at real moments seen from outside (the journal appearing, the k-th temp file appearing
 * in the workspace, the first created file unlinked). A new child then retries the same
 * `turn.revert`: the workspace equals the before-turn tree byte for byte (modes included), no
 * temp file is left, and the history holds exactly one `revert` record.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { answer, call, text } from "../fixtures/chat-completions-server.js";
import { nextId, startReady } from "../helpers/child.js";
import { treeDigest } from "../helpers/tree-digest.js";
import { MESS, seed, seen, TEMP } from "./revert-kill-kit.js";
import { type Loose, recordsOf, runApproving } from "./tool-turns.js";
import { REVERT_CAPS, type TurnWorld, turnWorld } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

type Trigger = { name: string; fires: (home: string, ws: string) => Promise<void> };

function nthTemp(k: number): Trigger {
  return {
    name: `the ${k}th temp file`,
    fires: (_home, ws) => {
      const names = new Set<string>();
      return seen(ws, (name) => {
        if (TEMP.test(name)) names.add(name);
        return names.size >= k;
      });
    },
  };
}

const TRIGGERS: Trigger[] = [
  {
    name: "the journal",
    fires: (home) => {
      mkdirSync(join(home, "checkpoints"), { recursive: true });
      return seen(join(home, "checkpoints"), (name) => /reverts\/[^/]+\.json$/.test(name));
    },
  },
  {
    name: "the first created file unlinked",
    fires: (_home, ws) =>
      seen(ws, (name) => name.startsWith("extra/")).then(() =>
        seen(ws, () => !existsSync(join(ws, "extra/deep/n1.txt"))),
      ),
  },
  nthTemp(1),
  nthTemp(3),
  nthTemp(10),
];

test("a large revert killed at many moments is finished by a retry, byte for byte", async () => {
  world = await turnWorld({ capabilities: REVERT_CAPS });
  const w = world;
  const ws = w.box.workspace;
  seed(ws);
  const before = treeDigest(ws);
  let midway = 0;
  for (const [round, trigger] of TRIGGERS.entries()) {
    const { session } = await w.child.call("session.create", {});
    w.server.reply(answer({ calls: [call("shell", { command: MESS }, `m${round}`)] }), text("Ok"));
    const run = await runApproving(w.child, `mess ${round}`, "full_access", []);
    assert.equal(run.result.status, "completed");
    const messed = treeDigest(ws);
    assert.notDeepEqual(messed, before);
    const params = { session_id: session.id, turn_id: run.result.turn_id };

    const killing = trigger.fires(w.box.home, ws).then(() => w.child.kill("SIGKILL"));
    const id = nextId("revert");
    let answered = false;
    const reply = w.child
      .waitFor((f) => f.id === id, 120_000)
      .then(
        () => {
          answered = true;
        },
        () => {},
      );
    w.child.send({ id, method: "turn.revert", params });
    await Promise.race([killing, reply]);
    if (!answered) await killing;
    w.child.kill("SIGKILL");
    await w.child.exited;
    const left = treeDigest(ws);
    if (!answered && JSON.stringify(left) !== JSON.stringify(messed)) midway++;

    w.child = await startReady(w.box, REVERT_CAPS, {
      testMethods: true,
      env: { DEMO_KEY: "sk-test" },
    });
    const retry: Loose = await w.child.request("turn.revert", params, undefined, 120_000);
    if (answered) assert.equal(retry.error?.code, "turn_missing", trigger.name);
    else assert.equal(retry.result?.state, "reverted", `${trigger.name}: ${JSON.stringify(retry)}`);
    assert.deepEqual(treeDigest(ws), before, `after ${trigger.name}`);
    assert.deepEqual(
      Object.keys(treeDigest(ws)).filter((path) => TEMP.test(path)),
      [],
      "no temp file left",
    );
    const records = await recordsOf(w.child, session.id);
    assert.equal(records.filter((r: Loose) => r.type === "revert").length, 1, trigger.name);
    const journals = join(w.box.home, "checkpoints");
    assert.deepEqual(treeDigestNames(journals), [], "no journal left");
  }
  // Most kills landed in the middle of the writes (not before the first, not after the last).
  assert.ok(midway >= 3, `only ${midway} kills landed mid-revert`);
});

/** The journals left under MC_HOME/checkpoints/<key>/reverts/. */
function treeDigestNames(root: string): string[] {
  return Object.keys(treeDigest(root)).filter((path) => /\/reverts\/.+/.test(path));
}

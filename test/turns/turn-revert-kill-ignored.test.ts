/**
 * A revert killed while one of its temp files exists, in a workspace whose `.gitignore` matches
 * that temp file's name (`*.tmp`, or `*` with exceptions): the checkpoint of the retry does not
 * see the temp file, so only the journal can name it. A new child's retry removes it and leaves
 * the before-turn tree byte for byte.
 */
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { answer, call, text } from "../fixtures/chat-completions-server.js";
import { nextId, startReady } from "../helpers/child.js";
import { treeDigest } from "../helpers/tree-digest.js";
import { frozenWithTemp, MESS, seed, TEMP } from "./revert-kill-kit.js";
import { type Loose, recordsOf, runApproving } from "./tool-turns.js";
import { REVERT_CAPS, type TurnWorld, turnWorld } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** Tries at catching the child with a temp file (nearly always the first). */
const TRIES = 5;

const IGNORES: Record<string, string> = {
  "*.tmp": "*.tmp\n",
  "* with exceptions": "*\n!*/\n!*.txt\n!*.bin\n!.gitignore\n",
};

for (const [name, ignore] of Object.entries(IGNORES))
  test(`a revert killed with a temp file the .gitignore hides (${name}): the retry removes it`, async () => {
    world = await turnWorld({ capabilities: REVERT_CAPS });
    const w = world;
    const ws = w.box.workspace;
    writeFileSync(join(ws, ".gitignore"), ignore);
    seed(ws);
    const before = treeDigest(ws);
    let caught: string | null = null;
    for (let round = 0; round < TRIES && caught === null; round++) {
      const { session } = await w.child.call("session.create", {});
      w.server.reply(
        answer({ calls: [call("shell", { command: MESS }, `m${round}`)] }),
        text("Ok"),
      );
      const run = await runApproving(w.child, `mess ${round}`, "full_access", []);
      assert.equal(run.result.status, "completed");
      const params = { session_id: session.id, turn_id: run.result.turn_id };
      const id = nextId("revert");
      const reply = w.child.waitFor((f) => f.id === id, 120_000);
      w.child.send({ id, method: "turn.revert", params });
      caught = await frozenWithTemp(w.child.pid as number, ws, reply);
      w.child.kill("SIGKILL");
      await w.child.exited;
      reply.catch(() => {});
      if (caught !== null) assert.ok(existsSync(join(ws, caught)), "the kill left a temp file");
      w.child = await startReady(w.box, REVERT_CAPS, {
        testMethods: true,
        env: { DEMO_KEY: "sk-test" },
      });
      const retry: Loose = await w.child.request("turn.revert", params, undefined, 120_000);
      if (caught !== null)
        assert.equal(retry.result?.state, "reverted", `${name}: ${JSON.stringify(retry.error)}`);
      const after = treeDigest(ws);
      assert.deepEqual(
        Object.keys(after).filter((path) => TEMP.test(path)),
        [],
        "no temp file left",
      );
      assert.deepEqual(differing(after, before), [], `round ${round}: the tree before the turn`);
      const records = await recordsOf(w.child, session.id);
      assert.equal(records.filter((r: Loose) => r.type === "revert").length, 1);
    }
    assert.ok(caught !== null, `no kill in ${TRIES} tries landed while a temp file existed`);
  });

/** The paths where two digests differ (short, unlike a whole digest in an assertion). */
function differing(a: Record<string, string>, b: Record<string, string>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((path) => a[path] !== b[path]);
}

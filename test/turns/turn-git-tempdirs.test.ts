/**
 * The git spawner's temp folder of a child killed with SIGKILL (no exit handler runs; issue 35,
 * item 13) is removed by the next child's first git call; a folder of a live process and
 * anything not named as the spawner names its folders stay. The children's TMPDIR is a folder
 * of the test's own, so no other process's folders are in play.
 */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { answer, call, text } from "../fixtures/chat-completions-server.js";
import { startReady } from "../helpers/child.js";
import { runApproving } from "./tool-turns.js";
import { TURN_CAPS, type TurnWorld, turnWorld } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function checkpointedTurn(w: TurnWorld, n: number): Promise<void> {
  w.server.reply(
    answer({ calls: [call("write_file", { path: `f${n}.txt`, content: `${n}\n` }, `w${n}`)] }),
    text("Done."),
  );
  const run = await runApproving(w.child, `turn ${n}`, "full_access", []);
  assert.equal(run.result.status, "completed");
}

function spawnerDirs(tmp: string): string[] {
  return readdirSync(tmp)
    .filter((name) => name.startsWith("mc-agent-git-"))
    .sort();
}

test("a killed child's git temp folder goes at the next child's first checkpoint", async () => {
  world = await turnWorld();
  const tmp = join(world.box.root, "tmp");
  mkdirSync(tmp);
  const env = { DEMO_KEY: "sk-test-secret-key", TMPDIR: tmp };
  await world.child.close();
  world.child = await startReady(world.box, TURN_CAPS, { testMethods: true, env });
  await world.child.call("session.create", {});
  await checkpointedTurn(world, 1);
  const killedPid = world.child.pid as number;
  const left = spawnerDirs(tmp);
  assert.equal(left.length, 1);
  assert.match(left[0] as string, new RegExp(`^mc-agent-git-${killedPid}-[A-Za-z0-9]{6}$`));
  world.child.kill("SIGKILL");
  await world.child.exited;
  assert.deepEqual(spawnerDirs(tmp), left, "kill -9 left it behind");
  // Kept: a live process's folder (this test's own pid) and a name the spawner never makes.
  const live = `mc-agent-git-${process.pid}-abcdef`;
  const other = "mc-agent-git-not-ours";
  for (const name of [live, other]) {
    mkdirSync(join(tmp, name));
    writeFileSync(join(tmp, name, "x"), "x");
  }

  world.child = await startReady(world.box, TURN_CAPS, { testMethods: true, env });
  await world.child.call("session.create", {});
  await checkpointedTurn(world, 2);
  const mine = new RegExp(`^mc-agent-git-${world.child.pid}-[A-Za-z0-9]{6}$`);
  const deadline = Date.now() + 20_000;
  while (spawnerDirs(tmp).includes(left[0] as string) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  const now = spawnerDirs(tmp);
  assert.ok(!now.includes(left[0] as string), `the killed child's folder is gone: ${now}`);
  assert.ok(now.includes(live) && now.includes(other), `kept: ${now}`);
  assert.equal(now.filter((name) => mine.test(name)).length, 1, `the new child's own: ${now}`);
});

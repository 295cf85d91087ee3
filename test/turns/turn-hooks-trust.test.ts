/**
 * Project hooks and trust (docs/hooks.md, docs/trust.md): a cloned repository's hooks run
 * nothing until the workspace is trusted; after trust (from the next child on) they run; an
 * edited hook waits for trust again. The global file's hooks run throughout.
 */
import assert from "node:assert/strict";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { startReady } from "../helpers/child.js";
import { type HookWorld, hookWorld } from "./hook-world.js";
import { DEMO_KEY } from "./provider-world.js";
import { runApproving } from "./tool-turns.js";
import { TURN_CAPS } from "./turn-harness.js";

let world: HookWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const CAPS = [...TURN_CAPS, "hooks", "workspace.trust", "settings.check"];
const projectHooks = (mark: string) => ({
  hooks: {
    UserPromptSubmit: [{ hooks: [{ type: "command", command: `touch ${mark}` }] }],
  },
});

test("project hooks wait for trust, run after it, and wait again once edited", async () => {
  world = await hookWorld("chat", {
    capabilities: CAPS,
    hooks: () => ({
      UserPromptSubmit: [{ hooks: [{ type: "command", command: "touch global.ran" }] }],
    }),
    project: projectHooks("project.ran"),
  });
  const { w } = world;
  const ws = w.box.workspace;
  const turn = async () => {
    await w.child.call("session.create", {});
    world?.reply("Hi.");
    const run = await runApproving(w.child, "hello", "ask", []);
    assert.equal(run.result.status, "completed");
  };
  const restart = async () => {
    await w.child.close();
    w.child = await startReady(w.box, CAPS, { testMethods: true, env: { DEMO_KEY } });
  };
  await turn();
  assert.ok(existsSync(join(ws, "global.ran")), "the global hook ran");
  assert.ok(!existsSync(join(ws, "project.ran")), "the untrusted project hook did not run");

  const answer = (await w.child.call(
    "workspace.trust" as never,
    { trusted: true } as never,
  )) as Record<string, unknown>;
  assert.equal(answer.configuration_reload, "restart_child");
  await restart();
  await turn();
  assert.ok(existsSync(join(ws, "project.ran")), "the trusted project hook ran");

  // Edited: a new command is a new hash, untrusted again.
  rmSync(join(ws, "project.ran"));
  writeFileSync(join(ws, ".mc", "config.json"), JSON.stringify(projectHooks("edited.ran")));
  await restart();
  await turn();
  assert.ok(!existsSync(join(ws, "edited.ran")), "the edited hook waits for trust again");
  const check = (await w.child.call("settings.check" as never, {} as never)) as Record<
    string,
    unknown
  >;
  assert.equal(check.trust, "changed");
});

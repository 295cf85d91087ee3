/**
 * Escalations and code runners through the real child and the real bubblewrap (docs/tools.md,
 * "Escalations and code runners"): `"sandbox": false` always asks, whatever allow_always rule
 * or rule kept at another level exists; only an allow_session given to an escalation in this
 * attachment spares the next one; and a code runner's rule stops sparing questions once the
 * model changed the workspace unseen (issue 35, item 4).
 */
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { answer, type CallSpec, text } from "../fixtures/chat-completions-server.js";
import { sandboxSkipReason, type UserBox, userBoxWorld } from "./sandbox-world.js";
import { bodiesOf, runApproving } from "./tool-turns.js";
import type { TurnWorld } from "./turn-harness.js";

const reason = sandboxSkipReason();

let world: TurnWorld | undefined;
let box: UserBox | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
  box?.cleanup();
  box = undefined;
});

const shell = (command: string, id: string, sandbox?: boolean): CallSpec => ({
  name: "shell",
  input: { command, ...(sandbox === undefined ? {} : { sandbox }) },
  id,
});
const write = (path: string, content: string, id: string): CallSpec => ({
  name: "write_file",
  input: { path, content },
  id,
});
/** A package.json whose `npm test` runs `script`. */
const pkg = (script: string) =>
  JSON.stringify({ name: "p", version: "1.0.0", scripts: { test: script } });

async function turn(w: TurnWorld, level: string, calls: CallSpec[], decisions: string[]) {
  for (const c of calls) w.server.reply(answer({ calls: [c] }));
  w.server.reply(text("Finished."));
  const run = await runApproving(w.child, "do the work", level, decisions);
  assert.equal(run.result.status, "completed");
  return run;
}

describe("escalations out of the sandbox", { skip: reason ?? false }, () => {
  test("an allow_always rule kept under ask does not let `npm test` out of the sandbox after the model rewrote the script", async () => {
    ({ world, box } = await userBoxWorld());
    const ws = box.workspace;
    const marker = join(box.userHome, "outside-marker");
    writeFileSync(join(ws, "package.json"), pkg("echo fine"));
    await turn(world, "ask", [shell("npm test", "a1")], ["allow_always"]);
    // The rule holds under ask (same attachment, nothing changed unseen): not asked again.
    await turn(world, "ask", [shell("npm test", "a2")], []);
    const run = await turn(
      world,
      "sandboxed",
      [
        write("package.json", pkg(`echo escaped > ${marker}`), "s1"),
        shell("npm test", "s2", false),
      ],
      ["deny"],
    );
    assert.equal(run.approvals[0].command, "npm test");
    assert.match(run.approvals[0].title, /^Run outside the sandbox: /);
    assert.ok(!existsSync(marker), "nothing ran outside the sandbox unasked");
    // Back under ask, the allow_always rule no longer spares `npm test`: the model changed the
    // workspace unseen since it was kept (package.json under sandboxed).
    await turn(world, "ask", [shell("npm test", "a3")], ["deny"]);
    assert.ok(!existsSync(marker));
  });

  test("allow_session given to an escalation spares the next one; allow_always and a session rule kept under ask do not", async () => {
    ({ world, box } = await userBoxWorld());
    const home = box.userHome;
    // A session rule for `touch` kept under ask: not a grant to leave the sandbox.
    await turn(world, "ask", [shell(`touch ${home}/under-ask`, "a1")], ["allow_session"]);
    const run = await turn(
      world,
      "sandboxed",
      [
        shell(`touch ${home}/esc-1`, "s1", false),
        shell(`touch ${home}/esc-2`, "s2", false),
        shell(`touch ${home}/esc-3`, "s3", false),
        shell(`mkdir ${home}/dir-1`, "s4", false),
        shell(`mkdir ${home}/dir-2`, "s5", false),
      ],
      ["allow_session", "allow_always", "deny"],
    );
    assert.deepEqual(
      run.approvals.map((a) => a.command),
      [`touch ${home}/esc-1`, `mkdir ${home}/dir-1`, `mkdir ${home}/dir-2`],
    );
    for (const name of ["under-ask", "esc-1", "esc-2", "esc-3", "dir-1"])
      assert.ok(existsSync(join(home, name)), name);
    assert.ok(!existsSync(join(home, "dir-2")), "allow_always granted no later escalation");
    assert.deepEqual(
      bodiesOf(run.events, "tool_done").map((d) => d.status),
      ["completed", "completed", "completed", "completed", "denied"],
    );
    // A new attachment starts with no grant: the same escalation asks again.
    await world.child.call("session.create", {});
    await turn(world, "sandboxed", [shell(`touch ${home}/esc-4`, "n1", false)], ["deny"]);
    assert.ok(!existsSync(join(home, "esc-4")));
  });

  test("a code runner's escalation grant lapses when the model changes the workspace unseen", async () => {
    ({ world, box } = await userBoxWorld());
    const ws = box.workspace;
    const first = join(box.userHome, "first");
    const second = join(box.userHome, "second");
    writeFileSync(join(ws, "package.json"), pkg(`echo one > ${first}`));
    await turn(
      world,
      "sandboxed",
      [
        shell("npm test", "s1", false),
        shell("npm test", "s2", false),
        // A command inside the sandbox may change anything in the workspace, unasked.
        shell(`echo '${pkg(`echo two > ${second}`)}' > package.json`, "s3"),
        shell("npm test", "s4", false),
      ],
      ["allow_session", "deny"],
    );
    assert.ok(existsSync(first), "the granted escalation ran");
    assert.ok(!existsSync(second), "after the unseen change it asked, and was denied");
  });
});

/**
 * A deny rule reads through respellings where commands run unasked (issue 35, item 7), through
 * the real child under full_access: with a deny on `rm`, `/bin/rm`, a redirection, a compound
 * command, an env assignment, `command`, `env`, `bash -c` and `$(...)` are all refused unasked;
 * a command whose program cannot be told asks, even under full_access.
 */
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { RULE_DENIED_OUTPUT } from "../../src/agent/tool-step.js";
import { answer, text } from "../fixtures/chat-completions-server.js";
import { shellCall } from "./call-specs.js";
import { bodiesOf, resultText, runApproving } from "./tool-turns.js";
import { type TurnWorld, turnWorld } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const RESPELLINGS = [
  "/bin/rm -f keep.txt",
  "rm -f keep.txt 2>/dev/null",
  "true; rm -f keep.txt",
  "true && rm -f keep.txt",
  "FOO=1 rm -f keep.txt",
  "command rm -f keep.txt",
  "env rm -f keep.txt",
  "nice -n 5 rm -f keep.txt",
  "bash -c 'rm -f keep.txt'",
  "echo $(rm -f keep.txt)",
  "ls | xargs rm -f keep.txt",
];

describe("turns: deny rules read through respellings", () => {
  test("with a deny on rm, every respelling is refused unasked under full_access; an unreadable one asks", async () => {
    world = await turnWorld();
    const ws = world.box.workspace;
    writeFileSync(join(ws, "keep.txt"), "k\n");
    await world.child.call("session.create", {});
    for (const c of [shellCall("rm keep.txt", "d0")]) world.server.reply(answer({ calls: [c] }));
    world.server.reply(text("Asked."));
    await runApproving(world.child, "remove it", "ask", ["deny_always"]);
    const calls = RESPELLINGS.map((command, i) => shellCall(command, `r${i}`));
    for (const c of calls) world.server.reply(answer({ calls: [c] }));
    world.server.reply(answer({ calls: [shellCall("R=rm; $R -f keep.txt", "u1")] }), text("Done."));
    const run = await runApproving(world.child, "try them", "full_access", ["deny"]);
    assert.equal(run.result.status, "completed");
    assert.equal(run.approvals.length, 1, "only the unreadable command asked");
    assert.equal(run.approvals[0].command, "R=rm; $R -f keep.txt");
    const done = bodiesOf(run.events, "tool_done");
    assert.deepEqual(
      done.map((d) => [d.status, d.summary]),
      [...RESPELLINGS.map(() => ["denied", "denied by a rule"]), ["denied", "denied by the user"]],
    );
    const last = world.server.requests.at(-1);
    for (const i of RESPELLINGS.keys()) assert.equal(resultText(last, `r${i}`), RULE_DENIED_OUTPUT);
    assert.ok(existsSync(join(ws, "keep.txt")), "nothing a deny rule refused ran");
  });
});

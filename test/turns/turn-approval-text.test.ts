/**
 * approval_requested shows a command as it is (issue 35, item 18): raw bidirectional overrides
 * and other invisible format characters in `title` and `command` arrive as `\u{202e}`, the
 * offered rule's text quotes them as bash would read them (`$'\u202e'`), and the command that
 * runs is still the model's own.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { answer, text } from "../fixtures/chat-completions-server.js";
import { runApproving } from "./tool-turns.js";
import { type TurnWorld, turnWorld } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("turns: approval text", () => {
  test("bidirectional overrides and isolates are escaped in title, command and rule text", async () => {
    world = await turnWorld();
    await world.child.call("session.create", {});
    const name = "invoice\u202eslx.sh";
    const isolated = "x\u2066y\u2069\u200f";
    world.server.reply(
      answer({ calls: [{ name: "shell", input: { command: `touch '${name}'` }, id: "c1" }] }),
      answer({
        calls: [{ name: "shell", input: { command: `bash -c 'touch ${isolated}'` }, id: "c2" }],
      }),
      text("Done."),
    );
    const run = await runApproving(world.child, "touch them", "ask", ["allow_once", "allow_once"]);
    assert.equal(run.result.status, "completed");
    const [first, second] = run.approvals;
    assert.equal(first.command, "touch 'invoice\\u{202e}slx.sh'");
    assert.equal(first.title, "Run touch 'invoice\\u{202e}slx.sh'");
    assert.equal(second.command, "bash -c 'touch x\\u{2066}y\\u{2069}\\u{200f}'");
    assert.equal(second.rule.text, "bash -c $'touch x\\u2066y\\u2069\\u200f'");
    assert.deepEqual(second.rule.words, ["bash", "-c", `touch ${isolated}`], "words are raw");
    // Only the rule's words (data, never displayed: `text` is) keep the raw characters.
    for (const { rule, ...shown } of run.approvals)
      assert.ok(!/[\u202e\u2066\u2069\u200f]/.test(JSON.stringify([shown, rule.text])));
    // What ran is what the model asked for, raw characters included.
    assert.ok(existsSync(join(world.box.workspace, name)));
    assert.ok(existsSync(join(world.box.workspace, isolated)));
  });
});

/**
 * `mc-agent chat`'s trust question at a real terminal (tmux, read as a person sees the screen;
 * docs/trust.md, "In the terminal"): in a folder whose `.mc/config.json` names a hook, `y`
 * trusts it and the backend about to start runs the hook in this very chat (and the next chat
 * does not ask); `n` trusts nothing, the hook stays off, and the next chat asks again; Ctrl-C at
 * the question trusts nothing and ends the chat with 130 before its backend starts.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { text } from "../fixtures/chat-completions-server.js";
import { CHILD_BIN } from "../helpers/child.js";
import { shellQuote } from "../helpers/pty.js";
import { hasTmux, TmuxRun } from "../helpers/tmux.js";
import { cliTurnWorld } from "./cli-turn-world.js";

const QUESTION = "Trust this folder? [y/N]";

describe("mc-agent chat: the trust question at a terminal (tmux)", {
  skip: hasTmux() ? false : "tmux is not installed",
}, () => {
  const world = cliTurnWorld("mc-cli-trust-tty-");
  const hookLog = () => join(world.box.root, "hook.log");
  /** The project's file: one UserPromptSubmit hook that appends a line to hook.log. */
  const writeProject = () => {
    mkdirSync(join(world.box.workspace, ".mc"), { recursive: true });
    const hooks = {
      UserPromptSubmit: [{ hooks: [{ type: "command", command: `echo ran >> '${hookLog()}'` }] }],
    };
    writeFileSync(join(world.box.workspace, ".mc", "config.json"), JSON.stringify({ hooks }));
  };
  const chat = () => {
    const line = [process.execPath, CHILD_BIN, "chat"].map(shellQuote).join(" ");
    const run = new TmuxRun(line, {
      cwd: world.box.workspace,
      env: { ...world.env, NO_COLOR: "1" },
    });
    world.closeAfter(() => run.kill());
    return run;
  };
  /** One message in a started chat, its answer awaited, then Ctrl-D: the chat ends with 0. */
  const talk = async (run: TmuxRun, reply: string) => {
    world.server.reply(text(reply));
    await run.waitFor("› ");
    run.type("Hello");
    run.press("Enter");
    await run.waitFor(reply);
    await run.waitFor((all) => all.trimEnd().endsWith("›"));
    run.press("C-d");
    assert.equal(await run.ended(), 0, run.screen().join("\n"));
  };
  const trustRecords = () => {
    const folder = join(world.box.home, "trust");
    return existsSync(folder) ? readdirSync(folder) : [];
  };

  it("y trusts the folder: this chat's backend runs the project's hook; the next chat does not ask", async () => {
    writeProject();
    const run = chat();
    await run.waitFor(QUESTION);
    assert.match(run.all(), /names hooks\. They run only if you trust this folder\./);
    assert.ok(!existsSync(hookLog()), "nothing ran before the answer");
    run.type("y");
    await run.waitFor("Trusted: its hooks run.");
    await talk(run, "Hi there.");
    assert.equal(readFileSync(hookLog(), "utf8"), "ran\n", "the hook ran in this chat");
    assert.equal(trustRecords().length, 1);
    const next = chat();
    await talk(next, "Hello again.");
    assert.ok(!next.all().includes(QUESTION), "a trusted folder is not asked about");
    assert.equal(readFileSync(hookLog(), "utf8"), "ran\nran\n");
  });

  it("n trusts nothing: the hook stays off, and the next chat asks again", async () => {
    writeProject();
    const run = chat();
    await run.waitFor(QUESTION);
    run.type("n");
    await run.waitFor("Not trusted: they stay off");
    await talk(run, "Hi there.");
    assert.equal(world.server.requests.length, 1, "the chat went on without the hook");
    assert.ok(!existsSync(hookLog()), "the hook never ran");
    assert.deepEqual(trustRecords(), []);
    const again = chat();
    await again.waitFor(QUESTION);
    again.type("n");
    await talk(again, "Still here.");
    assert.ok(!existsSync(hookLog()));
  });

  it("Ctrl-C at the question trusts nothing and ends the chat (130) before its backend starts", async () => {
    writeProject();
    const run = chat();
    await run.waitFor(QUESTION);
    run.press("C-c");
    assert.equal(await run.ended(), 130, run.screen().join("\n"));
    assert.match(run.all(), /Not trusted; the chat did not start\./);
    assert.deepEqual(trustRecords(), []);
    assert.equal(world.server.requests.length, 0);
    const sessions = join(world.box.home, "sessions");
    assert.ok(!existsSync(sessions) || readdirSync(sessions).length === 0, "no session began");
    assert.ok(!existsSync(hookLog()));
  });
});

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { stall, text, toolCall } from "../fixtures/chat-completions-server.js";
import { runCli } from "../helpers/cli.js";
import { hasScript, type PtyRun } from "../helpers/pty.js";
import { cliTurnWorld } from "./cli-turn-world.js";

const PROMPT = "› ";

/** Resolves once `text` is on the terminal `count` times; rejects after `ms`. */
async function waitForCount(p: PtyRun, text: string, count: number, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (p.output.split(text).length - 1 < count) {
    if (Date.now() > until)
      throw new Error(`not ${count}× "${text}"; got: ${JSON.stringify(p.output.slice(-600))}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** `mc-agent chat` against the real child and a loopback model: a readline loop on one session. */
describe("mc-agent chat (real child, loopback model)", () => {
  const world = cliTurnWorld("mc-cli-chat-");
  const { pty } = world;

  it("two turns on one session at a terminal, then /exit", async (t) => {
    if (!hasScript()) return t.skip("util-linux script is not installed");
    world.server.reply(text("Noted: your name is Ada."), text("Your name is Ada."));
    const p = pty("chat");
    await waitForCount(p, PROMPT, 1);
    assert.match(p.output, /mc-agent chat · demo\/demo-1 \(low\) · ask · session \S+/);
    p.type("My name is Ada.\r");
    await p.waitFor("Noted: your name is Ada.", 30_000);
    await waitForCount(p, PROMPT, 2);
    p.type("What is my name?\r");
    await p.waitFor("Your name is Ada.", 30_000);
    await waitForCount(p, PROMPT, 3);
    p.type("/exit\r");
    assert.equal(await p.done, 0, p.output);
    assert.deepEqual(world.server.requests[1]?.body.messages.slice(1), [
      { role: "user", content: "My name is Ada." },
      { role: "assistant", content: "Noted: your name is Ada." },
      { role: "user", content: "What is my name?" },
    ]);
    const listed = await runCli(["sessions", "--json"], {
      cwd: world.box.workspace,
      env: world.env,
    });
    const { sessions } = JSON.parse(listed.stdout) as { sessions: { title: string }[] };
    assert.deepEqual(
      sessions.map((s) => s.title),
      ["My name is Ada."],
      "both turns went to one session",
    );
  });

  it("Ctrl-C interrupts a running turn and the chat goes on; Ctrl-C at an empty prompt quits", async (t) => {
    if (!hasScript()) return t.skip("util-linux script is not installed");
    writeFileSync(join(world.box.workspace, "a.txt"), "alpha\n");
    // A complete first paragraph: the terminal renders markdown a finished block at a time.
    world.server.reply(stall(text(["Thinking.\n\n", "About a long answer"]), 2));
    world.server.reply(toolCall("read_file", { path: "a.txt" }), text("It says alpha."));
    const p = pty("chat");
    await waitForCount(p, PROMPT, 1);
    p.type("Think hard\r");
    await p.waitFor("Thinking", 30_000);
    p.type("\x03");
    await p.waitFor("Interrupted; what the turn did so far is saved", 30_000);
    await waitForCount(p, PROMPT, 2);
    p.type("Read a.txt\r");
    await p.waitFor("It says alpha.", 30_000);
    assert.ok(p.output.includes("▸ Read a.txt · Read 1 line"), p.output);
    await waitForCount(p, PROMPT, 3);
    p.type("\x03");
    assert.equal(await p.done, 0, p.output);
    // The second turn's context has the interrupted one's partial reply.
    const messages = world.server.requests[1]?.body.messages.slice(1);
    assert.equal(messages[0].content, "Think hard");
    assert.equal(messages[1].role, "assistant");
    assert.match(messages[1].content, /^Thinking/);
  });

  it("piped input: each line is a turn, approvals are denied, end of input quits", async () => {
    writeFileSync(join(world.box.workspace, "a.txt"), "alpha\n");
    world.server.reply(text("First."));
    world.server.reply(toolCall("shell", { command: "rm a.txt" }), text("I could not."));
    const r = await runCli(["chat"], {
      cwd: world.box.workspace,
      env: world.env,
      input: "Hello\n\nRemove a.txt\n",
      timeoutMs: 40_000,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "First.\nI could not.\n");
    assert.match(r.stderr, /denied: no terminal to ask on \(rerun with --permissions full_access/);
    assert.equal(world.server.requests.length, 3, "the empty line is no turn");
  });

  it("a turn refused for want of a key: the backend's next step in the SDK's words, then the chat goes on", async () => {
    const r = await runCli(["chat"], {
      cwd: world.box.workspace,
      env: { ...world.env, DEMO_KEY: "" },
      input: "Hello\n",
      timeoutMs: 40_000,
    });
    assert.match(
      r.stderr,
      /mc-agent: The model's provider has no usable credentials \(authentication_unavailable\)\. Give demo credentials: export its API key variable or log in with its own CLI \("mc-agent setup" shows what it finds\), then restart the backend\.\n/,
    );
    assert.equal(world.server.requests.length, 0, "no provider was asked");
  });
});

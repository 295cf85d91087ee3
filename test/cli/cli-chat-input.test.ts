import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { text, toolCall } from "../fixtures/chat-completions-server.js";
import { hasScript, type PtyRun } from "../helpers/pty.js";
import { cliTurnWorld } from "./cli-turn-world.js";

const PROMPT = "› ";
const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";
const ALT_ENTER = "\x1b\r";

/** The exit code, or a failure with the screen after 40 s (a chat that never ends fails, never hangs). */
async function ended(p: PtyRun): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`still running: ${JSON.stringify(p.output.slice(-800))}`)),
      40_000,
    );
  });
  try {
    return await Promise.race([p.done, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves once `text` is on the terminal `count` times; rejects after `ms`. */
async function waitForCount(p: PtyRun, text: string, count: number, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (p.output.split(text).length - 1 < count) {
    if (Date.now() > until)
      throw new Error(`not ${count}× "${text}"; got: ${JSON.stringify(p.output.slice(-600))}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** What the model was sent as the last user message of request `i`. */
function lastUser(world: ReturnType<typeof cliTurnWorld>, i: number): string {
  const messages = world.server.requests[i]?.body.messages as { role: string; content: string }[];
  return [...messages].reverse().find((m) => m.role === "user")?.content ?? "";
}

/** `mc-agent chat` input at a real pty: paste, line breaks, single keys, slash commands, history. */
describe("mc-agent chat input (real pty, loopback model)", {
  skip: hasScript() ? false : "util-linux script is not installed",
}, () => {
  const world = cliTurnWorld("mc-cli-input-");
  const { pty } = world;

  it("a three-line bracketed paste arrives whole; Alt-Enter and a trailing \\ add lines", async () => {
    world.server.reply(text("Got the trace."), text("Got the list."));
    const p = pty("chat");
    await waitForCount(p, PROMPT, 1);
    // As a terminal sends a paste in bracketed mode: CR between lines, wrapped in 200~/201~.
    p.type(
      `${PASTE_START}Traceback (most recent call last):\r  File "a.py", line 3\rZeroDivisionError${PASTE_END}`,
    );
    await p.waitFor("ZeroDivisionError");
    assert.equal(
      p.output.split("… ").length - 1,
      2,
      "each pasted line after the first on a continuation line",
    );
    assert.equal(world.server.requests.length, 0, "a paste is not sent before Enter");
    p.type("\r");
    await p.waitFor("Got the trace.", 30_000);
    assert.equal(
      lastUser(world, 0),
      'Traceback (most recent call last):\n  File "a.py", line 3\nZeroDivisionError',
    );
    await waitForCount(p, PROMPT, 2);
    p.type(`one${ALT_ENTER}two\\\rthree\r`);
    await p.waitFor("Got the list.", 30_000);
    assert.equal(lastUser(world, 1), "one\ntwo\nthree");
    assert.ok(p.output.includes("\x1b[?2004h"), "bracketed paste mode is switched on");
    await waitForCount(p, PROMPT, 3);
    p.type("\x04");
    assert.equal(await ended(p), 0, p.output);
    assert.equal(world.server.requests.length, 2);
  });

  it("approvals take one key, no Enter: other keys are ignored, y allows once", async () => {
    world.server.reply(
      toolCall("write_file", { path: "new.txt", content: "hi\n" }),
      text("Written."),
    );
    const p = pty("chat");
    await waitForCount(p, PROMPT, 1);
    p.type("Create new.txt\r");
    await p.waitFor(
      "Allow? [y] once · [a] for this session · [w] always in this folder · [n] deny · [x] never: ",
      30_000,
    );
    p.type("q");
    p.type("y");
    await p.waitFor("allowed once", 30_000);
    await p.waitFor("Written.", 30_000);
    assert.equal(readFileSync(join(world.box.workspace, "new.txt"), "utf8"), "hi\n");
    await waitForCount(p, PROMPT, 2);
    p.type("/exit\r");
    assert.equal(await ended(p), 0, p.output);
  });

  it("slash commands run locally: /help, /model picks from the catalog, unknown ones are refused, /exit prints the resume command", async () => {
    world.server.reply(text("On demo-2 now."));
    const p = pty("chat");
    await waitForCount(p, PROMPT, 1);
    assert.match(p.output, /session \S+ \(new: not saved until its first turn\)/);
    p.type("/help\r");
    await p.waitFor("/permissions [mode]");
    for (const name of ["/new", "/model", "/sessions", "/compact", "/exit"])
      assert.ok(p.output.includes(name), name);
    await waitForCount(p, PROMPT, 2);
    p.type("/nope\r");
    await p.waitFor("Unknown command /nope");
    await waitForCount(p, PROMPT, 3);
    p.type("/model\r");
    await p.waitFor("Model number (Enter keeps the current one): ", 30_000);
    assert.match(p.output, /\* {2}1 {2}demo\/demo-1/);
    assert.match(p.output, / {3}2 {2}demo\/demo-2/);
    p.type("2\r");
    await p.waitFor("Model: demo/demo-2 from the next turn on.", 30_000);
    await waitForCount(p, PROMPT, 4);
    assert.equal(world.server.requests.length, 0, "no command reached the model");
    p.type("Which model?\r");
    await p.waitFor("On demo-2 now.", 30_000);
    assert.equal(world.server.requests[0]?.body.model, "demo-2");
    await waitForCount(p, PROMPT, 5);
    p.type("/exit\r");
    assert.equal(await ended(p), 0, p.output);
    const id = /session (\S+) \(new/.exec(p.output)?.[1];
    assert.ok(p.output.includes(`Resume this session with: mc-agent resume ${id}`), p.output);
  });

  it("quitting before any turn says nothing was saved", async () => {
    const p = pty("chat");
    await waitForCount(p, PROMPT, 1);
    p.type("/exit\r");
    assert.equal(await ended(p), 0, p.output);
    assert.ok(p.output.includes("Nothing was saved: no turn ran in this session."), p.output);
  });

  it("history across runs: Up recalls a message sent in an earlier chat, from MC_HOME", async () => {
    world.server.reply(text("First run."), text("Second run."));
    const first = pty("chat");
    await waitForCount(first, PROMPT, 1);
    first.type(`${PASTE_START}remember\rthis${PASTE_END}\r`);
    await first.waitFor("First run.", 30_000);
    await waitForCount(first, PROMPT, 2);
    first.type("/exit\r");
    assert.equal(await ended(first), 0, first.output);
    const file = join(world.box.home, "chat-history.jsonl");
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(readFileSync(file, "utf8").split("\n"), ['"remember\\nthis"', '"/exit"', ""]);
    const second = pty("chat");
    await waitForCount(second, PROMPT, 1);
    second.type("\x1b[A"); // Up: "/exit"
    second.type("\x1b[A"); // Up: the message before it
    second.type("\r");
    await second.waitFor("Second run.", 30_000);
    assert.equal(lastUser(world, 1), "remember\nthis");
    // Up redraws the prompt: wait for the prompt after the reply.
    await second.waitFor(`Second run.`);
    const after = second.output.indexOf("Second run.");
    for (let i = 0; i < 1200 && !second.output.slice(after).includes(PROMPT); i += 1)
      await new Promise((r) => setTimeout(r, 25));
    second.type("\x04");
    assert.equal(await ended(second), 0, second.output);
    assert.ok(existsSync(file));
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { held, text } from "../fixtures/chat-completions-server.js";
import { CHILD_BIN } from "../helpers/child.js";
import { shellQuote } from "../helpers/pty.js";
import { hasTmux, TmuxRun } from "../helpers/tmux.js";
import { cliTurnWorld } from "./cli-turn-world.js";

const HINT = "Enter steers this turn";

type Message = { role: string; content: unknown };

/** The messages of model request `i`, as the loopback server received them. */
function messagesOf(world: ReturnType<typeof cliTurnWorld>, i: number): Message[] {
  return (world.server.requests[i]?.body.messages ?? []) as Message[];
}

/** The user messages of model request `i`, in order. */
function userTexts(world: ReturnType<typeof cliTurnWorld>, i: number): string[] {
  return messagesOf(world, i)
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}

/** A release the test pulls when it has typed what it needs while the turn streams. */
function gate(): { release: () => void; released: Promise<void> } {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { release, released };
}

/** The screen's last non-empty row (where the input line is). */
function lastRow(run: TmuxRun): string {
  return (
    run
      .screen()
      .filter((row) => row !== "")
      .at(-1) ?? ""
  );
}

async function until(check: () => boolean, what: string, run: TmuxRun, ms = 30_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what}; screen:\n${run.screen().join("\n")}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * `mc-agent chat` in a real terminal (tmux) against a loopback model whose first answer is held
 * open: the input line stays live while the turn streams; what is typed there steers the turn,
 * queues the next message, or is taken back, and the model's requests show it.
 */
describe("mc-agent chat: the input line while a turn runs (tmux, loopback model)", {
  skip: hasTmux() ? false : "tmux is not installed",
}, () => {
  const world = cliTurnWorld("mc-cli-live-");
  const chat = () => {
    const line = `exec ${[process.execPath, CHILD_BIN, "chat"].map(shellQuote).join(" ")}`;
    const run = new TmuxRun(line, {
      cwd: world.box.workspace,
      env: { ...world.env, NO_COLOR: "1" },
    });
    world.closeAfter(() => run.kill());
    return run;
  };

  it("Enter while the turn streams sends a steer: shown, applied, and carried by the next model request", async () => {
    const slow = gate();
    world.server.reply(
      held(text(["Looking at a.ts first.\n\n", "Still reading a.ts."]), 3, slow.released),
      text("Switched to b.ts as you asked."),
    );
    const run = chat();
    await run.waitFor("› ");
    run.type("fix the bug");
    run.press("Enter");
    await run.waitFor(HINT);
    await run.waitFor("Looking at a.ts first.");
    run.type("not that file, the other one");
    // What is typed stays on the input line under the output.
    await until(
      () => lastRow(run) === "» not that file, the other one",
      "typed text on the input line",
      run,
    );
    run.press("Enter");
    await run.waitFor("steer: not that file, the other one");
    assert.equal(world.server.requests.length, 1, "a steer starts no turn of its own");
    slow.release();
    await run.waitFor("✓ steer applied: not that file, the other one");
    await run.waitFor("Switched to b.ts as you asked.");
    assert.deepEqual(userTexts(world, 1), ["fix the bug", "not that file, the other one"]);
    const roles = messagesOf(world, 1).map((m) => m.role);
    assert.deepEqual(
      roles.slice(-3),
      ["user", "assistant", "user"],
      "the steer follows the reply so far",
    );
    await run.waitFor("✓ 2 steps");
    await until(() => lastRow(run) === "›", "a fresh prompt after the turn", run);
    const screen = run.all();
    assert.ok(
      !screen.includes("» not that file, the other one"),
      "the echo gave way to the steer line",
    );
    assert.ok(
      !screen.includes(HINT) || run.screen().every((row) => !row.includes(HINT)),
      "the hint is gone",
    );
    run.press("C-d");
    await run.waitFor("Resume this session with: mc-agent resume");
  });

  it("Tab queues a message: shown while it waits, run after the turn; Alt-Up takes one back and it is never sent", async () => {
    const slow = gate();
    world.server.reply(
      held(text(["Working on the parser.\n\n", "Parser done."]), 3, slow.released),
      text("Tests updated."),
    );
    const run = chat();
    await run.waitFor("› ");
    run.type("fix the parser");
    run.press("Enter");
    await run.waitFor("Working on the parser.");
    run.type("also update the tests");
    run.press("Tab");
    await run.waitFor("queued 1: also update the tests");
    run.type("and the changelog");
    run.press("Tab");
    await run.waitFor("queued 2: and the changelog");
    await until(() => lastRow(run) === "»", "an empty input line after queueing", run);
    // Alt-Up on the empty input line: the newest queued message comes back to edit.
    run.press("M-Up");
    await until(
      () => lastRow(run) === "» and the changelog",
      "the taken-back message on the input line",
      run,
    );
    assert.ok(
      run.screen().every((row) => !row.includes("queued 2:")),
      "the taken-back message left the queue",
    );
    run.press("C-u");
    await until(() => lastRow(run) === "»", "the input line cleared", run);
    assert.equal(world.server.requests.length, 1, "nothing queued ran while the turn runs");
    slow.release();
    await run.waitFor("Tests updated.");
    await run.waitFor((all) => all.split("✓ ").length - 1 >= 2);
    assert.equal(world.server.requests.length, 2, "the taken-back message was never sent");
    assert.deepEqual(userTexts(world, 1), ["fix the parser", "also update the tests"]);
    await until(() => lastRow(run) === "›", "a fresh prompt after the queue ran", run);
    run.press("C-d");
    await run.waitFor("Resume this session with: mc-agent resume");
  });

  it("a steer the turn ended before taking comes back into the input line", async () => {
    const slow = gate();
    world.server.reply(held(text(["Thinking about it.\n\n", "More."]), 3, slow.released));
    const run = chat();
    await run.waitFor("› ");
    run.type("plan the change");
    run.press("Enter");
    await run.waitFor("Thinking about it.");
    // A slash command runs at the prompt: while the turn runs it stays in the input line.
    run.type("/help");
    run.press("Enter");
    await run.waitFor("/help runs at the prompt: it stays in the input line until this turn ends.");
    await until(() => lastRow(run) === "» /help", "the command kept in the input line", run);
    run.press("C-u");
    run.type("use the new API");
    run.press("Enter");
    await run.waitFor("steer: use the new API");
    run.press("C-c");
    await run.waitFor("Interrupted");
    await run.waitFor("not delivered before the turn ended: back in the input line");
    await until(
      () => lastRow(run) === "› use the new API",
      "the steer back on the input line",
      run,
    );
    slow.release();
    assert.equal(world.server.requests.length, 1, "no model call carried the steer");
    run.press("C-u", "C-d");
    await run.waitFor("Resume this session with: mc-agent resume");
  });
});

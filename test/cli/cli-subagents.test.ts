/**
 * Subagents in the CLI (docs/cli.md, "Subagents"), against the real child and a loopback model:
 * at a terminal (tmux, read as a person sees the screen) each subagent is one line that updates
 * in place, its own tool calls folded into it; piped, plain lines (its start, each call with its
 * outcome, its end); a subagent's approval names it; `exec --json` passes `subagent_event` on.
 */
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  answer,
  call,
  custom,
  held,
  type Script,
  text,
  toolCalls,
} from "../fixtures/chat-completions-server.js";
import { CHILD_BIN } from "../helpers/child.js";
import { runCli } from "../helpers/cli.js";
import { shellQuote } from "../helpers/pty.js";
import { hasTmux, TmuxRun } from "../helpers/tmux.js";
import { cliTurnWorld } from "./cli-turn-world.js";

// biome-ignore lint/suspicious/noExplicitAny: the Chat Completions wire body, read freely.
type Loose = any;

/** The parent's reply: one `agent` call per description. */
const helpers = (...descriptions: string[]) =>
  toolCalls(
    descriptions.map((description, i) =>
      call("agent", { description, prompt: `Read ${description}` }, `call_agent_${i}`),
    ),
  );

/**
 * A subagent's two model calls, whichever subagent makes them: first a read of `notes.txt`,
 * then (once `release` resolves) its answer.
 */
function readThenAnswer(release: Promise<void> = Promise.resolve()): Script {
  return custom(async (exchange) => {
    const messages = exchange.request.body.messages as Loose[];
    if (!messages.some((m) => m.role === "tool"))
      return toolCalls([call("read_file", { path: "notes.txt" })])(exchange);
    await held(answer({ text: "Mapped." }), 1, release)(exchange);
  });
}

describe("mc-agent exec: subagents", () => {
  const world = cliTurnWorld("mc-cli-subagents-");
  const notes = () => writeFileSync(join(world.box.workspace, "notes.txt"), "a\nb\n");

  it("at a terminal, each subagent is one line updated in place, its calls folded in", async (t) => {
    if (!hasTmux()) return t.skip("tmux is not installed");
    notes();
    let release: () => void = () => {};
    const answered = new Promise<void>((resolve) => {
      release = resolve;
    });
    const sub = readThenAnswer(answered);
    world.server.reply(helpers("Map the parsers", "Map the tests"), sub, sub, sub, sub);
    world.server.reply(text("All mapped."));
    const args = [process.execPath, CHILD_BIN, "exec", "Map it"].map(shellQuote).join(" ");
    const run = new TmuxRun(args, { cwd: world.box.workspace, env: world.env, height: 40 });
    world.closeAfter(() => run.kill());
    // Both subagents have read and wait for their answers: two lines, each at its last call.
    const midway =
      /Agent: Map the parsers · 1 step · 1 tool · ✓ Read notes\.txt\n▸ Agent: Map the tests · 1 step · 1 tool · ✓ Read notes\.txt/;
    await run.waitFor(() => midway.test(run.screen().join("\n")));
    release();
    const status = await run.ended();
    const screen = run.screen().join("\n");
    assert.equal(status, 0, screen);
    for (const description of ["Map the parsers", "Map the tests"]) {
      const lines = screen.split("\n").filter((line) => line.includes(`Agent: ${description}`));
      assert.deepEqual(
        lines,
        [`▸ Agent: ${description} · 2 steps · 1 tool · done in 2 steps`],
        `one line, updated in place to its end:\n${screen}`,
      );
    }
    assert.ok(
      !screen.includes("▸ Read"),
      `the subagents' calls have no lines of their own:\n${screen}`,
    );
    assert.ok(!screen.includes("starting"), "no earlier state is left on the screen");
    assert.match(screen, /All mapped\./);
  });

  it("piped: plain lines, the start, each call with its outcome, the end", async () => {
    notes();
    world.server.reply(
      helpers("Map the parsers"),
      readThenAnswer(),
      readThenAnswer(),
      text("Done."),
    );
    const run = await runCli(["exec", "Map it"], {
      cwd: world.box.workspace,
      env: world.env,
      timeoutMs: 40_000,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(!run.stderr.includes("\x1b"), "no escape sequence when piped");
    const expected = [
      "▸ Agent: Map the parsers\n",
      "  Map the parsers › Read notes.txt · ",
      "▸ Agent: Map the parsers · done in 2 steps\n",
    ];
    let at = 0;
    for (const line of expected) {
      const found = run.stderr.indexOf(line, at);
      assert.ok(found >= at, `missing, in order: ${line}\nin:\n${run.stderr}`);
      at = found + line.length;
    }
    assert.equal(run.stdout.trim(), "Done.");
  });

  it("a subagent's approval names it; piped, nobody can answer and it is denied", async () => {
    world.server.reply(
      toolCalls([
        call("agent", { description: "Fix the notes", prompt: "Fix", permissions: "ask" }),
      ]),
      toolCalls([call("write_file", { path: "fixed.txt", content: "x\n" })]),
      text("I was not allowed."),
      text("Done."),
    );
    const run = await runCli(["exec", "Fix it"], {
      cwd: world.box.workspace,
      env: world.env,
      timeoutMs: 40_000,
    });
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /\? Fix the notes › Create fixed\.txt/);
    assert.match(run.stderr, /denied: no terminal to ask on/);
    assert.match(run.stderr, / {2}Fix the notes › Create fixed\.txt · denied/);
    assert.ok(!existsSync(join(world.box.workspace, "fixed.txt")));
  });

  it("exec --json passes each subagent_event on, naming the agent call", async () => {
    notes();
    world.server.reply(
      helpers("Map the parsers"),
      readThenAnswer(),
      readThenAnswer(),
      text("Done."),
    );
    const run = await runCli(["exec", "--json", "Map it"], {
      cwd: world.box.workspace,
      env: world.env,
      timeoutMs: 40_000,
    });
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const agentCall = lines.find((l) => l.type === "tool_call" && l.tool === "agent");
    const wrapped = lines.filter((l) => l.type === "subagent_event");
    assert.ok(wrapped.length > 0);
    for (const line of wrapped) {
      assert.equal(line.item_id, agentCall.item_id);
      assert.equal(line.subagent_id, agentCall.item_id);
      assert.equal(typeof line.seq, "number");
    }
    const inner = wrapped.map((l) => l.event.type);
    assert.equal(inner[0], "turn_started");
    assert.ok(inner.includes("tool_call") && inner.includes("tool_done"));
    const said = wrapped.find((l) => l.event.type === "message_done");
    assert.equal(said?.event.text, "Mapped.");
  });
});

describe("mc-agent chat: subagents (tmux)", {
  skip: hasTmux() ? false : "tmux is not installed",
}, () => {
  const world = cliTurnWorld("mc-cli-chat-subagents-");

  it("each subagent is one line updated in place above the input line", async () => {
    writeFileSync(join(world.box.workspace, "notes.txt"), "a\nb\n");
    let release: () => void = () => {};
    const answered = new Promise<void>((resolve) => {
      release = resolve;
    });
    const sub = readThenAnswer(answered);
    world.server.reply(helpers("Map the parsers", "Map the tests"), sub, sub, sub, sub);
    world.server.reply(text("All mapped."));
    const line = `exec ${[process.execPath, CHILD_BIN, "chat"].map(shellQuote).join(" ")}`;
    const run = new TmuxRun(line, {
      cwd: world.box.workspace,
      env: { ...world.env, NO_COLOR: "1" },
      height: 40,
    });
    world.closeAfter(() => run.kill());
    await run.waitFor("› ");
    run.type("Map it");
    run.press("Enter");
    const midway =
      /Agent: Map the parsers · 1 step · 1 tool · ✓ Read notes\.txt\n▸ Agent: Map the tests · 1 step · 1 tool · ✓ Read notes\.txt/;
    await run.waitFor(() => midway.test(run.screen().join("\n")));
    release();
    await run.waitFor("All mapped.");
    await run.waitFor((all) => /✓ \d+ steps/.test(all));
    const screen = run.screen().join("\n");
    for (const description of ["Map the parsers", "Map the tests"]) {
      const lines = screen.split("\n").filter((row) => row.includes(`Agent: ${description}`));
      assert.deepEqual(
        lines,
        [`▸ Agent: ${description} · 2 steps · 1 tool · done in 2 steps`],
        `one line, updated in place to its end:\n${screen}`,
      );
    }
    assert.ok(!screen.includes("▸ Read"), screen);
    run.press("C-d");
    await run.waitFor("Resume this session with: mc-agent resume");
  });
});

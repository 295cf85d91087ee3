/**
 * The model's plan in the CLI (docs/cli.md, "The plan"), against the real child and a loopback
 * model: at a terminal (tmux, read as a person sees the screen) a plan that follows the last one
 * replaces it in place; piped, every plan is written again as plain lines; `exec --json` passes
 * each `plan` event on as one line.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { text, toolCall } from "../fixtures/chat-completions-server.js";
import { CHILD_BIN } from "../helpers/child.js";
import { runCli } from "../helpers/cli.js";
import { shellQuote } from "../helpers/pty.js";
import { hasTmux, TmuxRun } from "../helpers/tmux.js";
import { cliTurnWorld } from "./cli-turn-world.js";

const STEPS = ["Map the code", "Edit the parser", "Run the tests"];
type Status = "pending" | "in_progress" | "completed";

/** The plan with the first `done` steps completed and the next one in progress. */
function planAt(done: number) {
  return {
    plan: STEPS.map((step, i) => ({
      step,
      status: (i < done ? "completed" : i === done ? "in_progress" : "pending") as Status,
    })),
  };
}

describe("mc-agent exec: the plan", () => {
  const world = cliTurnWorld("mc-cli-plan-");
  /** Three plans from three consecutive model replies, nothing shown between them, then text. */
  const threePlans = () =>
    world.server.reply(
      toolCall("update_plan", { explanation: "Three steps", ...planAt(0) }),
      toolCall("update_plan", planAt(1)),
      toolCall("update_plan", planAt(3)),
      text("All done."),
    );

  it("at a terminal, each plan replaces the last in place: the screen shows one, the last", async (t) => {
    if (!hasTmux()) return t.skip("tmux is not installed");
    threePlans();
    const args = [process.execPath, CHILD_BIN, "exec", "Plan it"].map(shellQuote).join(" ");
    const run = new TmuxRun(args, {
      cwd: world.box.workspace,
      env: world.env,
      height: 40,
    });
    world.closeAfter(() => run.kill());
    const status = await run.ended();
    const screen = run.screen().join("\n");
    assert.equal(status, 0, screen);
    assert.equal(screen.split("Plan").length - 1, 1, `one plan on the screen:\n${screen}`);
    assert.match(
      screen,
      /Plan:\n {2}\[x\] Map the code\n {2}\[x\] Edit the parser\n {2}\[x\] Run the tests\n/,
      screen,
    );
    assert.ok(!screen.includes("[>]"), "no earlier plan is left on the screen");
    assert.ok(!screen.includes("Update the plan"), "a plan call that worked has no tool line");
    assert.match(screen, /All done\./);
  });

  it("piped, each plan is written again as plain lines", async () => {
    threePlans();
    const run = await runCli(["exec", "Plan it"], {
      cwd: world.box.workspace,
      env: world.env,
      timeoutMs: 40_000,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(!run.stderr.includes("\x1b"), "no escape sequence when piped");
    const expected = [
      "Plan: Three steps\n  [>] Map the code\n  [ ] Edit the parser\n  [ ] Run the tests\n",
      "Plan:\n  [x] Map the code\n  [>] Edit the parser\n  [ ] Run the tests\n",
      "Plan:\n  [x] Map the code\n  [x] Edit the parser\n  [x] Run the tests\n",
    ];
    let at = 0;
    for (const block of expected) {
      const found = run.stderr.indexOf(block, at);
      assert.ok(found >= at, `missing, in order:\n${block}\nin:\n${run.stderr}`);
      at = found + block.length;
    }
    assert.equal(run.stdout.trim(), "All done.");
  });

  it("an invalid plan shows its tool line with the error, and no plan", async () => {
    world.server.reply(
      toolCall("update_plan", {
        plan: STEPS.map((step) => ({ step, status: "in_progress" })),
      }),
      text("Sorry."),
    );
    const run = await runCli(["exec", "Plan it"], {
      cwd: world.box.workspace,
      env: world.env,
      timeoutMs: 40_000,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /▸ Update the plan · failed: invalid plan: 3 steps are in_progress/);
    assert.ok(!run.stderr.includes("Plan:"), run.stderr);
  });

  it("exec --json passes each plan event on as one line", async () => {
    threePlans();
    const run = await runCli(["exec", "--json", "Plan it"], {
      cwd: world.box.workspace,
      env: world.env,
      timeoutMs: 40_000,
    });
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const plans = lines.filter((line) => line.type === "plan");
    assert.deepEqual(
      plans.map(({ explanation, plan }) => ({ explanation, plan })),
      [
        { explanation: "Three steps", ...planAt(0) },
        { explanation: null, ...planAt(1) },
        { explanation: null, ...planAt(3) },
      ],
    );
    for (const line of plans) assert.equal(typeof line.seq, "number");
  });
});

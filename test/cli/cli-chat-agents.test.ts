/**
 * Chat's `/agents [n]` (docs/cli.md, "Subagents"): after a turn that ran subagents, each one
 * listed with its description and how its call ended, and one expanded into what it did (its
 * prompt, its tool calls with their outcomes, its answer), read back through
 * `session.subagent_history`; against the real child and a loopback model, piped.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { call, custom, text, toolCalls } from "../fixtures/chat-completions-server.js";
import { runCli } from "../helpers/cli.js";
import { cliTurnWorld } from "./cli-turn-world.js";

describe("mc-agent chat: /agents", () => {
  const world = cliTurnWorld("mc-cli-chat-agents-");

  it("lists the session's subagents, expands one, and refuses a number past the list", async () => {
    writeFileSync(join(world.box.workspace, "notes.txt"), "first line\n");
    const twoHelpers = toolCalls([
      call("agent", { description: "Map the parsers", prompt: "Read notes.txt" }, "call_a"),
      call("agent", { description: "Map the tests", prompt: "Say hello" }, "call_b"),
    ]);
    // Each subagent: the one reading notes.txt asks for it first; every other call answers.
    const subagent = custom(async (exchange) => {
      const body = JSON.stringify(exchange.request.body.messages);
      if (body.includes("Read notes.txt") && !body.includes('"role":"tool"'))
        return toolCalls([call("read_file", { path: "notes.txt" })])(exchange);
      return text(body.includes("Read notes.txt") ? "Parsers mapped." : "Hello back.")(exchange);
    });
    world.server.reply(twoHelpers, subagent, subagent, subagent, text("All mapped."));
    const run = await runCli(["chat"], {
      cwd: world.box.workspace,
      env: world.env,
      input: "Map it\n/agents\n/agents 1\n/agents 3\n/agents x\n/exit\n",
      timeoutMs: 40_000,
    });
    assert.equal(run.code, 0, run.stderr);
    const expected = [
      /\n {2}1 {2}Map the parsers {2}completed\n {2}2 {2}Map the tests {2}completed\n/,
      /── subagent: Map the parsers ──\nprompt: Read notes\.txt\n {2}• read_file \{"path":"notes\.txt"\}\n {4}→ completed: [^\n]*first line[^\n]*\nanswer: Parsers mapped\.\n── completed ──\n/,
      /There is no subagent 3; \/agents lists 2\./,
      /Usage: \/agents \[n\]/,
    ];
    let at = 0;
    for (const pattern of expected) {
      const rest = run.stderr.slice(at);
      const found = pattern.exec(rest);
      assert.ok(found, `missing, in order: ${pattern}\nin:\n${run.stderr}`);
      at += found.index + found[0].length;
    }
    assert.ok(!run.stderr.includes("Hello back."), "only the expanded subagent is shown");
  });

  it("a session that ran none says so", async () => {
    world.server.reply(text("Hi."));
    const run = await runCli(["chat"], {
      cwd: world.box.workspace,
      env: world.env,
      input: "/agents\nHello\n/agents\n/exit\n",
      timeoutMs: 40_000,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      run.stderr.split("No subagent has run in this session.").length - 1,
      2,
      run.stderr,
    );
  });
});

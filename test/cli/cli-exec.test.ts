import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fail, stall, text, toolCall } from "../fixtures/chat-completions-server.js";
import { sandbox } from "../helpers/child.js";
import { runCli } from "../helpers/cli.js";
import { hasScript } from "../helpers/pty.js";
import { TURN_KEY, writeTurnHome } from "../helpers/turn-home.js";
import { cliTurnWorld } from "./cli-turn-world.js";

/**
 * `mc-agent exec` against the real child and a loopback Chat Completions server: the reply on
 * stdout, tools and approvals on stderr (answered at a real pty), --json, failures, Ctrl-C.
 */
describe("mc-agent exec (real child, loopback model)", () => {
  const world = cliTurnWorld("mc-cli-exec-");
  const { pty } = world;
  const run = (...args: string[]) =>
    runCli(args, { cwd: world.box.workspace, env: world.env, timeoutMs: 40_000 });
  const sessionOf = (stderr: string) => /--session (\S+) \(exec or chat\)/.exec(stderr)?.[1] ?? "";
  const notes = () => readFileSync(join(world.box.workspace, "notes.txt"), "utf8");

  it("streams the reply to stdout, the rest to stderr; --session continues the saved session", async () => {
    world.server.reply(text("Hello there, how can I help?"));
    const first = await run("exec", "Say", "hello");
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, "Hello there, how can I help?\n");
    assert.match(first.stderr, /^demo\/demo-1 \(low\) · ask · new session \S+\n/);
    assert.match(first.stderr, /\n✓ 1 step · 12 in \/ 5 out tokens · context 0% of 128k\n/);
    assert.deepEqual(world.server.requests[0]?.body.messages.at(-1), {
      role: "user",
      content: "Say hello",
    });
    assert.equal(world.server.requests[0]?.headers.authorization, `Bearer ${TURN_KEY}`);
    const id = sessionOf(first.stderr);
    assert.ok(id, first.stderr);
    world.server.reply(text("Still here."));
    const second = await run("exec", "--session", id, "--permissions", "read_only", "Again");
    assert.equal(second.code, 0, second.stderr);
    assert.match(
      second.stderr,
      new RegExp(`^demo/demo-1 \\(low\\) · read_only · session ${id}\\n`),
    );
    assert.deepEqual(world.server.requests[1]?.body.messages.slice(1), [
      { role: "user", content: "Say hello" },
      { role: "assistant", content: "Hello there, how can I help?" },
      { role: "user", content: "Again" },
    ]);
  });

  it("a read-only tool is one line with its outcome; shell output is indented under its line", async () => {
    writeFileSync(join(world.box.workspace, "notes.txt"), "alpha\nbeta\n");
    world.server.reply(
      toolCall("read_file", { path: "notes.txt" }, { text: "Let me read it." }),
      toolCall("shell", { command: "printf 'one\\ntwo\\n'" }),
      text("Done."),
    );
    const r = await run("exec", "--permissions", "full_access", "Look");
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "Let me read it.\nDone.\n");
    assert.match(r.stderr, /\n▸ Read notes\.txt · Read 2 lines\n/);
    assert.match(r.stderr, /\n▸ Run printf 'one\\ntwo\\n'\n {4}one\n {4}two\n {2}↳ exit 0\n/);
    // The history: a step with text shows it; the step that only ran a command shows no empty
    // assistant line, just its call and result.
    const shown = await run("show", sessionOf(r.stderr));
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /assistant: Let me read it\./);
    assert.match(shown.stdout, /assistant: Done\./);
    assert.equal(shown.stdout.match(/assistant:/g)?.length, 2, shown.stdout);
  });

  it("an edit approved with y at the terminal is applied", async (t) => {
    if (!hasScript()) return t.skip("util-linux script is not installed");
    writeFileSync(join(world.box.workspace, "notes.txt"), "alpha\nbeta\n");
    world.server.reply(
      toolCall("edit_file", { path: "notes.txt", old_text: "beta", new_text: "gamma" }),
      text("Edited."),
    );
    const p = pty("exec", "Change beta to gamma");
    await p.waitFor(
      "Allow? [y] once · [a] for this session · [w] always in this folder · [n] deny · [x] never: ",
      30_000,
    );
    assert.ok(p.output.includes("▸ Edit notes.txt"), p.output);
    assert.ok(p.output.includes("  -beta") && p.output.includes("  +gamma"), p.output);
    p.type("y\r");
    assert.equal(await p.done, 0, p.output);
    assert.ok(p.output.includes("  allowed once"), p.output);
    assert.ok(p.output.includes("↳ Edited (+1 -1)"), p.output);
    assert.equal(notes(), "alpha\ngamma\n");
  });

  it("an edit allowed with w keeps a workspace rule that mc-agent rules lists", async (t) => {
    if (!hasScript()) return t.skip("util-linux script is not installed");
    writeFileSync(join(world.box.workspace, "notes.txt"), "alpha\nbeta\n");
    world.server.reply(
      toolCall("edit_file", { path: "notes.txt", old_text: "beta", new_text: "gamma" }),
      text("Edited."),
    );
    const p = pty("exec", "Change beta to gamma");
    await p.waitFor("[x] never: ", 30_000);
    p.type("w");
    assert.equal(await p.done, 0, p.output);
    assert.ok(p.output.includes("allowed in this workspace until the rule is removed"), p.output);
    assert.equal(notes(), "alpha\ngamma\n");
    const listed = await run("rules", "--json");
    assert.equal(listed.code, 0, listed.stderr);
    const rules = JSON.parse(listed.stdout) as { rules: { effect: string; scope: string }[] };
    assert.ok(
      rules.rules.some((r) => r.effect === "allow" && r.scope === "workspace"),
      listed.stdout,
    );
    // The rule would outlive this test in the shared home: the later tests must be asked again.
    const cleared = await run("rules", "clear");
    assert.equal(cleared.code, 0, cleared.stderr);
  });

  it("an edit denied with n is not applied and the model is told so", async (t) => {
    if (!hasScript()) return t.skip("util-linux script is not installed");
    writeFileSync(join(world.box.workspace, "notes.txt"), "alpha\nbeta\n");
    world.server.reply(
      toolCall("edit_file", { path: "notes.txt", old_text: "beta", new_text: "gamma" }),
      text("Understood, I left it."),
    );
    const p = pty("exec", "Change beta to gamma");
    await p.waitFor("[x] never: ", 30_000);
    p.type("n\r");
    assert.equal(await p.done, 0, p.output);
    assert.ok(p.output.includes("  denied"), p.output);
    assert.match(p.output, /↳ denied: /);
    assert.ok(p.output.includes("Understood, I left it."));
    assert.equal(notes(), "alpha\nbeta\n");
    const told = world.server.requests[1]?.body.messages.at(-1);
    assert.equal(told.role, "tool");
    assert.match(told.content, /denied by the user/);
  });

  it("Ctrl-C at the approval question interrupts the turn; nothing is applied", async (t) => {
    if (!hasScript()) return t.skip("util-linux script is not installed");
    writeFileSync(join(world.box.workspace, "notes.txt"), "alpha\nbeta\n");
    world.server.reply(
      toolCall("edit_file", { path: "notes.txt", old_text: "beta", new_text: "x" }),
    );
    const p = pty("exec", "Change it");
    await p.waitFor("[x] never: ", 30_000);
    p.type("\x03");
    assert.equal(await p.done, 130, p.output);
    assert.ok(p.output.includes("  approval cancelled"), p.output);
    assert.match(p.output, /↳ interrupted: /);
    assert.doesNotMatch(p.output, /\n {2}denied/);
    assert.equal(notes(), "alpha\nbeta\n");
    assert.equal(world.server.requests.length, 1, "no model call after the interrupt");
  });

  it("off a terminal an approval is denied, saying which --permissions would allow it", async () => {
    writeFileSync(join(world.box.workspace, "notes.txt"), "alpha\nbeta\n");
    const edit = { path: "notes.txt", old_text: "beta", new_text: "gamma" };
    world.server.reply(toolCall("edit_file", edit), text("Not allowed, then."));
    const denied = await run("exec", "Change it");
    assert.equal(denied.code, 3, denied.stderr); // the denial exit code (docs/cli.md, "exec")
    assert.match(
      denied.stderr,
      /\n {2}denied: no terminal to ask on \(rerun with --permissions accept_edits to allow this without asking\)\n/,
    );
    assert.equal(notes(), "alpha\nbeta\n");
    world.server.reply(toolCall("edit_file", edit), text("Done."));
    const allowed = await run("exec", "--permissions", "accept_edits", "Change it");
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.doesNotMatch(allowed.stderr, /denied/);
    assert.equal(notes(), "alpha\ngamma\n");
  });

  it("--json: every event as a line in seq order, then the result", async () => {
    world.server.reply(toolCall("list_dir", { path: "." }, { text: "Looking." }), text("Empty."));
    const r = await run("exec", "--json", "List it");
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    const result = lines.pop();
    assert.equal(result.type, "result");
    assert.equal(result.status, "completed");
    assert.equal(result.steps, 2);
    assert.equal(result.exit_code, 0);
    lines.forEach((line, i) => {
      assert.equal(line.seq, i);
      assert.equal(line.turn_id, result.turn_id);
    });
    const types = lines.map((l) => l.type);
    assert.equal(types[0], "turn_started");
    for (const type of ["message_delta", "message_done", "tool_call", "tool_done", "usage"])
      assert.ok(types.includes(type), `${type} in ${types.join(",")}`);
    const done = lines.filter((l) => l.type === "message_done").map((l) => l.text);
    assert.deepEqual(done, ["Looking.", "Empty."]);
    assert.equal(r.stderr, "", "nothing but JSON lines, and nothing on stderr");
  });

  it("a failed turn exits 1 with one line: the code and what to do", async () => {
    world.server.reply(fail(401));
    const r = await run("exec", "Hello");
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    const failure = r.stderr.split("\n").filter((l) => l.startsWith("mc-agent:"));
    assert.equal(failure.length, 1, r.stderr);
    assert.match(
      failure[0] ?? "",
      /^mc-agent: .+ \(authentication_rejected\)\. The provider rejected the credentials; check or renew them, then try again\.$/,
    );
    assert.doesNotMatch(r.stderr, /127\.0\.0\.1|sk-cli/);
  });

  it("no key for the model's provider: the backend's step, in the SDK's words, names the provider", async () => {
    const r = await runCli(["exec", "Hello"], {
      cwd: world.box.workspace,
      env: { ...world.env, DEMO_KEY: "" },
    });
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr.split("\n").find((l) => l.startsWith("mc-agent:")),
      'mc-agent: The model\'s provider has no usable credentials (authentication_unavailable). Give demo credentials: export its API key variable or log in with its own CLI ("mc-agent setup" shows what it finds), then restart the backend.',
    );
    assert.equal(world.server.requests.length, 0);
  });

  it("a provider that is down, then rate limiting: each retry is a line on stderr, then the reply", async () => {
    world.server.reply(fail(503), fail(429, { retryAfter: 1 }), text("Back again."));
    const r = await run("exec", "Hello");
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "Back again.\n");
    assert.match(r.stderr, /\n {2}retrying now \(remote_unavailable, attempt 1\)\n/);
    assert.match(r.stderr, /\n {2}retrying in 1\.0 s \(rate_limited, attempt 2\)\n/);
    assert.equal(world.server.requests.length, 3);
  });

  it("no model: says what to do, exits 1, and asks no provider; usage mistakes exit 2", async () => {
    world.env = writeTurnHome(world.box, world.server.baseUrl, { model: null });
    const r = await run("exec", "Hello");
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      'mc-agent: no model is selected (model_unavailable). Pass --model <id> or set "model" in MC_HOME/config.json (default ~/.mc) to one of: demo/demo-1, demo/demo-2 (all: "mc-agent models").\n',
    );
    assert.equal(world.server.requests.length, 0);
    // A fresh home: nothing enabled, nothing cached; the step is how to enable a model.
    const fresh = sandbox("mc-cli-fresh-");
    world.closeAfter(() => fresh.cleanup());
    const bare = await runCli(["exec", "Hello"], {
      cwd: fresh.workspace,
      env: { PATH: process.env.PATH, HOME: fresh.home, MC_HOME: fresh.home },
    });
    assert.equal(bare.code, 1);
    // The SDK's advice for the backend's step (errors.recovery): nothing is set up.
    assert.equal(
      bare.stderr,
      'mc-agent: no model is selected, and no model is selectable yet (model_unavailable). Run "mc-agent setup": it finds your API keys, logins and local model servers, fetches a provider\'s models and sets your default model. "mc-agent models" shows every provider\'s status.\n',
    );
    world.server.reply(text("With demo-2."));
    const chosen = await run("exec", "--model", "demo/demo-2", "Hello");
    assert.equal(chosen.code, 0, chosen.stderr);
    assert.match(chosen.stderr, /^demo\/demo-2 · ask · new session/);
    assert.equal(world.server.requests[0]?.body.model, "demo-2");
    for (const args of [
      ["exec"],
      ["exec", "--permissions", "all", "x"],
      ["exec", "--effort", "high", "x"],
    ]) {
      const wrong = await run(...args);
      assert.equal(wrong.code, 2, `${args.join(" ")}: ${wrong.stderr}`);
      assert.match(wrong.stderr, /\(usage_error\)\. Run "mc-agent exec --help"\.\n$/);
    }
  });

  it('"-" reads the prompt from stdin, up to input_bytes exactly; one byte more is a usage error', async () => {
    const limit = 262_144;
    world.server.reply(text("Read it all."));
    const exact = `${"é".repeat(limit / 2 - 1)}ab`; // multi-byte, and exactly the bound
    assert.equal(Buffer.byteLength(exact), limit);
    const ok = await runCli(["exec", "-"], {
      cwd: world.box.workspace,
      env: world.env,
      input: exact,
      timeoutMs: 40_000,
    });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(world.server.requests[0]?.body.messages.at(-1).content, exact);
    const over = await runCli(["exec", "-"], {
      cwd: world.box.workspace,
      env: world.env,
      input: `${exact}c`,
    });
    assert.equal(over.code, 2);
    assert.equal(
      over.stderr,
      'mc-agent: the prompt is over 262144 bytes (the backend\'s input_bytes) (usage_error). Run "mc-agent exec --help".\n',
    );
    const empty = await runCli(["exec", "-"], {
      cwd: world.box.workspace,
      env: world.env,
      input: " \n",
    });
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /the prompt is empty/);
    assert.equal(world.server.requests.length, 1, "neither reached the model");
  });

  it("Ctrl-C interrupts the turn, waits for its result, exits 130; the history shows it", async (t) => {
    if (!hasScript()) return t.skip("util-linux script is not installed");
    // The first paragraph is complete (a blank line follows), so the terminal shows it rendered.
    world.server.reply(stall(text(["Thinking.\n\n", "About a long answer"]), 2));
    const p = pty("exec", "Think");
    await p.waitFor("Thinking.", 30_000);
    p.type("\x03");
    assert.equal(await p.done, 130, p.output);
    assert.ok(p.output.includes("Interrupting… (Ctrl-C again exits at once)"), p.output);
    assert.ok(p.output.includes("Interrupted; what the turn did so far is saved"), p.output);
    const id = sessionOf(p.output);
    const shown = await run("show", id);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /assistant: Thinking\.\s*\(interrupted\)/);
    assert.match(shown.stdout, /turn interrupted · /);
  });
});

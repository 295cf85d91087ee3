import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fail, text, toolCall } from "../fixtures/chat-completions-server.js";
import { CHILD_BIN } from "../helpers/child.js";
import { runCli } from "../helpers/cli.js";
import { hasScript, PtyRun, shellQuote } from "../helpers/pty.js";
import { TURN_KEY, writeTurnHome } from "../helpers/turn-home.js";
import { closedPort } from "../models/fake-server.js";
import { cliTurnWorld } from "./cli-turn-world.js";

const MARKDOWN = [
  "# Plan",
  "",
  "Some **bold** and *em* text with `code` and [the docs](https://example.com/docs).",
  "",
  "- read *notes.txt*",
  "- change beta",
  "",
  "```js",
  "const x = 1;",
  "console.log(x);",
  "```",
  "",
  "Done.",
].join("\n");

const has = (text: string, part: string) =>
  assert.ok(text.includes(part), `missing ${JSON.stringify(part)} in ${JSON.stringify(text)}`);

/**
 * What `exec` shows, against the real child and a loopback model: rendered markdown at a real
 * pty and the exact text when piped, folded shell output, the diff of an edit applied without
 * asking, usage and context fill, stdin prompts, -o, and failures that help.
 */
describe("mc-agent exec: the screen", () => {
  const world = cliTurnWorld("mc-cli-screen-");
  const run = (args: string[], input?: string) =>
    runCli(args, {
      cwd: world.box.workspace,
      env: world.env,
      timeoutMs: 40_000,
      ...(input === undefined ? {} : { input }),
    });
  const screen = (p: PtyRun) => p.output.replace(/\r\n/g, "\n");

  it("markdown is rendered at a terminal (NO_COLOR: the layout without escapes)", async (t) => {
    if (!hasScript()) return t.skip("util-linux script is not installed");
    world.server.reply(text(MARKDOWN));
    const p = world.pty("exec", "Plan it");
    assert.equal(await p.done, 0, p.output);
    const shown = screen(p);
    has(
      shown,
      "# Plan\n\nSome bold and em text with code and the docs (https://example.com/docs).\n",
    );
    has(
      shown,
      "\n  * read notes.txt\n  * change beta\n\n  const x = 1;\n  console.log(x);\n\nDone.\n",
    );
    for (const raw of ["**", "```", "\x1b["]) assert.ok(!shown.includes(raw), shown);
  });

  it("with color: emphasis and code are styled", async (t) => {
    if (!hasScript()) return t.skip("util-linux script is not installed");
    world.server.reply(text(MARKDOWN));
    const line = `exec ${[process.execPath, CHILD_BIN, "exec", "Plan it"].map(shellQuote).join(" ")}`;
    const p = new PtyRun(line, { cwd: world.box.workspace, env: world.env });
    world.closeAfter(() => p.kill());
    assert.equal(await p.done, 0, p.output);
    has(p.output, "\x1b[1mbold\x1b[22m");
    has(p.output, "\x1b[3mem\x1b[23m");
    assert.ok(!p.output.includes("**bold**"), p.output);
  });

  it("piped, the reply is the model's text exactly, markdown and all", async () => {
    world.server.reply(text(MARKDOWN));
    const r = await run(["exec", "Plan it"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${MARKDOWN}\n`);
  });

  it("shell output is folded to its first and last lines with a count; the model gets it all", async () => {
    world.server.reply(toolCall("shell", { command: "seq 1 40" }), text("Counted."));
    const r = await run(["exec", "--permissions", "full_access", "Count"]);
    assert.equal(r.code, 0, r.stderr);
    has(
      r.stderr,
      "\n▸ Run seq 1 40\n    1\n    2\n    3\n    4\n    … 33 more lines\n    38\n    39\n    40\n  ↳ exit 0\n",
    );
    assert.ok(!r.stderr.includes("    20\n"), r.stderr);
    const told = world.server.requests[1]?.body.messages.at(-1);
    assert.match(told.content, /\n20\n[\s\S]*\n40\n/);
  });

  it("an edit applied without asking shows its diff; one that was asked does not repeat it", async () => {
    writeFileSync(join(world.box.workspace, "notes.txt"), "alpha\nbeta\n");
    const edit = { path: "notes.txt", old_text: "beta", new_text: "gamma" };
    world.server.reply(toolCall("edit_file", edit), text("Edited."));
    const r = await run(["exec", "--permissions", "accept_edits", "Change it"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /\n▸ Edit notes\.txt · Edited \(\+1 -1\)\n {2}--- a\/notes\.txt\n {2}\+\+\+ b\/notes\.txt\n {2}@@ .+ @@\n {3}alpha\n {2}-beta\n {2}\+gamma\n/,
    );
    assert.equal(readFileSync(join(world.box.workspace, "notes.txt"), "utf8"), "alpha\ngamma\n");
  });

  it("usage and context fill close the turn", async () => {
    world.server.reply(text("Big.", { usage: { prompt_tokens: 64_000, completion_tokens: 300 } }));
    const r = await run(["exec", "Go"]);
    assert.equal(r.code, 0, r.stderr);
    has(r.stderr, "\n✓ 1 step · 64k in / 300 out tokens · context 50% of 128k\n");
  });

  it("a piped stdin is the prompt, or context after a given one; -o writes the final message", async () => {
    world.server.reply(text("A diff."));
    const alone = await run(["exec"], "diff --git a/x b/x\n+new line\n");
    assert.equal(alone.code, 0, alone.stderr);
    assert.equal(
      world.server.requests[0]?.body.messages.at(-1).content,
      "diff --git a/x b/x\n+new line\n",
    );
    world.server.reply(
      toolCall("list_dir", { path: "." }, { text: "Looking first." }),
      text("It fails on line 2."),
    );
    const out = join(world.box.root, "answer.md");
    const given = await run(["exec", "-o", out, "why does it fail?"], "line 1\nline 2: boom\n");
    assert.equal(given.code, 0, given.stderr);
    assert.equal(
      world.server.requests[1]?.body.messages.at(-1).content,
      "why does it fail?\n\n<stdin>\nline 1\nline 2: boom\n</stdin>",
    );
    assert.equal(given.stdout, "Looking first.\nIt fails on line 2.\n");
    assert.equal(readFileSync(out, "utf8"), "It fails on line 2.\n");
    world.server.reply(text("Hi."));
    const nowhere = await run(["exec", "-o", join(world.box.root, "no", "such", "a.md"), "Hi"]);
    assert.equal(nowhere.code, 1);
    assert.match(
      nowhere.stderr,
      /could not write the final message to .+ \(ENOENT\) \(output_failed\)/,
    );
  });

  it("the provider's own message is shown, with its credentials and addresses redacted", async () => {
    const said = `model 'demo-1' not found, try pulling it first (key ${TURN_KEY}, ${world.server.baseUrl}/api/pull, /root/.ollama/models)`;
    world.server.reply(fail(404, { body: { error: said } }));
    const r = await run(["exec", "Hello"]);
    assert.equal(r.code, 1);
    has(
      r.stderr,
      "\n  the provider said: model 'demo-1' not found, try pulling it first (key [redacted], [redacted])\n",
    );
    for (const leak of [TURN_KEY, world.server.baseUrl, "127.0.0.1", ".ollama"])
      assert.ok(!r.stderr.includes(leak), `${leak} in ${r.stderr}`);
  });

  it("an unreachable provider is named with the address from the user's config", async () => {
    const url = `${await closedPort()}/v1`;
    world.env = writeTurnHome(world.box, url);
    const r = await run(["exec", "Hello"]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /\nmc-agent: The provider is unavailable \(remote_unavailable\)\. /);
    has(
      r.stderr,
      `\n  could not reach provider "demo" at ${url} (from MC_HOME/config.json); is the server running there?\n`,
    );
  });
});

import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { z } from "zod";
import { ExecJsonLine } from "../../src/cli/turn/json-lines.js";
import { fail, text, toolCall } from "../fixtures/chat-completions-server.js";
import { PACKAGE_ROOT } from "../helpers/child.js";
import { runCli } from "../helpers/cli.js";
import { writeTurnHome } from "../helpers/turn-home.js";
import { cliTurnWorld } from "./cli-turn-world.js";

const DOC = join(PACKAGE_ROOT, "docs", "cli.md");
const BLOCK = /<!-- exec-json-schema -->\n```json\n([\s\S]*?)\n```\n<!-- \/exec-json-schema -->/;

/** The JSON Schema of exec --json's lines, from the schema the CLI writes them with. */
function execJsonSchema(): unknown {
  return {
    $id: "mc-agent-exec-json-line",
    title: "One line of mc-agent exec --json",
    ...z.toJSONSchema(ExecJsonLine(), { unrepresentable: "any" }),
  };
}

/** The JSON Schema as docs/cli.md prints it (UPDATE_GOLDEN=1 rewrites it from the code). */
function documentedSchema(): unknown {
  const doc = readFileSync(DOC, "utf8");
  const generated = JSON.stringify(execJsonSchema(), null, 2);
  if (process.env.UPDATE_GOLDEN === "1")
    writeFileSync(
      DOC,
      doc.replace(
        BLOCK,
        () =>
          `<!-- exec-json-schema -->\n\`\`\`json\n${generated}\n\`\`\`\n<!-- /exec-json-schema -->`,
      ),
    );
  const block = BLOCK.exec(readFileSync(DOC, "utf8"))?.[1];
  assert.ok(block, "docs/cli.md has the exec --json schema block");
  assert.equal(
    block,
    generated,
    "docs/cli.md's schema is the one the code defines (UPDATE_GOLDEN=1)",
  );
  return JSON.parse(block);
}

/**
 * `exec --json` against the real child and a loopback model: every stdout line is validated
 * against the JSON Schema docs/cli.md documents, read from the document itself.
 */
describe("mc-agent exec --json: the documented line shape", () => {
  const world = cliTurnWorld("mc-cli-json-");
  const validate = new Ajv2020({ strict: false, allErrors: true }).compile(
    documentedSchema() as object,
  );
  const run = (...args: string[]) =>
    runCli(args, { cwd: world.box.workspace, env: world.env, timeoutMs: 40_000 });
  /** Parses and validates every line; nothing but lines on stdout. */
  // biome-ignore lint/suspicious/noExplicitAny: the test reads the JSON lines freely.
  const linesOf = (stdout: string): any[] => {
    assert.ok(stdout.endsWith("\n"), JSON.stringify(stdout));
    return stdout
      .slice(0, -1)
      .split("\n")
      .map((raw) => {
        const line = JSON.parse(raw) as { type: unknown };
        assert.ok(validate(line), `${raw}\n${JSON.stringify(validate.errors?.slice(0, 3))}`);
        assert.equal(typeof line.type, "string");
        return line;
      });
  };

  it("a turn with a shell command: events with their type, the output included, the result last", async () => {
    world.server.reply(
      toolCall("shell", { command: "printf 'one\\ntwo\\n'" }, { text: "Running it." }),
      text("It printed two lines."),
    );
    const r = await run("exec", "--json", "--permissions", "full_access", "Run it");
    assert.equal(r.code, 0, r.stderr);
    const lines = linesOf(r.stdout);
    const result = lines.at(-1);
    assert.equal(result.type, "result");
    assert.equal(result.status, "completed");
    assert.equal(result.exit_code, 0);
    assert.equal(lines.filter((l) => l.type === "result").length, 1);
    const output = lines.filter((l) => l.type === "tool_output_delta").map((l) => l.text);
    assert.equal(output.join(""), "one\ntwo\n");
    assert.deepEqual(
      lines.filter((l) => l.type === "tool_done").map((l) => [l.status, l.exit_code]),
      [["completed", 0]],
    );
    // The schema is not a rubber stamp: a line without a type, or a stray field, fails it.
    const { type: _type, ...untyped } = lines[0];
    assert.equal(validate(untyped), false);
    assert.equal(validate({ ...result, extra: 1 }), false);
  });

  it("a failed turn: the result carries the provider's message; exit 1", async () => {
    world.server.reply(
      fail(404, { body: { error: "model 'demo-1' not found, try pulling it first" } }),
    );
    const r = await run("exec", "--json", "Hello");
    assert.equal(r.code, 1, r.stderr);
    const result = linesOf(r.stdout).at(-1);
    assert.equal(result.type, "result");
    assert.equal(result.status, "failed");
    assert.equal(result.exit_code, 1);
    assert.equal(result.error.code, "provider_error");
    assert.equal(result.error.provider_message, "model 'demo-1' not found, try pulling it first");
  });

  it("an approval nobody can answer: denied, exit 3, counted in the result; --fail-on-denial: 1", async () => {
    writeFileSync(join(world.box.workspace, "notes.txt"), "alpha\nbeta\n");
    const edit = { path: "notes.txt", old_text: "beta", new_text: "gamma" };
    world.server.reply(toolCall("edit_file", edit), text("Not allowed, then."));
    const r = await run("exec", "--json", "Change it");
    assert.equal(r.code, 3, r.stderr);
    const lines = linesOf(r.stdout);
    assert.ok(lines.some((l) => l.type === "approval_resolved" && l.decision === "deny"));
    assert.deepEqual(
      [lines.at(-1).type, lines.at(-1).status, lines.at(-1).exit_code, lines.at(-1).denied_unasked],
      ["result", "completed", 3, 1],
    );
    world.server.reply(toolCall("edit_file", edit), text("Not allowed, then."));
    const strict = await run("exec", "--json", "--fail-on-denial", "Change it");
    assert.equal(strict.code, 1, strict.stderr);
    assert.equal(linesOf(strict.stdout).at(-1).exit_code, 1);
    assert.equal(readFileSync(join(world.box.workspace, "notes.txt"), "utf8"), "alpha\nbeta\n");
  });

  it("a turn that cannot run is one error line, last; the report is on stderr too", async () => {
    world.env = writeTurnHome(world.box, world.server.baseUrl, { model: null });
    const r = await run("exec", "--json", "Hello");
    assert.equal(r.code, 1);
    const lines = linesOf(r.stdout);
    assert.equal(lines.length, 1);
    assert.equal(lines[0].type, "error");
    assert.equal(lines[0].code, "model_unavailable");
    assert.equal(lines[0].exit_code, 1);
    assert.match(lines[0].advice, /--model <id>/);
    assert.match(r.stderr, /^mc-agent: no model is selected \(model_unavailable\)\./);
    const empty = await runCli(["exec", "--json", "-"], {
      cwd: world.box.workspace,
      env: world.env,
      input: "",
    });
    assert.equal(empty.code, 2);
    const [usage] = linesOf(empty.stdout);
    assert.deepEqual([usage.type, usage.code, usage.exit_code], ["error", "usage_error", 2]);
    assert.equal(world.server.requests.length, 0);
  });
});

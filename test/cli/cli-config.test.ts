import assert from "node:assert/strict";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { type Sandbox, sandbox } from "../helpers/child.js";
import { runCli } from "../helpers/cli.js";

/**
 * A bad settings file is never silent: every command that starts the backend checks the
 * settings first and stops with exit 1, showing the file, the line and column with a caret (or
 * the key) and the reason, unless --ignore-config-errors. The real child, as a process.
 */
describe("CLI: settings errors stop the command", () => {
  let box: Sandbox;
  let env: Record<string, string | undefined>;
  beforeEach(() => {
    box = sandbox("mc-cli-config-");
    env = { PATH: process.env.PATH, HOME: box.home, MC_HOME: box.home };
  });
  afterEach(() => box.cleanup());
  const run = (...args: string[]) => runCli(args, { cwd: box.workspace, env });
  const globalFile = () => join(box.home, "config.json");
  const projectFile = () => join(box.workspace, ".mc", "config.json");

  it("a trailing comma: the file, line and column with a caret on the comma, exit 1", async () => {
    writeFileSync(
      globalFile(),
      '{\n  "enabled_models": ["openai/gpt-5"],\n  "effort": "low",\n}\n',
    );
    for (const command of [["models"], ["sessions"], ["refresh", "openai"], ["exec", "hi"]]) {
      const r = await run(...command);
      assert.equal(r.code, 1, `${command.join(" ")}: ${r.stderr}`);
      assert.equal(r.stdout, "", command.join(" "));
      const lines = r.stderr.split("\n");
      assert.equal(
        lines[0],
        `mc-agent: invalid settings: ${globalFile()}:3:18 (global settings): a trailing comma (JSON allows none after the last item).`,
      );
      assert.equal(lines[1], '  2 |   "enabled_models": ["openai/gpt-5"],');
      assert.equal(lines[2], '  3 |   "effort": "low",');
      assert.equal(lines[3], `    | ${" ".repeat(17)}^`);
      assert.match(lines[4] ?? "", /\(configuration_invalid\)\. .*--ignore-config-errors/);
    }
    // Nothing was done: no session saved, no cache written.
    assert.deepEqual(readdirSync(box.home).sort(), ["config.json"]);
  });

  it("an unknown key is named, with its place in the file", async () => {
    writeFileSync(
      globalFile(),
      JSON.stringify(
        {
          providers: {
            local: { type: "openai-compatible", base_url: "http://127.0.0.1:1/v1", apikey: "x" },
          },
        },
        null,
        2,
      ),
    );
    const r = await run("models");
    assert.equal(r.code, 1);
    assert.match(r.stderr, /config\.json:6:7 \(global settings\): an unknown key "apikey"\.\n/);
    assert.match(r.stderr, /\n {2}6 \| {7}"apikey": "x"\n {4}\| {7}\^\n/);
  });

  it("a schema fault names where it is (a wrong type, an enabled model of no provider)", async () => {
    writeFileSync(globalFile(), '{"enabled_models": ["nobody/m1"]}');
    const r = await run("sessions");
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /config\.json:1:21 \(global settings\): an enabled model of a provider that is not configured \(at enabled_models\.0\)\./,
    );
  });

  it("the project file <cwd>/.mc/config.json the same way", async () => {
    mkdirSync(join(box.workspace, ".mc"));
    writeFileSync(projectFile(), '{"model": "demo/demo-1", "temperature": 1}');
    const r = await run("models");
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      new RegExp(
        `^mc-agent: invalid settings: ${literal(projectFile())}:1:26 \\(project settings\\): an unknown key "temperature"\\.\n`,
      ),
    );
    assert.match(r.stderr, /ignores \.mc\/config\.json \(its model and effort\)/);
  });

  it("both files invalid: both are shown, then one failure line", async () => {
    writeFileSync(globalFile(), "{ model: 1 }");
    mkdirSync(join(box.workspace, ".mc"));
    writeFileSync(projectFile(), "");
    const r = await run("models");
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /config\.json:1:3 \(global settings\): not JSON here \(strings take double quotes\)\.\n {2}1 \| \{ model: 1 \}\n {4}\| {3}\^\n/,
    );
    assert.match(r.stderr, /\.mc\/config\.json:1:1 \(project settings\): the file is empty/);
    assert.match(r.stderr, /MC_HOME\/config\.json .+, and the backend ignores \.mc\/config\.json/);
  });

  it("--ignore-config-errors shows the error and goes on; the command's own output follows", async () => {
    writeFileSync(globalFile(), '{"enabled_models": [],}');
    const r = await run("models", "--ignore-config-errors");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /config\.json:1:22 \(global settings\): a trailing comma/);
    assert.match(r.stderr, /going on as --ignore-config-errors asks/);
    assert.match(r.stdout, /^Providers\n/);
    assert.match(r.stdout, /The backend settings file is invalid; built-in defaults are in use\./);
    // Before the command too; after "--" it is an operand, not the flag.
    assert.equal((await run("--ignore-config-errors", "sessions")).code, 0);
    const prompt = await run("exec", "--", "--ignore-config-errors");
    assert.equal(prompt.code, 1);
    assert.match(prompt.stderr, /\(configuration_invalid\)/);
  });

  it("files the backend cannot read: not a regular file, not UTF-8, over 1 MiB", async () => {
    mkdirSync(globalFile());
    let r = await run("models");
    assert.equal(r.code, 1);
    assert.match(r.stderr, /config\.json \(global settings\): not a regular file/);
    rmSync(globalFile(), { recursive: true });
    writeFileSync(globalFile(), Buffer.from([0x7b, 0xff, 0x7d]));
    r = await run("models");
    assert.match(r.stderr, /config\.json \(global settings\): not valid UTF-8\./);
    writeFileSync(globalFile(), `{"effort": "${"x".repeat(1_048_576)}"}`);
    r = await run("models");
    assert.match(r.stderr, /config\.json \(global settings\): larger than 1 MiB\./);
    assert.ok(r.stderr.length < 2000, "the file's content is not printed");
  });

  it("MC_HOME that is a file is named as such, exit 1", async () => {
    const file = join(box.root, "not-a-folder");
    writeFileSync(file, "x");
    env.MC_HOME = file;
    const r = await run("sessions");
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      `mc-agent: MC_HOME is ${file}, which is a file (or inside one), not a folder (home_not_a_folder). Point MC_HOME at a folder, or move that file away; mc-agent doctor shows the state.\n`,
    );
  });

  it("--version and -V print the version without a backend", async () => {
    env.MC_AGENT_CHILD = JSON.stringify(["/nonexistent"]);
    for (const flag of ["--version", "-V"]) {
      const r = await run(flag);
      assert.equal(r.code, 0);
      assert.match(r.stdout, /^mc-agent \d+\.\d+\.\d+\n$/);
    }
  });
});

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { type Sandbox, sandbox } from "../helpers/child.js";
import { runCli } from "../helpers/cli.js";

/**
 * `mc-agent hooks` and doctor's "Hooks" section (docs/hooks.md, "Seeing them"): each hook, its
 * file, whether it runs (a project's waits for trust), and a warning for a Claude Code tool name
 * we have no tool for.
 */
describe("CLI: hooks", () => {
  let box: Sandbox;
  let env: Record<string, string | undefined>;
  beforeEach(() => {
    box = sandbox("mc-cli-hooks-");
    env = { PATH: process.env.PATH, HOME: box.home, MC_HOME: box.home };
    writeFileSync(
      join(box.home, "config.json"),
      JSON.stringify({
        hooks: {
          PreToolUse: [
            { matcher: "Bash|MultiEdit", hooks: [{ type: "command", command: "./guard.sh" }] },
          ],
          SubagentStop: [
            {
              hooks: [
                { type: "command", command: "./a.sh" },
                { type: "command", command: "./b.sh" },
              ],
            },
          ],
        },
      }),
    );
    mkdirSync(join(box.workspace, ".mc"));
    writeFileSync(
      join(box.workspace, ".mc", "config.json"),
      JSON.stringify({
        hooks: { Stop: [{ hooks: [{ type: "command", command: "npm run lint", timeout: 120 }] }] },
      }),
    );
  });
  afterEach(() => box.cleanup());

  it("lists each hook, where from, whether it runs, and warns of Claude-only names", async () => {
    const r = await runCli(["hooks", "--json"], { cwd: box.workspace, env });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), {
      hooks: [
        {
          source: "global",
          event: "PreToolUse",
          matcher: "Bash|MultiEdit",
          command: "./guard.sh",
          timeout_s: 60,
          runs: true,
          warnings: ["MultiEdit"],
        },
        {
          source: "project",
          event: "Stop",
          matcher: null,
          command: "npm run lint",
          timeout_s: 120,
          runs: false,
          warnings: [],
        },
      ],
      claude_only_events: [{ source: "global", event: "SubagentStop", hooks: 2 }],
      invalid: { global: false, project: false },
    });
    const text = await runCli(["hooks"], { cwd: box.workspace, env });
    assert.match(text.stdout, /PreToolUse \[Bash\|MultiEdit\] {2}MC_HOME\/config\.json {2}runs/);
    assert.match(text.stdout, /Stop {2}\.mc\/config\.json {2}waits for trust in this folder/);
    assert.match(text.stdout, /"MultiEdit" is a Claude Code tool .* matches nothing/);
    assert.match(
      text.stdout,
      /"SubagentStop" \(MC_HOME\/config\.json\) is a Claude Code event .*: its 2 hooks never run/,
    );
  });

  it("doctor shows them", async () => {
    const r = await runCli(["doctor"], { cwd: box.workspace, env });
    assert.match(r.stdout, /\nHooks\n {2}PreToolUse \[Bash\|MultiEdit\]/);
    assert.match(r.stdout, /Stop {2}\.mc\/config\.json {2}waits for trust/);
    assert.match(r.stdout, /"SubagentStop" .* its 2 hooks never run/);
  });
});

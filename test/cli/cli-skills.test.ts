/**
 * `mc-agent skills` and doctor's "Skills" section (docs/skills.md): each skill with its place, a
 * user skill shadowed by the workspace's of the same name (both listed), a broken one left out
 * with why, and the custom commands; doctor shows the same, never counted as a problem.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import { sandbox } from "../helpers/child.js";
import { runCli } from "../helpers/cli.js";
import { skill, writeCommand, writeSkill } from "../skills/skill-files.js";

describe("mc-agent skills", () => {
  const boxes: ReturnType<typeof sandbox>[] = [];
  afterEach(() => {
    for (const box of boxes.splice(0)) box.cleanup();
  });

  it("lists each skill with its place, the shadowed one, the broken one and the commands", async () => {
    const box = sandbox("mc-cli-skills-");
    boxes.push(box);
    skill(join(box.workspace, ".agents/skills"), "shared", "The workspace's.");
    skill(join(box.home, "skills"), "shared", "The user's.");
    skill(join(box.home, "skills"), "mine", "Only mine.");
    writeSkill(join(box.workspace, ".claude/skills"), "broken", "name: broken");
    writeCommand(
      join(box.workspace, ".mc/commands"),
      "fix",
      "---\ndescription: Fix it\n---\n$ARGUMENTS",
    );
    const env = {
      PATH: process.env.PATH,
      HOME: box.home,
      MC_HOME: box.home,
      CODEX_HOME: join(box.home, "no-codex"),
      CLAUDE_CONFIG_DIR: join(box.home, "no-claude"),
    };
    const json = await runCli(["skills", "--json"], { cwd: box.workspace, env });
    assert.equal(json.code, 0, json.stderr);
    const listing = JSON.parse(json.stdout);
    assert.deepEqual(
      listing.skills.map((s: { name: string; place: string; shadowed_by: string | null }) => [
        s.name,
        s.place,
        s.shadowed_by,
      ]),
      [
        ["shared", ".agents/skills", null],
        ["mine", "MC_HOME/skills", null],
        ["shared", "MC_HOME/skills", ".agents/skills"],
      ],
    );
    assert.deepEqual(listing.skill_problems, [
      { place: ".claude/skills", entry: "broken", reason: "description_missing" },
    ]);
    assert.deepEqual(
      listing.commands.map((c: { name: string; description: string }) => [c.name, c.description]),
      [["fix", "Fix it"]],
    );
    const human = await runCli(["skills"], { cwd: box.workspace, env: { ...env, NO_COLOR: "1" } });
    assert.match(human.stdout, /shared {2}MC_HOME\/skills {2}shadowed by \.agents\/skills/);
    assert.match(human.stdout, /\.claude\/skills\/broken: left out \(description_missing\)/);
    const doctor = await runCli(["doctor"], { cwd: box.workspace, env: { ...env, NO_COLOR: "1" } });
    assert.match(doctor.stdout, /^Skills$/m);
    assert.match(doctor.stdout, /\.claude\/skills\/broken: left out \(description_missing\)/);
    assert.match(doctor.stdout, /\/fix {2}\.mc\/commands {2}Fix it/);
  });
});

/**
 * Skills through the real child (docs/skills.md): found in each place, a workspace skill winning
 * over a user skill of its name, broken front matter reported by settings.check (never a crash),
 * the listing in the system prompt, the `skill` tool's body at its bound and one past it, a user
 * skill's files readable by read_file but never writable, and nothing of it without `skills`.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { SKILL_BODY_BYTES } from "../../src/protocol/schemas/skills.js";
import { call, text, toolCalls } from "../fixtures/chat-completions-server.js";
import { bodiesOf, type Loose, offeredNames, resultText } from "../turns/tool-turns.js";
import { runTurn, TURN_CAPS, type TurnWorld, turnWorld } from "../turns/turn-harness.js";
import { skill, writeSkill } from "./skill-files.js";

const SKILL_CAPS = [...TURN_CAPS, "skills", "settings.check"];

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** The system prompt of a model request. */
function systemOf(request: Loose): string {
  return request.body.messages.find((m: Loose) => m.role === "system").content;
}

/** One skill in each of the seven places, a collision, and three broken ones. */
function everyPlace(workspace: string, home: string): void {
  skill(join(workspace, ".mc/skills"), "from-mc", "Our own place.");
  skill(join(workspace, ".agents/skills"), "from-agents", "The skills CLI's place.");
  skill(join(workspace, ".claude/skills"), "from-claude", "Claude Code's place.");
  skill(join(workspace, ".codex/skills"), "from-codex", "Codex's place.");
  skill(join(home, "skills"), "from-home", "MC_HOME's place.");
  // The harness sets CLAUDE_CONFIG_DIR and CODEX_HOME to these.
  skill(join(home, "no-claude/skills"), "from-user-claude", "The user's Claude Code place.");
  skill(join(home, "no-codex/skills"), "from-user-codex", "The user's Codex place.");
  skill(join(workspace, ".agents/skills"), "shared", "The workspace's shared skill.");
  skill(join(home, "skills"), "shared", "The user's shared skill.");
  writeSkill(join(workspace, ".agents/skills"), "bad-yaml", "name: [bad\ndescription: x");
  writeSkill(join(workspace, ".agents/skills"), "no-description", "name: no-description");
  writeSkill(join(workspace, ".claude/skills"), "bad-name", "name: Bad Name\ndescription: x");
}

describe("skills", () => {
  test("each place listed, the workspace's shared skill wins, broken ones reported", async () => {
    world = await turnWorld({ capabilities: SKILL_CAPS });
    everyPlace(world.box.workspace, world.box.home);
    const w = world;
    await w.child.call("session.create", {});
    w.server.reply(text("Ok."));
    assert.equal((await runTurn(w.child, "Hello")).result.status, "completed");
    const system = systemOf(w.server.requests[0]);
    for (const name of [
      "from-mc",
      "from-agents",
      "from-claude",
      "from-codex",
      "from-home",
      "from-user-claude",
      "from-user-codex",
    ])
      assert.match(system, new RegExp(`^- ${name}: `, "m"), name);
    assert.match(system, /^- shared: The workspace's shared skill\.$/m);
    assert.doesNotMatch(system, /The user's shared skill/);
    assert.doesNotMatch(system, /bad-yaml|no-description|bad-name/);
    assert.ok(offeredNames(w.server.requests[0]).includes("skill"));
    const check = await w.child.call("settings.check", {});
    assert.deepEqual(check.skill_problems, [
      { place: ".agents/skills", entry: "bad-yaml", reason: "front_matter_invalid" },
      { place: ".agents/skills", entry: "no-description", reason: "description_missing" },
      { place: ".claude/skills", entry: "bad-name", reason: "name_invalid" },
    ]);
  });

  test("the skill tool returns the body at its bound whole and one byte past it cut", async () => {
    world = await turnWorld({ capabilities: SKILL_CAPS });
    const w = world;
    const root = join(w.box.workspace, ".agents/skills");
    const atBound = `${"a".repeat(SKILL_BODY_BYTES - 1)}\n`;
    skill(root, "at-bound", "At the bound.", atBound);
    skill(root, "past-bound", "One past.", `${"b".repeat(SKILL_BODY_BYTES)}\n`);
    await w.child.call("session.create", {});
    w.server.reply(
      toolCalls([
        call("skill", { name: "at-bound" }, "c1"),
        call("skill", { name: "past-bound" }, "c2"),
      ]),
      toolCalls([call("skill", { name: "nope" }, "c3")]),
      text("Done."),
    );
    const { result, events } = await runTurn(w.child, "Use them", "read_only");
    assert.equal(result.status, "completed");
    const titles = bodiesOf(events, "tool_call").map((c) => c.title);
    assert.deepEqual(titles.slice(0, 2), ["Load skill at-bound", "Load skill past-bound"]);
    const whole = resultText(w.server.requests[1], "c1");
    assert.ok(whole.endsWith(`\n\n${atBound}`), "the body at the bound comes whole");
    assert.match(
      whole,
      /^Skill at-bound \(\.agents\/skills\)\. Its folder is \.agents\/skills\/at-bound/,
    );
    const cut = resultText(w.server.requests[1], "c2");
    assert.ok(
      cut.includes(
        `\n\n${"b".repeat(SKILL_BODY_BYTES)}\n[the skill's body is cut at ${SKILL_BODY_BYTES} bytes`,
      ),
    );
    assert.doesNotMatch(cut, /b\n\n?$/);
    const last = w.server.requests[2]?.body.messages.filter((m: Loose) => m.role === "tool").at(-1);
    assert.match(last.content, /there is no skill named "nope"/);
  });

  test("a user skill's file: read_file reads it, write_file and edit_file cannot change it", async () => {
    world = await turnWorld({ capabilities: SKILL_CAPS });
    const w = world;
    const folder = skill(join(w.box.home, "skills"), "mine", "Mine.", "See reference.md.\n");
    const reference = join(folder, "reference.md");
    await import("node:fs").then((fs) => fs.writeFileSync(reference, "the reference\n"));
    await w.child.call("session.create", {});
    w.server.reply(
      toolCalls([call("read_file", { path: reference }, "r1")]),
      toolCalls([call("write_file", { path: reference, content: "changed\n" }, "w1")]),
      toolCalls([call("edit_file", { path: reference, old_text: "the", new_text: "a" }, "e1")]),
      toolCalls([call("read_file", { path: join(w.box.home, "config.json") }, "r2")]),
      text("Done."),
    );
    const { result, events } = await runTurn(w.child, "Read it", "full_access");
    assert.equal(result.status, "completed");
    assert.deepEqual(
      bodiesOf(events, "tool_done").map((d) => d.status),
      ["completed", "failed", "failed", "failed"],
    );
    assert.equal(bodiesOf(events, "tool_call")[0].title, "Read skill mine: reference.md");
    assert.match(resultText(w.server.requests[1], "r1"), /^\s+1\tthe reference$/);
    assert.match(resultText(w.server.requests[2], "w1"), /outside the workspace/);
    assert.match(resultText(w.server.requests[3], "e1"), /outside the workspace/);
    assert.match(resultText(w.server.requests[4], "r2"), /outside the workspace/);
    assert.equal(readFileSync(reference, "utf8"), "the reference\n", "never written");
  });

  test("without skills negotiated: no listing, no tool, no read outside, no skill_problems", async () => {
    world = await turnWorld({ capabilities: [...TURN_CAPS, "settings.check"] });
    const w = world;
    const folder = skill(join(w.box.home, "skills"), "mine", "Mine.");
    writeSkill(join(w.box.workspace, ".agents/skills"), "bad-yaml", "name: [bad");
    await w.child.call("session.create", {});
    w.server.reply(
      toolCalls([call("read_file", { path: join(folder, "SKILL.md") }, "r1")]),
      text("Ok."),
    );
    assert.equal((await runTurn(w.child, "Hello", "read_only")).result.status, "completed");
    assert.doesNotMatch(systemOf(w.server.requests[0]), /Skills:/);
    assert.ok(!offeredNames(w.server.requests[0]).includes("skill"));
    assert.match(resultText(w.server.requests[1], "r1"), /outside the workspace/);
    const check = await w.child.call("settings.check", {});
    assert.equal("skill_problems" in check, false);
  });
});

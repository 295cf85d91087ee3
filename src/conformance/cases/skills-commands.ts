import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ConformanceCase } from "../case.js";
import { call, type SeenRequest, text, toolCalls } from "../chat-server.js";
import { runTurn } from "../turn-driver.js";
import { TURN_CAPABILITIES, withTurnWorld } from "../turn-world.js";

/**
 * Skills and custom commands (docs/skills.md): with `skills` the system prompt lists the
 * workspace's skills and `skill {name}` returns a body, and a broken front matter is reported by
 * `settings.check`; with `commands`, `commands.list` lists a command file and turn.start's
 * `command` is expanded by the child; without the capabilities, none of it.
 */

// biome-ignore lint/suspicious/noExplicitAny: the Chat Completions wire body, read freely.
type Loose = any;

function writeFile(path: string, content: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, content);
}

function writeSkills(workspace: string): void {
  const root = join(workspace, ".agents", "skills");
  writeFile(
    join(root, "kit-skill", "SKILL.md"),
    "---\nname: kit-skill\ndescription: The kit's skill.\n---\nThe kit skill's body.\n",
  );
  writeFile(join(root, "kit-broken", "SKILL.md"), "---\nname: kit-broken\n---\nNo description.\n");
}

function writeFix(workspace: string): void {
  writeFile(
    join(workspace, ".mc", "commands", "kit-fix.md"),
    "---\ndescription: Fix an issue\n---\nFix $1 ($2): $ARGUMENTS\n",
  );
}

const offered = (request: SeenRequest | undefined): string[] =>
  (request?.body?.tools ?? []).map((t: Loose) => t.function?.name);
const system = (request: SeenRequest | undefined): string =>
  (request?.body?.messages ?? []).find((m: Loose) => m.role === "system")?.content ?? "";
const lastUser = (request: SeenRequest | undefined): string =>
  (request?.body?.messages ?? []).filter((m: Loose) => m.role === "user").at(-1)?.content;

export const SKILL_COMMAND_CASES: ConformanceCase[] = [
  {
    id: "skills.listed_and_loaded",
    tier: "MUST",
    clause:
      "docs/skills.md, Skills: with `skills` the system prompt lists `- <name>: <description>` for each valid skill, the `skill` tool returns its body, and a skill with a missing description is left out and reported by settings.check as {place, entry, reason: description_missing}.",
    title: "a workspace skill listed and loaded; a broken one reported",
    async run(ctx) {
      writeSkills(ctx.box.workspace);
      await withTurnWorld(
        ctx,
        async ({ child, server }) => {
          await child.call("session.create", {});
          server.reply(
            toolCalls([call("skill", { name: "kit-skill" }, "call_skill")]),
            text("Ok."),
          );
          const { result } = await runTurn(child, "Use the skill", "read_only");
          assert.equal(result.status, "completed");
          assert.match(system(server.requests[0]), /^- kit-skill: The kit's skill\.$/m);
          assert.doesNotMatch(system(server.requests[0]), /kit-broken/);
          assert.ok(offered(server.requests[0]).includes("skill"));
          const answer = (server.requests[1]?.body?.messages ?? []).find(
            (m: Loose) => m.role === "tool" && m.tool_call_id === "call_skill",
          );
          assert.match(answer?.content ?? "", /The kit skill's body\./);
          const check = (await child.call("settings.check", {})) as Loose;
          assert.deepEqual(check.skill_problems, [
            { place: ".agents/skills", entry: "kit-broken", reason: "description_missing" },
          ]);
        },
        { capabilities: [...TURN_CAPABILITIES, "skills", "settings.check"] },
      );
    },
  },
  {
    id: "skills.not_negotiated",
    tier: "MUST",
    clause:
      "docs/skills.md, In a turn: without `skills` a turn has no skill listing and no `skill` tool.",
    title: "without skills: no listing, no skill tool",
    async run(ctx) {
      writeSkills(ctx.box.workspace);
      await withTurnWorld(ctx, async ({ child, server }) => {
        await child.call("session.create", {});
        server.reply(text("Ok."));
        assert.equal((await runTurn(child, "Hello", "read_only")).result.status, "completed");
        assert.doesNotMatch(system(server.requests[0]), /kit-skill/);
        assert.ok(!offered(server.requests[0]).includes("skill"));
      });
    },
  },
  {
    id: "commands.expanded",
    tier: "MUST",
    clause:
      "docs/skills.md, Custom commands: commands.list lists `<workspace>/.mc/commands/<name>.md` with its description; turn.start `{command: {name, arguments}}` sends the file's text with $ARGUMENTS and $1..$9 replaced; an unknown name is command_missing.",
    title: "commands.list, one command expanded in the child, an unknown one refused",
    async run(ctx) {
      writeFix(ctx.box.workspace);
      await withTurnWorld(
        ctx,
        async ({ child, server }) => {
          const { commands } = (await child.call("commands.list", {})) as Loose;
          const fix = commands.find((c: Loose) => c.name === "kit-fix");
          assert.deepEqual(
            { description: fix?.description, scope: fix?.scope, place: fix?.place },
            { description: "Fix an issue", scope: "workspace", place: ".mc/commands" },
          );
          await child.call("session.create", {});
          const missing = await child.request("turn.start", {
            command: { name: "kit-none", arguments: "" },
          });
          assert.equal(missing.error?.code, "command_missing");
          server.reply(text("Fixed."));
          const done = await child.request("turn.start", {
            command: { name: "kit-fix", arguments: '7 "right now"' },
          });
          assert.equal((done.result as Loose)?.status, "completed");
          assert.equal(lastUser(server.requests[0]), 'Fix 7 (right now): 7 "right now"\n');
        },
        { capabilities: [...TURN_CAPABILITIES, "commands"] },
      );
    },
  },
  {
    id: "commands.not_negotiated",
    tier: "MUST",
    clause:
      "docs/skills.md, On the wire: turn.start's `command` without `commands` negotiated is unsupported_capability, and nothing is sent.",
    title: "command without commands: unsupported_capability",
    async run(ctx) {
      writeFix(ctx.box.workspace);
      await withTurnWorld(ctx, async ({ child, server }) => {
        await child.call("session.create", {});
        const refused = await child.request("turn.start", {
          command: { name: "kit-fix", arguments: "" },
        });
        assert.equal(refused.error?.code, "unsupported_capability");
        assert.equal(server.requests.length, 0);
      });
    },
  },
];

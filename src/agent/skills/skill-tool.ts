/**
 * The `skill` tool (capability `skills`, docs/skills.md): the model loads a skill's body by its
 * name when a task needs it. The body is read fresh from its SKILL.md (front matter dropped), at
 * most SKILL_BODY_BYTES of it, with the folder it lives in so the model can read the skill's
 * other files (a user skill's folder is readable by read_file: skill-reads.ts).
 */
import { relative } from "node:path";
import { z } from "zod";
import { SKILL_BODY_BYTES, SKILL_FRONT_MATTER_BYTES } from "../../protocol/schemas/skills.js";
import { headBytes } from "../../protocol/text-cut.js";
import { parseToolInput, type Tool, ToolError } from "../tools/tool.js";
import type { Skill } from "./discover-skills.js";
import { frontMatter } from "./front-matter.js";
import { readBounded } from "./place-files.js";

export const SKILL_TOOL = "skill";

const SkillInput = z.strictObject({
  name: z.string().describe("The skill's name, as the system prompt lists it."),
});
type SkillInput = z.infer<typeof SkillInput>;

/** The `skill` tool over this turn's active skills (none: no tool). */
export function skillTools(skills: readonly Skill[] | undefined, workspace: string): Tool[] {
  return skills && skills.length > 0 ? [skillTool(skills, workspace)] : [];
}

function skillTool(skills: readonly Skill[], workspace: string): Tool<SkillInput> {
  return {
    name: SKILL_TOOL,
    kind: "read",
    description:
      "Load a skill's instructions by its name (the skills are listed in the system prompt). " +
      "Load a skill when the task matches its description, then follow it.",
    input: SkillInput,
    async plan(raw) {
      const { name } = parseToolInput(SkillInput, raw);
      const skill = skills.find((s) => s.name === name);
      if (!skill)
        throw new ToolError(
          `there is no skill named ${JSON.stringify(name)}; the skills are listed in the system prompt`,
        );
      return {
        title: `Load skill ${skill.name}`,
        approval: null,
        async execute() {
          const body = await skillBody(skill);
          const lines = body.split("\n").length;
          return {
            status: "completed",
            output: `${heading(skill, workspace)}\n\n${body}`,
            summary: `Loaded ${lines} ${lines === 1 ? "line" : "lines"}`,
            exit_code: null,
            diff: null,
          };
        },
      };
    },
  };
}

function heading(skill: Skill, workspace: string): string {
  const folder = skill.scope === "workspace" ? relative(workspace, skill.folder) : skill.folder;
  return `Skill ${skill.name} (${skill.place}). Its folder is ${folder}: paths in it are relative to that folder; read its files with read_file (they are read-only).`;
}

/** The body of the skill's SKILL.md as it is now, cut at SKILL_BODY_BYTES with a note. */
export async function skillBody(skill: Skill): Promise<string> {
  const read = await readBounded(
    skill.file,
    SKILL_FRONT_MATTER_BYTES + SKILL_BODY_BYTES,
    skill.confinedTo,
  );
  const gone = new ToolError(`skill ${skill.name} can no longer be read`);
  if (read.kind !== "bytes") throw gone;
  const text = read.bytes.toString("utf8");
  const parsed = await frontMatter(text);
  if (parsed.kind !== "parsed") throw gone;
  const body = Buffer.from(parsed.body, "utf8");
  if (body.length <= SKILL_BODY_BYTES) return body.toString("utf8");
  const head = Buffer.from(headBytes(body, SKILL_BODY_BYTES)).toString("utf8");
  return `${head}\n[the skill's body is cut at ${SKILL_BODY_BYTES} bytes; read the rest of SKILL.md with read_file]`;
}

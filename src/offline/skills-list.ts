/**
 * What `mc-agent skills` and `doctor` show of the skills and custom commands (docs/skills.md):
 * found as a child finds them for this folder, each with where it came from; the ones left out
 * with why. Nothing is run.
 */
import { realpathSync } from "node:fs";
import { type CommandCatalog, discoverCommands } from "../agent/commands/discover-commands.js";
import { discoverSkills, type SkillCatalog } from "../agent/skills/discover-skills.js";
import { resolveHome } from "../store/home.js";

export interface SkillsListing {
  skills: SkillCatalog["all"];
  problems: SkillCatalog["problems"];
  commands: CommandCatalog["commands"];
  commandProblems: CommandCatalog["problems"];
}

export async function listSkills(env: NodeJS.ProcessEnv, cwd: string): Promise<SkillsListing> {
  const inputs = { workspace: realpathSync(cwd), home: resolveHome(env), env };
  const [skills, commands] = await Promise.all([discoverSkills(inputs), discoverCommands(inputs)]);
  return {
    skills: skills.all,
    problems: skills.problems,
    commands: commands.commands,
    commandProblems: commands.problems,
  };
}

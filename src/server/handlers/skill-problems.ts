/**
 * `settings.check`'s `skill_problems` (with `skills`) and `command_problems` (with `commands`):
 * the skills and command files left out, and why (docs/skills.md), at most PROBLEMS_LISTED each.
 */
import { PROBLEMS_LISTED } from "../../protocol/schemas/skills.js";
import type { ServerState } from "../state.js";
import { childCommands, childSkills } from "./skills.js";

export async function fileProblems(state: ServerState) {
  const skills = state.negotiated.has("skills")
    ? { skill_problems: (await childSkills(state)).problems.slice(0, PROBLEMS_LISTED) }
    : {};
  const commands = state.negotiated.has("commands")
    ? { command_problems: (await childCommands(state)).problems.slice(0, PROBLEMS_LISTED) }
    : {};
  return { ...skills, ...commands };
}

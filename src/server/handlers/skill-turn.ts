/**
 * What a turn gets of the skills (docs/skills.md), with `skills` negotiated: the system prompt's
 * listing, the `skill` tool's skills, and the user skills' folders read_file may read.
 */
import type { Skill } from "../../agent/skills/discover-skills.js";
import { skillListing } from "../../agent/skills/skill-listing.js";
import type { ServerState } from "../state.js";
import { childSkills } from "./skills.js";

interface TurnSkills {
  listing: string | null;
  active: readonly Skill[];
  folders: readonly { name: string; folder: string }[];
}

const NONE: TurnSkills = { listing: null, active: [], folders: [] };

export async function turnSkills(state: ServerState): Promise<TurnSkills> {
  if (!state.negotiated.has("skills")) return NONE;
  const { active } = await childSkills(state);
  return {
    listing: skillListing(active),
    active,
    folders: active
      .filter((skill) => skill.scope === "user")
      .map((skill) => ({ name: skill.name, folder: skill.folder })),
  };
}

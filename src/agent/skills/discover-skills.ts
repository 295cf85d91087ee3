/**
 * Skills (docs/skills.md): folders holding a `SKILL.md` whose YAML front matter has a `name` and
 * a `description`, found in every place of skill-places.ts. A skill whose front matter is
 * missing or invalid is left out and reported, never a failure; of two skills with one name the
 * first place wins and the other is kept as shadowed (`mc-agent skills` lists both).
 */
import { join } from "node:path";
import {
  SKILL_DESCRIPTION_CHARS,
  SKILL_FRONT_MATTER_BYTES,
  SKILL_NAME,
  SKILL_NAME_CHARS,
  type SkillPlace,
  type SkillProblem,
} from "../../protocol/schemas/skills.js";
import { frontMatter } from "./front-matter.js";
import { placeEntries, readBounded, realFolder } from "./place-files.js";
import { type DiscoveryInputs, type Place, skillPlaces } from "./skill-places.js";

export interface Skill {
  name: string;
  description: string;
  place: SkillPlace;
  scope: "workspace" | "user";
  /** The skill's folder, real (symlinks resolved). */
  folder: string;
  /** Its SKILL.md, real. */
  file: string;
  /** The workspace it must stay in (a project skill), or null. */
  confinedTo: string | null;
  /** The place of the skill of the same name that wins over this one; null when this one wins. */
  shadowedBy: SkillPlace | null;
}

export interface SkillCatalog {
  /** Every valid skill, in precedence order (place, then name); shadowed ones included. */
  all: Skill[];
  /** The skills a turn offers: one per name, the winner. */
  active: Skill[];
  problems: SkillProblem[];
}

type Found = { skill: Skill } | { problem: SkillProblem } | null;

export async function discoverSkills(inputs: DiscoveryInputs): Promise<SkillCatalog> {
  const places = skillPlaces(inputs);
  const found = await Promise.all(places.map(placeSkills));
  const all: Skill[] = [];
  const problems: SkillProblem[] = [];
  const winners = new Map<string, Skill>();
  for (const entries of found)
    for (const entry of entries) {
      if (entry === null) continue;
      if ("problem" in entry) {
        problems.push(entry.problem);
        continue;
      }
      const winner = winners.get(entry.skill.name);
      if (winner) entry.skill.shadowedBy = winner.place;
      else winners.set(entry.skill.name, entry.skill);
      all.push(entry.skill);
    }
  return { all, active: all.filter((skill) => skill.shadowedBy === null), problems };
}

async function placeSkills(place: Place<SkillPlace>): Promise<Found[]> {
  const root = await realFolder(place.root, place.confinedTo);
  if (root === null) return [];
  const found: Found[] = [];
  for (const entry of await placeEntries(root)) found.push(await skillAt(place, root, entry));
  return found;
}

async function skillAt(place: Place<SkillPlace>, root: string, entry: string): Promise<Found> {
  const problem = (reason: SkillProblem["reason"]): Found => ({
    problem: { place: place.place, entry, reason },
  });
  const folder = await realFolder(join(root, entry), null);
  if (folder === null) return null; // a file beside the skills' folders: not a skill
  const read = await readBounded(
    join(folder, "SKILL.md"),
    SKILL_FRONT_MATTER_BYTES,
    place.confinedTo,
  );
  if (read.kind === "missing") return null; // a folder without SKILL.md is no skill
  if (read.kind === "problem") return problem(read.reason);
  const parsed = await frontMatter(
    read.bytes.subarray(0, SKILL_FRONT_MATTER_BYTES).toString("utf8"),
  );
  if (parsed.kind === "none") return problem("front_matter_missing");
  if (parsed.kind === "invalid") return problem(read.whole ? "front_matter_invalid" : "too_large");
  const { name, description } = parsed.fields;
  if (name === undefined || name === null) return problem("name_missing");
  if (!isName(name)) return problem("name_invalid");
  if (description === undefined || description === null) return problem("description_missing");
  if (!isDescription(description)) return problem("description_invalid");
  return {
    skill: {
      name,
      description: description.trim(),
      place: place.place,
      scope: place.scope,
      folder,
      file: read.real,
      confinedTo: place.confinedTo,
      shadowedBy: null,
    },
  };
}

function isName(value: unknown): value is string {
  return typeof value === "string" && value.length <= SKILL_NAME_CHARS && SKILL_NAME.test(value);
}

function isDescription(value: unknown): value is string {
  return (
    typeof value === "string" && value.trim() !== "" && [...value].length <= SKILL_DESCRIPTION_CHARS
  );
}

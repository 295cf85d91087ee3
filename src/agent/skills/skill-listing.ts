/**
 * The system prompt's list of skills (docs/skills.md, "In the system prompt"): each active
 * skill's name and description on a line of its own, at most SKILLS_LISTED skills and
 * SKILL_LISTING_BYTES bytes in all (the heading and the note included); the skills left out are
 * counted in a last note. Workspace skills come first.
 */
import { SKILL_LISTING_BYTES, SKILLS_LISTED } from "../../protocol/schemas/skills.js";
import type { Skill } from "./discover-skills.js";

const HEADING =
  "Skills: instructions (and files) for particular tasks. When a task matches a skill's description, load it with the `skill` tool before you start.";

/** The listing, or null when there is no skill. */
export function skillListing(skills: readonly Skill[]): string | null {
  if (skills.length === 0) return null;
  const lines = skills.map((skill) => `- ${skill.name}: ${oneLine(skill.description)}`);
  let kept = Math.min(lines.length, SKILLS_LISTED);
  let bytes =
    Buffer.byteLength(HEADING) +
    lines.slice(0, kept).reduce((sum, l) => sum + 1 + Buffer.byteLength(l), 0);
  for (;;) {
    const left = lines.length - kept;
    const note = left > 0 ? `\n${leftOutNote(left)}` : "";
    if (bytes + Buffer.byteLength(note) <= SKILL_LISTING_BYTES)
      return [HEADING, ...lines.slice(0, kept)].join("\n") + note;
    kept -= 1;
    bytes -= 1 + Buffer.byteLength(lines[kept] as string);
  }
}

function leftOutNote(left: number): string {
  return `(${left} more ${left === 1 ? "skill is" : "skills are"} not listed here, to keep this list short; the \`skill\` tool loads any skill by its name.)`;
}

/** A description as one line: YAML folded and literal blocks keep their new lines. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

import { listSkills, type SkillsListing } from "../../offline/skills-list.js";
import { UsageError } from "../args.js";
import type { Command } from "../command.js";
import type { Terminal } from "../terminal.js";

/** `mc-agent skills`: the skills and custom commands of this folder and where each comes from. */
export const skillsCommand: Command = {
  spec: {
    usage: "mc-agent skills [--json]",
    summary: "List this folder's skills and custom commands, and where each comes from.",
    help: [
      "Options:",
      "  --json    Print the listing as JSON (for scripts)",
      "  -h, --help",
      "",
      "Looks where a backend child looks: .mc/skills, .agents/skills, .claude/skills and",
      ".codex/skills of this folder, then MC_HOME/skills, ~/.claude/skills, ~/.codex/skills",
      "(a skill of this folder wins over one of yours of the same name: both are listed);",
      "commands in .mc/commands, .claude/commands, MC_HOME/commands and ~/.claude/commands.",
      "A skill or command file that cannot be read as one is listed with why. docs/skills.md.",
    ].join("\n"),
    options: { json: { type: "boolean" } },
  },
  async run(args, term) {
    if (args.positionals.length > 0) throw new UsageError("too many arguments");
    const listing = await listSkills(term.io.env, process.cwd());
    if (args.values.json) term.line(JSON.stringify(jsonOf(listing), null, 2));
    else for (const line of skillLines(term, listing, "")) term.line(line);
    return 0;
  },
};

function jsonOf(listing: SkillsListing) {
  return {
    skills: listing.skills.map((s) => ({
      name: s.name,
      description: s.description,
      scope: s.scope,
      place: s.place,
      folder: s.folder,
      shadowed_by: s.shadowedBy,
    })),
    skill_problems: listing.problems,
    commands: listing.commands.map((c) => ({
      name: c.name,
      description: c.description,
      argument_hint: c.argumentHint,
      scope: c.scope,
      place: c.place,
    })),
    command_problems: listing.commandProblems,
  };
}

/** The listing as lines (also doctor's "Skills" section). */
export function skillLines(term: Terminal, listing: SkillsListing, indent: string): string[] {
  const lines: string[] = [];
  if (listing.skills.length === 0) lines.push(`${indent}${term.dim("no skills")}`);
  for (const skill of listing.skills) {
    const state = skill.shadowedBy
      ? term.yellow(`shadowed by ${skill.shadowedBy}`)
      : term.green(skill.scope);
    lines.push(`${indent}${term.bold(skill.name)}  ${skill.place}  ${state}`);
    lines.push(`${indent}  ${skill.description.replace(/\s+/g, " ")}`);
  }
  for (const problem of listing.problems)
    lines.push(
      `${indent}${term.yellow(`${problem.place}/${problem.entry}: left out (${problem.reason})`)}`,
    );
  if (listing.commands.length === 0) lines.push(`${indent}${term.dim("no custom commands")}`);
  for (const command of listing.commands) {
    const about = command.description ? `  ${command.description}` : "";
    lines.push(`${indent}${term.bold(`/${command.name}`)}  ${command.place}${about}`);
  }
  for (const problem of listing.commandProblems)
    lines.push(
      `${indent}${term.yellow(`${problem.place}/${problem.entry}: left out (${problem.reason})`)}`,
    );
  return lines;
}

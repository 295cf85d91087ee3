/**
 * Custom commands (docs/skills.md, "Custom commands"): Markdown files in the places of
 * skill-places.ts, `/name` for `<name>.md`, with an optional front matter (`description`,
 * `argument-hint`). A file that cannot be one is left out and reported; of two files of one name
 * the first place wins (the workspace's over the user's, `.mc` over `.claude`).
 */
import { join } from "node:path";
import {
  COMMAND_FILE_BYTES,
  COMMAND_NAME,
  COMMANDS_LISTED,
  type CommandPlace,
  type CommandProblem,
  SKILL_DESCRIPTION_CHARS,
} from "../../protocol/schemas/skills.js";
import { frontMatter } from "../skills/front-matter.js";
import { placeEntries, readBounded, realFolder } from "../skills/place-files.js";
import { commandPlaces, type DiscoveryInputs, type Place } from "../skills/skill-places.js";

export interface CustomCommand {
  name: string;
  description: string | null;
  argumentHint: string | null;
  place: CommandPlace;
  scope: "workspace" | "user";
  /** The file, real; read again at each expansion. */
  file: string;
  confinedTo: string | null;
}

export interface CommandCatalog {
  /** One per name (the winner), sorted by name, at most COMMANDS_LISTED. */
  commands: CustomCommand[];
  problems: CommandProblem[];
}

type Found = { command: CustomCommand } | { problem: CommandProblem } | null;

export async function discoverCommands(inputs: DiscoveryInputs): Promise<CommandCatalog> {
  const found = await Promise.all(commandPlaces(inputs).map(placeCommands));
  const winners = new Map<string, CustomCommand>();
  const problems: CommandProblem[] = [];
  for (const entries of found)
    for (const entry of entries) {
      if (entry === null) continue;
      if ("problem" in entry) problems.push(entry.problem);
      else if (!winners.has(entry.command.name)) winners.set(entry.command.name, entry.command);
    }
  const commands = [...winners.values()]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, COMMANDS_LISTED);
  return { commands, problems };
}

async function placeCommands(place: Place<CommandPlace>): Promise<Found[]> {
  const root = await realFolder(place.root, place.confinedTo);
  if (root === null) return [];
  const found: Found[] = [];
  for (const entry of await placeEntries(root))
    if (entry.endsWith(".md")) found.push(await commandAt(place, root, entry));
  return found;
}

async function commandAt(place: Place<CommandPlace>, root: string, entry: string): Promise<Found> {
  const problem = (reason: CommandProblem["reason"]): Found => ({
    problem: { place: place.place, entry, reason },
  });
  const name = entry.slice(0, -".md".length);
  if (!COMMAND_NAME.test(name)) return problem("name_invalid");
  const read = await readBounded(join(root, entry), COMMAND_FILE_BYTES, place.confinedTo);
  if (read.kind === "missing") return null;
  if (read.kind === "problem") return problem(read.reason);
  if (!read.whole) return problem("too_large");
  const parsed = await frontMatter(read.bytes.toString("utf8"));
  if (parsed.kind === "invalid") return problem("front_matter_invalid");
  const fields = parsed.kind === "parsed" ? parsed.fields : {};
  const description = optionalText(fields.description);
  if (description === false) return problem("description_invalid");
  const hint = optionalText(fields["argument-hint"]);
  return {
    command: {
      name,
      description,
      argumentHint: hint === false ? null : hint,
      place: place.place,
      scope: place.scope,
      file: read.real,
      confinedTo: place.confinedTo,
    },
  };
}

/** A front matter text field: null when absent, false when it is not one line of text. */
function optionalText(value: unknown): string | null | false {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") return false;
  const text = value.replace(/\s+/g, " ").trim();
  if (text === "" || [...text].length > SKILL_DESCRIPTION_CHARS) return false;
  return text;
}

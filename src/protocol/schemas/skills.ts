/**
 * Skills and custom commands (docs/skills.md): the `skills` capability (the `skill` tool, the
 * listing in the system prompt, `settings.check`'s `skill_problems`) and the `commands`
 * capability (`commands.list`, `turn.start`'s `command`, `settings.check`'s `command_problems`).
 */
import { z } from "zod";
import { type Infer, lazy } from "../lazy.js";

/** The most skills the system prompt lists; the rest are counted in a note. */
export const SKILLS_LISTED = 64;
/** The most bytes (UTF-8) of the system prompt's skill listing, its note included. */
export const SKILL_LISTING_BYTES = 8 * 1024;
/** The most bytes of a skill's body the `skill` tool returns; past it, a note says where to read on. */
export const SKILL_BODY_BYTES = 64 * 1024;
/** The most bytes read of a SKILL.md to find its front matter; one closing later is a problem. */
export const SKILL_FRONT_MATTER_BYTES = 16 * 1024;
/** A skill's name, as the Agent Skills format has it: lowercase words joined by single hyphens. */
export const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SKILL_NAME_CHARS = 64;
export const SKILL_DESCRIPTION_CHARS = 1024;
/** The most entries of one skills or commands folder looked at (the rest are left out). */
export const PLACE_ENTRIES = 256;

/** The most bytes of a command file; a larger one is left out and reported. */
export const COMMAND_FILE_BYTES = 64 * 1024;
/** A command's name: its file's name without `.md`. */
export const COMMAND_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
/** The most commands `commands.list` returns (every place together). */
export const COMMANDS_LISTED = 256;
/** The most problems `settings.check` reports of each kind. */
export const PROBLEMS_LISTED = 64;

/** Where a skill comes from, without a path: the folder it was found in. */
export const SKILL_PLACES = [
  ".mc/skills",
  ".agents/skills",
  ".claude/skills",
  ".codex/skills",
  "MC_HOME/skills",
  "~/.claude/skills",
  "~/.codex/skills",
] as const;
export const SkillPlace = lazy(() => z.enum(SKILL_PLACES));
export type SkillPlace = Infer<typeof SkillPlace>;

/** Where a command comes from. */
export const COMMAND_PLACES = [
  ".mc/commands",
  ".claude/commands",
  "MC_HOME/commands",
  "~/.claude/commands",
] as const;
export const CommandPlace = lazy(() => z.enum(COMMAND_PLACES));
export type CommandPlace = Infer<typeof CommandPlace>;

/** The workspace's own (project) or the user's. */
export const Scope = lazy(() => z.enum(["workspace", "user"]));

/** Why a skill or a command file was left out. */
export const FILE_PROBLEMS = [
  "front_matter_missing",
  "front_matter_invalid",
  "name_missing",
  "name_invalid",
  "description_missing",
  "description_invalid",
  "too_large",
  "not_regular",
  "unreadable",
  "outside_workspace",
] as const;

export const FileProblemReason = lazy(() => z.enum(FILE_PROBLEMS));

const FileProblem = (places: z.ZodType) =>
  z.strictObject({
    place: places,
    /** The skill's folder name, or the command's file name: never a path. */
    entry: z.string().min(1).max(255),
    reason: FileProblemReason(),
  });

export const SkillProblem = lazy(() => FileProblem(SkillPlace()));
export type SkillProblem = Infer<typeof SkillProblem>;
export const CommandProblem = lazy(() => FileProblem(CommandPlace()));
export type CommandProblem = Infer<typeof CommandProblem>;

/** `turn.start`'s `command` (capability `commands`): expanded by the child into the turn's input. */
export const TurnCommand = lazy(() =>
  z.strictObject({
    name: z.string().regex(COMMAND_NAME),
    /** What follows `/name` (empty for none): `$ARGUMENTS`, and `$1`..`$9` its words. */
    arguments: z.string(),
  }),
);
export type TurnCommand = Infer<typeof TurnCommand>;

export const CommandEntry = lazy(() =>
  z.strictObject({
    name: z.string().regex(COMMAND_NAME),
    /** The front matter's `description`, for menus; null when it has none. */
    description: z.string().max(SKILL_DESCRIPTION_CHARS).nullable(),
    /** The front matter's `argument-hint` (what to type after the name); null when none. */
    argument_hint: z.string().max(SKILL_DESCRIPTION_CHARS).nullable(),
    scope: Scope(),
    place: CommandPlace(),
  }),
);
export type CommandEntry = Infer<typeof CommandEntry>;

/** `commands.list`: the commands a turn.start may name, one per name (the one that wins). */
export const CommandsListResult = lazy(() =>
  z.strictObject({ commands: z.array(CommandEntry()).max(COMMANDS_LISTED) }),
);
export type CommandsListResult = Infer<typeof CommandsListResult>;

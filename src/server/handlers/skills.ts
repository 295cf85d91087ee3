/**
 * Skills and custom commands in the child (docs/skills.md): found once per attached session
 * (at its first need: the first turn, `commands.list` or `settings.check`), with the discovery
 * code and the YAML parser loaded only then; `commands.list`; and the expansion of
 * `turn.start`'s `command` into the turn's input.
 */
import type { CommandCatalog } from "../../agent/commands/discover-commands.js";
import type { SkillCatalog } from "../../agent/skills/discover-skills.js";
import { ProtocolError } from "../../protocol/codes.js";
import type { ParamsOf } from "../../protocol/methods.js";
import { TURN_EXTENSION } from "../../protocol/schemas/turns.js";
import type { HandlerTable } from "../handler.js";
import type { ServerState } from "../state.js";

interface Found {
  /** The attached session they were found for (null: none attached). */
  session: string | null;
  skills: Promise<SkillCatalog> | null;
  commands: Promise<CommandCatalog> | null;
}

/** What one child found, by its state (one child, one workspace). */
const found = new WeakMap<ServerState, Found>();

function foundFor(state: ServerState): Found {
  const session = state.attachment?.session_id ?? null;
  let entry = found.get(state);
  // A session attached since: skills and commands are found again, as at a session's start.
  if (!entry || entry.session !== session) {
    entry = { session, skills: null, commands: null };
    found.set(state, entry);
  }
  return entry;
}

function inputsOf(state: ServerState) {
  return { workspace: state.cwd, home: state.home, env: state.env };
}

export function childSkills(state: ServerState): Promise<SkillCatalog> {
  const entry = foundFor(state);
  entry.skills ??= import("../../agent/skills/discover-skills.js").then((m) =>
    m.discoverSkills(inputsOf(state)),
  );
  return entry.skills;
}

export function childCommands(state: ServerState): Promise<CommandCatalog> {
  const entry = foundFor(state);
  entry.commands ??= import("../../agent/commands/discover-commands.js").then((m) =>
    m.discoverCommands(inputsOf(state)),
  );
  return entry.commands;
}

export function commandHandlers(state: ServerState): HandlerTable {
  return {
    "commands.list": async () => ({
      commands: (await childCommands(state)).commands.map((command) => ({
        name: command.name,
        description: command.description,
        argument_hint: command.argumentHint,
        scope: command.scope,
        place: command.place,
      })),
    }),
  };
}

const TOO_LONG = `The command's expansion is longer than input_bytes (${TURN_EXTENSION.input_bytes} bytes).`;

/**
 * The turn's input: `input` as given, or `command` expanded. `command` without `commands`
 * negotiated is `unsupported_capability`; an unknown name `command_missing`; an expansion that is
 * empty or past `input_bytes` `invalid_params`. All before anything is saved or run.
 */
export async function turnInput(
  state: ServerState,
  params: ParamsOf<"turn.start">,
): Promise<string> {
  if (params.command === undefined) return params.input as string;
  if (!state.negotiated.has("commands")) throw new ProtocolError("unsupported_capability");
  const { name, arguments: args } = params.command;
  const command = (await childCommands(state)).commands.find((c) => c.name === name);
  if (!command) throw new ProtocolError("command_missing");
  const { expandCommand } = await import("../../agent/commands/expand-command.js");
  const text = await expandCommand(command, args);
  if (text === null) throw new ProtocolError("command_missing");
  if (text.trim() === "")
    throw new ProtocolError("invalid_params", "The command's expansion is empty.");
  if (Buffer.byteLength(text, "utf8") > TURN_EXTENSION.input_bytes)
    throw new ProtocolError("invalid_params", TOO_LONG);
  return text;
}

/**
 * Custom commands in ACP (docs/skills.md, docs/acp.md "Commands"): the workspace's and the
 * user's commands (`commands.list`) join the session's `available_commands_update` after its
 * own (`/undo`, `/rename`, which win over a file of the same name), and a prompt `/name args`
 * naming one is sent as `turn.start`'s `command`, so the child expands it as for every frontend.
 */
import type { AvailableCommand } from "@agentclientprotocol/sdk";
import type { TurnCommand } from "../protocol/schemas/skills.js";
import type { EngineLink } from "./engine-link.js";

const COMMAND_LINE = /^\s*\/([A-Za-z0-9][A-Za-z0-9_-]*)(?:[ \t]+([\s\S]*?))?\s*$/;

/** The session's own commands, then every custom one of another name. */
export async function withCustomCommands(
  engine: EngineLink,
  own: AvailableCommand[],
): Promise<AvailableCommand[]> {
  const taken = new Set(own.map((command) => command.name));
  const { commands } = await engine.request("commands.list", {});
  return [
    ...own,
    ...commands
      .filter((command) => !taken.has(command.name))
      .map((command) => ({
        name: command.name,
        description: command.description ?? `Custom command (${command.place})`,
        ...(command.argument_hint ? { input: { hint: command.argument_hint } } : {}),
      })),
  ];
}

/** The turn's text as `turn.start` takes it: a custom command when the prompt names one. */
export async function turnText(
  engine: EngineLink,
  input: string,
): Promise<{ input: string } | { command: TurnCommand }> {
  const match = COMMAND_LINE.exec(input);
  if (!match) return { input };
  const name = match[1] as string;
  const { commands } = await engine.request("commands.list", {});
  if (!commands.some((command) => command.name === name)) return { input };
  return { command: { name, arguments: match[2] ?? "" } };
}

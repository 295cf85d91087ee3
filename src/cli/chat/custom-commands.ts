/**
 * The workspace's and the user's custom commands in chat (docs/skills.md): `/name args` for a
 * command `commands.list` lists, when the backend offers `commands`; the child expands it.
 */
import type { TurnCommand } from "../../protocol/schemas/skills.js";
import { type ChatState, note } from "./chat-state.js";

/** The command `/name arg` names, or null when the backend has no such custom command. */
export async function customCommand(
  state: ChatState,
  input: { name: string; arg: string },
): Promise<TurnCommand | null> {
  if (!state.client.has("commands")) return null;
  const { commands } = await state.client.call("commands.list", {});
  return commands.some((c) => c.name === input.name)
    ? { name: input.name, arguments: input.arg }
    : null;
}

/** `/help`'s part: the custom commands, after the chat's own. */
export async function listCustomCommands(state: ChatState): Promise<void> {
  if (!state.client.has("commands")) return;
  const { commands } = await state.client.call("commands.list", {});
  if (commands.length === 0) return;
  note(state, "Custom commands (this workspace's and yours; the chat's own win):");
  for (const command of commands) {
    const usage = `/${command.name}${command.argument_hint ? ` ${command.argument_hint}` : ""}`;
    const about = command.description ?? `(${command.place})`;
    state.term.note(`  ${usage.padEnd(22)} ${state.term.paintNote(about, "2")}`);
  }
}

import { RemoteError } from "../../client/index.js";
import { isTitle } from "../../protocol/schemas/manage.js";
import { costCell } from "../manage/usd.js";
import { type ChatState, note, sessionLabel } from "./chat-state.js";

/** `/rename <title>`: session.rename of this chat's session (saved by its first turn). */
export async function renameChat(state: ChatState, title: string): Promise<void> {
  if (!isTitle(title)) {
    note(state, "Usage: /rename <title> (one line, 1 to 200 characters).", "33");
    return;
  }
  if (!state.client.has("session.manage")) {
    note(state, "This backend cannot rename sessions.", "33");
    return;
  }
  if (!state.saved) {
    note(state, "This session is saved by its first turn; rename it after that.", "33");
    return;
  }
  try {
    const session = await state.client.rename(state.sessionId, title);
    note(state, `Renamed: ${session.title ?? title}`);
  } catch (error) {
    if (!(error instanceof RemoteError)) throw error;
    note(state, `Not renamed: ${error.message}`, "33");
  }
}

/** `/status`: the session, model, permissions and the session's cost so far. */
export async function chatStatus(state: ChatState): Promise<void> {
  note(state, sessionLabel(state));
  note(
    state,
    `Model: ${state.model}${state.effort ? ` (${state.effort})` : ""}; permissions: ${state.permissions ?? "ask"}`,
  );
  if (!state.saved || !state.client.has("session.manage")) return;
  const usage = await state.client.usage(state.sessionId);
  const t = usage.usage;
  note(
    state,
    `Used: ${usage.turns} turn(s), ${t.input_tokens} tokens in, ${t.output_tokens} out; cost ${costCell(usage)}${usage.partial ? ` (${usage.unknown_cost_turns} turn(s) of unknown price)` : ""}`,
  );
}

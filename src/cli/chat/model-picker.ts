import { isRemote, type ModelChoice } from "../../client/index.js";
import { type ChatState, note } from "./chat-state.js";

/**
 * /model [id [effort]]: reads the catalog afresh (so the selection guard is the newest one),
 * then selects the named model, or the one picked from the numbered list of choices.
 * Turns after it use the new model; the session's earlier turns are untouched.
 */
export async function pickModel(state: ChatState, arg: string): Promise<void> {
  const { client, term, reader } = state;
  const catalog = await client.catalogStatus();
  if (catalog.choices.length === 0) {
    note(
      state,
      'No model is selectable here: "mc-agent setup" sets one up (quit the chat first); "mc-agent models" says why.',
      "33",
    );
    return;
  }
  const [wanted, effort = null] = arg.split(/\s+/).filter((w) => w !== "");
  let choice: ModelChoice | undefined;
  if (wanted !== undefined) {
    choice = catalog.choices.find((c) => c.id === wanted);
    if (!choice) {
      note(state, `"${wanted}" is not a choice here; /model alone lists them.`, "33");
      return;
    }
  } else {
    catalog.choices.forEach((c, i) => {
      const current = c.id === state.model ? "*" : " ";
      const efforts = c.efforts.length > 0 ? `  efforts: ${c.efforts.join(", ")}` : "";
      const name = c.name && c.name !== c.model ? `  ${c.name}` : "";
      term.note(
        `${current} ${String(i + 1).padStart(2)}  ${c.id}${term.paintNote(name + efforts, "2")}`,
      );
    });
    const answer = await reader.ask("Model number (Enter keeps the current one): ");
    if (answer.kind !== "line" || answer.text.trim() === "") return;
    choice = catalog.choices[Number(answer.text.trim()) - 1];
    if (!/^\d+$/.test(answer.text.trim()) || !choice) {
      note(state, "No such number; the model is unchanged.", "33");
      return;
    }
  }
  if (effort !== null && !choice.efforts.includes(effort)) {
    note(
      state,
      `${choice.id} does not offer the effort "${effort}" (${choice.efforts.join(", ") || "it has none"}).`,
      "33",
    );
    return;
  }
  try {
    await client.select(choice.id, effort, catalog.guard);
  } catch (error) {
    if (isRemote(error, "invalid_params")) {
      note(state, `The backend refused ${choice.id}; the model is unchanged.`, "33");
      return;
    }
    throw error;
  }
  state.model = choice.id;
  state.effort = choice.efforts.length === 0 ? null : (effort ?? choice.default_effort);
  note(
    state,
    `Model: ${state.model}${state.effort ? ` (${state.effort})` : ""} from the next turn on.`,
  );
}

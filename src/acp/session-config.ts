import type { SessionConfigOption, SessionModeState } from "@agentclientprotocol/sdk";
import type { ResultOf } from "../protocol/methods.js";
import { PERMISSIONS, type Permissions } from "../protocol/schemas/turns.js";
import { acpError } from "./errors.js";

/**
 * ACP session modes are our permission levels (docs/turns.md, "Permissions"), and the config
 * options are `mode`, `model` (our catalog's choices) and `thought_level` (the selected model's
 * efforts). Built from what the engine says each time, never cached (docs/acp.md).
 */
const MODE_TEXT: Record<Permissions, { name: string; description: string }> = {
  read_only: { name: "Read only", description: "Reads and searches; no edits, no commands." },
  ask: { name: "Ask", description: "Asks before every edit and every command." },
  accept_edits: { name: "Accept edits", description: "Edits freely; asks before commands." },
  sandboxed: {
    name: "Sandboxed",
    description: "Edits freely; runs commands unasked inside an OS sandbox.",
  },
  full_access: { name: "Full access", description: "Edits and runs commands without asking." },
};

export const DEFAULT_MODE: Permissions = "ask";

/** The value `model` shows while nothing is selected: no model is ever chosen for the user. */
export const NO_MODEL = "none";
/** The effort value shown while the model has efforts but neither a chosen one nor a default. */
export const PROVIDER_DEFAULT = "default";

function isMode(value: string): value is Permissions {
  return (PERMISSIONS as readonly string[]).includes(value);
}

/** The modes a session offers: `sandboxed` only where the engine found a sandbox that starts. */
function modesFor(sandbox: boolean): Permissions[] {
  return PERMISSIONS.filter((id) => sandbox || id !== "sandboxed");
}

/**
 * A mode a client asks for (set_mode, or the `mode` config option), checked: an unknown one is
 * `invalid_params`; `sandboxed` where no sandbox can start is our `sandboxed` refusal,
 * `sandbox_unavailable`, before any prompt (the mode is left as it was).
 */
export function checkedMode(value: string, sandbox: boolean): Permissions {
  if (!isMode(value)) throw acpError("invalid_params", "No such mode.");
  if (!modesFor(sandbox).includes(value)) throw acpError("sandbox_unavailable");
  return value;
}

export function modeState(current: Permissions, sandbox: boolean): SessionModeState {
  return {
    currentModeId: current,
    availableModes: modesFor(sandbox).map((id) => ({ id, ...MODE_TEXT[id] })),
  };
}

type Choice = ResultOf<"model.catalog">["choices"][number];
type Selection = ResultOf<"model.catalog">["selection"];

export function configOptions(
  mode: Permissions,
  sandbox: boolean,
  choices: Choice[],
  selection: Selection,
): SessionConfigOption[] {
  const options: SessionConfigOption[] = [
    {
      type: "select",
      id: "mode",
      name: "Mode",
      category: "mode",
      currentValue: mode,
      options: modesFor(sandbox).map((id) => ({ value: id, ...MODE_TEXT[id] })),
    },
  ];
  const selected = choices.find((choice) => choice.id === selection.model);
  const models = choices.map((choice) => ({
    value: choice.id,
    name: choice.name ?? choice.model,
    description: choice.id,
  }));
  options.push({
    type: "select",
    id: "model",
    name: "Model",
    category: "model",
    currentValue: selected ? selected.id : NO_MODEL,
    options: selected ? models : [{ value: NO_MODEL, name: "No model selected" }, ...models],
  });
  if (selected && selected.efforts.length > 0) {
    // With neither a chosen effort nor a default, the turn sends none: said as it is.
    const current = selection.effort ?? selected.default_effort;
    const efforts = selected.efforts.map((effort) => ({ value: effort, name: effort }));
    options.push({
      type: "select",
      id: "thought_level",
      name: "Thinking effort",
      category: "thought_level",
      currentValue: current ?? PROVIDER_DEFAULT,
      options:
        current === null
          ? [{ value: PROVIDER_DEFAULT, name: "Provider default" }, ...efforts]
          : efforts,
    });
  }
  return options;
}

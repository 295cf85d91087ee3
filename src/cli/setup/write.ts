import {
  readSettingsForEdit,
  type SetupChange,
  withProviderText,
  writeSetupSettings,
} from "../../offline/settings-edit.js";
import { explained } from "../commands/models-enable.js";
import type { Terminal } from "../terminal.js";

/** Refusals of the settings edit (an invalid or unreadable file), worded as `models enable` does. */
export const explainedEdit = explained;

/**
 * The settings file as setup found it: its text (null when absent; the final write is refused
 * if it changed meanwhile) and the text a staged refresh reads (the file with one provider added).
 */
export async function readForSetup(path: string): Promise<{
  text: string | null;
  withProvider: (id: string, entry: NonNullable<SetupChange["provider"]>["entry"]) => string;
}> {
  const { text } = await readSettingsForEdit(path);
  return { text, withProvider: (id, entry) => withProviderText(text, { id, entry }) };
}

/** setup's one write, and what it did. */
export async function writeSetup(
  term: Terminal,
  path: string,
  before: string | null,
  change: SetupChange,
): Promise<void> {
  const outcome = await explained(() => writeSetupSettings(path, before, change));
  if (outcome === "unchanged") {
    term.line(`${change.model} is already enabled and your model; ${path} is unchanged.`);
    return;
  }
  const added = change.provider ? `added the provider ${change.provider.id}, ` : "";
  term.line(`Wrote ${path}: ${added}enabled ${change.model} and made it your model.`);
  if (before !== null) term.line("Everything else in the file is kept.");
}

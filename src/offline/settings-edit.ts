import { readFile, stat } from "node:fs/promises";
import { applyEdits, type FormattingOptions, modify } from "jsonc-parser";
import { writeFileAtomic } from "../store/atomic-write.js";
import { GlobalSettings } from "../store/settings.js";

/**
 * `mc-agent models enable`'s edit of MC_HOME/config.json: the user's own deliberate edit, made
 * by the CLI for them (the backend never writes settings). The file is edited in place
 * (jsonc-parser's modify/applyEdits: other content, key order and formatting stay), checked
 * against the same schema the backend reads it with, and replaced by the store's atomic writer.
 * A file that cannot be edited is refused with a reason; the CLI words it.
 */
export type SettingsEditRefusal =
  /** The file exists but cannot be read. */
  | "unreadable"
  /** The file is not valid settings: it is never edited. */
  | "invalid"
  /** The edit would not be valid settings (a bug): nothing was written. */
  | "edit_invalid"
  /** The file changed between the read and the write: nothing was written. */
  | "changed";

export class SettingsEditRefused extends Error {
  constructor(readonly reason: SettingsEditRefusal) {
    super(`settings edit refused: ${reason}`);
  }
}

/** Refuses (unreadable, invalid) a file at `path` that could not be edited; absent is fine. */
export async function checkSettingsEditable(path: string): Promise<void> {
  parseValid((await readSettingsText(path)) ?? "{}");
}

/**
 * Adds `id` to `enabled_models` and, with `asDefault`, makes it `model`. "unchanged" when the
 * file already says so (nothing is written).
 */
export async function enableModelInSettings(
  path: string,
  id: string,
  asDefault: boolean,
): Promise<"written" | "unchanged"> {
  const before = await readSettingsText(path);
  const current = parseValid(before ?? "{}");
  const enabled = current.enabled_models ?? [];
  const needsEnable = !enabled.includes(id);
  const needsDefault = asDefault && current.model !== id;
  if (!needsEnable && !needsDefault) return "unchanged";
  let text = before ?? "{}\n";
  const options = { formattingOptions: formattingOf(text) };
  if (needsEnable)
    text = applyEdits(
      text,
      current.enabled_models
        ? modify(text, ["enabled_models", -1], id, { ...options, isArrayInsertion: true })
        : modify(text, ["enabled_models"], [id], options),
    );
  if (needsDefault) text = applyEdits(text, modify(text, ["model"], id, options));
  await commitEdit(path, before, text);
  return "written";
}

/** What `mc-agent setup` writes: the chosen provider's entry (when it needs one) and model. */
export interface SetupChange {
  /** A provider entry to add or replace under "providers"; null when the file needs none. */
  provider: { id: string; entry: ProviderEntry } | null;
  /** Enabled (added to `enabled_models`) and made `model`. */
  model: string;
}
type ProviderEntry = NonNullable<GlobalSettings["providers"]>[string];

/** The settings file as it is now (`text` null when absent): refused when it cannot be edited. */
export async function readSettingsForEdit(
  path: string,
): Promise<{ text: string | null; settings: GlobalSettings }> {
  const text = await readSettingsText(path);
  return { text, settings: parseValid(text ?? "{}") };
}

/**
 * `setup`'s edit, in place like `models enable`'s: the provider entry, `enabled_models` and
 * `model`; everything else in the file is kept. `before` is the text setup started from: a file
 * changed since then is refused (nothing is written), so setup never overwrites another edit.
 */
export async function writeSetupSettings(
  path: string,
  before: string | null,
  change: SetupChange,
): Promise<"written" | "unchanged"> {
  const text = setupEditedText(before, change);
  if (text === (before ?? "{}\n")) return "unchanged";
  await commitEdit(path, before, text);
  return "written";
}

/** The settings text with `change` applied (also what a staged refresh reads, without model). */
export function setupEditedText(before: string | null, change: SetupChange | null): string {
  const current = parseValid(before ?? "{}");
  let text = before ?? "{}\n";
  if (!change) return text;
  const options = { formattingOptions: formattingOf(text) };
  const { provider, model } = change;
  if (provider && !sameEntry(current.providers?.[provider.id], provider.entry))
    text = applyEdits(text, modify(text, ["providers", provider.id], provider.entry, options));
  const enabled = current.enabled_models;
  if (!enabled?.includes(model))
    text = applyEdits(
      text,
      enabled
        ? modify(text, ["enabled_models", -1], model, { ...options, isArrayInsertion: true })
        : modify(text, ["enabled_models"], [model], options),
    );
  if (current.model !== model) text = applyEdits(text, modify(text, ["model"], model, options));
  return text;
}

/** The provider entries setup's refresh needs first: `before` with only the provider added. */
export function withProviderText(
  before: string | null,
  provider: { id: string; entry: ProviderEntry },
): string {
  const current = parseValid(before ?? "{}");
  const text = before ?? "{}\n";
  if (sameEntry(current.providers?.[provider.id], provider.entry)) return text;
  return applyEdits(
    text,
    modify(text, ["providers", provider.id], provider.entry, {
      formattingOptions: formattingOf(text),
    }),
  );
}

function sameEntry(a: ProviderEntry | undefined, b: ProviderEntry): boolean {
  return a !== undefined && JSON.stringify(a) === JSON.stringify(b);
}

/** Checks the edited text and replaces the file atomically, unless it changed since `before`. */
async function commitEdit(path: string, before: string | null, text: string): Promise<void> {
  parseValid(text, true);
  // Another edit since the read would be lost: refuse rather than overwrite it.
  if ((await readSettingsText(path)) !== before) throw new SettingsEditRefused("changed");
  const mode = before === null ? 0o600 : (await stat(path)).mode & 0o777;
  await writeFileAtomic(path, Buffer.from(text, "utf8"), mode);
}

async function readSettingsText(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new SettingsEditRefused("unreadable");
  }
}

/** The settings as the backend reads them; an invalid file is never edited. */
function parseValid(text: string, edited = false): GlobalSettings {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = GlobalSettings().safeParse(json);
  if (parsed.success) return parsed.data;
  throw new SettingsEditRefused(edited ? "edit_invalid" : "invalid");
}

/** The file's own indentation and line ends, for the lines the editor adds. */
function formattingOf(text: string): FormattingOptions {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? "  ";
  const tabs = indent.startsWith("\t");
  return {
    insertSpaces: !tabs,
    tabSize: tabs ? 1 : indent.length,
    eol: text.includes("\r\n") ? "\r\n" : "\n",
  };
}

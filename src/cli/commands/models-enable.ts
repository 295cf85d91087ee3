import { readFile, stat } from "node:fs/promises";
import { applyEdits, type FormattingOptions, modify } from "jsonc-parser";
import { type CachedRead, readCached, settingsFilePath } from "../../client/index.js";
import { MODEL_ID_PATTERN } from "../../protocol/constants.js";
import { writeFileAtomic } from "../../store/atomic-write.js";
import { GlobalSettings } from "../../store/settings.js";
import { UsageError } from "../args.js";
import type { Command } from "../command.js";
import { configPolicy } from "../config-policy.js";
import { connect } from "../connect.js";
import { ActionableError } from "../failure.js";

/**
 * `mc-agent models enable <provider/model> [--default]`: the user's own deliberate edit of
 * MC_HOME/config.json, made by the CLI for them (the backend never writes settings). Only a
 * model its provider's valid cache lists is enabled; the file is edited in place (jsonc-parser's
 * modify/applyEdits: other content, key order and formatting stay), checked against the same
 * schema the backend reads it with, and replaced atomically.
 */
export const modelsEnableCommand: Command = {
  spec: {
    usage: "mc-agent models enable <provider/model> [--default]",
    summary:
      "Enable a cached model in MC_HOME/config.json (and with --default, make it your model).",
    help: [
      "Options:",
      '  --default  Also set "model" to it: the model every command starts with',
      "  -h, --help",
      "",
      'The model must be in its provider\'s cached catalog: run "mc-agent refresh <provider>" first,',
      'and "mc-agent models" to see every cached ID. The file is edited in place (its other content',
      "and formatting are kept) and replaced atomically; the next mc-agent command reads it.",
    ].join("\n"),
    options: { default: { type: "boolean" } },
    positionals: ["provider/model"],
  },
  async run(args, term) {
    const id = args.positionals[0] as string;
    const slash = id.indexOf("/");
    if (slash <= 0 || slash === id.length - 1 || !MODEL_ID_PATTERN.test(id))
      throw new UsageError(`"${id.slice(0, 300)}" is not a <provider>/<model> ID`);
    const asDefault = args.values.default === true;
    const path = settingsFilePath("global", term.io.env, process.cwd());
    // Without the flag the settings check shows what is wrong; with it an invalid file is still
    // never edited, and that is said before anything else.
    if (configPolicy.ignoreErrors) parseValid((await readSettingsText(path)) ?? "{}");
    const client = await connect(term, ["model.cached", "operation.cancel"]);
    let cached: CachedRead;
    try {
      cached = await readCached(client);
    } finally {
      await client.close();
    }
    const state = checkCached(cached, id.slice(0, slash), id);
    const edit = await editSettings(path, id, asDefault);
    if (edit === null) {
      term.line(
        `${id} is already enabled${asDefault ? " and your default model" : ""}; ${path} is unchanged.`,
      );
      return 0;
    }
    term.line(
      `${state === "enabled" ? `${id} was already enabled; made it` : `Enabled ${id}${asDefault ? " and made it" : ""}`}${asDefault || state === "enabled" ? ' your default model ("model")' : ""} in ${path}.`,
    );
    term.line(
      "Edited in place: the rest of the file, its key order and formatting are kept (the lines added are laid out by the JSON editor). The next mc-agent command reads it.",
    );
    return 0;
  },
};

/** Refuses a model its provider's valid cache does not list: refresh first, then enable. */
function checkCached(cached: CachedRead, provider: string, id: string): string {
  const status = cached.providers.find((p) => p.provider === provider);
  if (!status)
    throw new ActionableError(
      "invalid_params",
      `no provider named "${provider.slice(0, 256)}" is configured`,
      'The built-ins are openai, anthropic and codex; add your own under "providers" in MC_HOME/config.json (docs/store.md).',
    );
  if (status.catalog_status !== "available")
    throw new ActionableError(
      "catalog_missing",
      `${provider} has no valid cached catalog (${status.catalog_status}), so there is nothing to enable yet`,
      `Run "mc-agent refresh ${provider}" first, then "mc-agent models" to see its models.`,
    );
  const entry = cached.models.find((m) => m.id === id);
  if (!entry || entry.state === "enabled_missing")
    throw new ActionableError(
      "model_unavailable",
      `${id} is not in ${provider}'s cached catalog (${status.models} models)`,
      `"mc-agent models" lists them; "mc-agent refresh ${provider}" fetches the list again.`,
    );
  return entry.state;
}

/** The new file, written; null when it already says what was asked. */
async function editSettings(path: string, id: string, asDefault: boolean): Promise<string | null> {
  const before = await readSettingsText(path);
  const current = parseValid(before ?? "{}");
  const enabled = current.enabled_models ?? [];
  const needsEnable = !enabled.includes(id);
  const needsDefault = asDefault && current.model !== id;
  if (!needsEnable && !needsDefault) return null;
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
  parseValid(text, true);
  // Another edit since the read would be lost: refuse rather than overwrite it.
  if ((await readSettingsText(path)) !== before)
    throw new ActionableError(
      "configuration_changed",
      "MC_HOME/config.json changed while it was being edited; nothing was written",
      "Run the command again.",
    );
  const mode = before === null ? 0o600 : (await stat(path)).mode & 0o777;
  await writeFileAtomic(path, Buffer.from(text, "utf8"), mode);
  return text;
}

async function readSettingsText(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new ActionableError(
      "configuration_unreadable",
      "MC_HOME/config.json cannot be read",
      'Check the file and MC_HOME ("mc-agent doctor" shows their state).',
    );
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
  if (edited)
    throw new ActionableError(
      "internal_error",
      "the edited settings would not be valid; nothing was written",
      "Report it.",
    );
  throw new ActionableError(
    "configuration_invalid",
    "MC_HOME/config.json is invalid, so it is not edited",
    '"mc-agent doctor" shows what is wrong with it; fix that first.',
  );
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

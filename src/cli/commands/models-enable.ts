import { type CachedRead, readCached, settingsFilePath } from "../../client/index.js";
import {
  checkSettingsEditable,
  enableModelInSettings,
  type SettingsEditRefusal,
  SettingsEditRefused,
} from "../../offline/settings-edit.js";
import { MODEL_ID_PATTERN } from "../../protocol/constants.js";
import { UsageError } from "../args.js";
import type { Command } from "../command.js";
import { configPolicy } from "../config-policy.js";
import { connect } from "../connect.js";
import { ActionableError } from "../failure.js";

/**
 * `mc-agent models enable <provider/model> [--default]`: the user's own deliberate edit of
 * MC_HOME/config.json, made by the CLI for them (the backend never writes settings). Only a
 * model its provider's valid cache lists (asked of a child) is enabled; the edit itself, in place
 * and atomic, is src/offline/settings-edit.ts's, and this command words its outcome.
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
    if (configPolicy.ignoreErrors) await explained(() => checkSettingsEditable(path));
    const client = await connect(term, ["model.cached", "operation.cancel"]);
    let cached: CachedRead;
    try {
      cached = await readCached(client);
    } finally {
      await client.close();
    }
    const state = checkCached(cached, id.slice(0, slash), id);
    const edit = await explained(() => enableModelInSettings(path, id, asDefault));
    if (edit === "unchanged") {
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

/** A refused edit as the user reads it: what happened and what to do. */
export async function explained<T>(edit: () => Promise<T>): Promise<T> {
  try {
    return await edit();
  } catch (error) {
    if (!(error instanceof SettingsEditRefused)) throw error;
    const [code, message, advice] = REFUSALS[error.reason];
    throw new ActionableError(code, message, advice);
  }
}

const REFUSALS: Record<SettingsEditRefusal, [code: string, message: string, advice: string]> = {
  unreadable: [
    "configuration_unreadable",
    "MC_HOME/config.json cannot be read",
    'Check the file and MC_HOME ("mc-agent doctor" shows their state).',
  ],
  invalid: [
    "configuration_invalid",
    "MC_HOME/config.json is invalid, so it is not edited",
    '"mc-agent doctor" shows what is wrong with it; fix that first.',
  ],
  edit_invalid: [
    "internal_error",
    "the edited settings would not be valid; nothing was written",
    "Report it.",
  ],
  changed: [
    "configuration_changed",
    "MC_HOME/config.json changed while it was being edited; nothing was written",
    "Run the command again.",
  ],
};

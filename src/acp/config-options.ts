/**
 * A session's config options read from and applied to its engine: the catalog, the model and
 * effort selection, and a choice made while the session was busy.
 */
import type { SessionConfigOption } from "@agentclientprotocol/sdk";
import type { ResultOf } from "../protocol/methods.js";
import type { Permissions } from "../protocol/schemas/turns.js";
import type { EngineLink } from "./engine-link.js";
import { acpError } from "./errors.js";
import { checkedMode, configOptions, NO_MODEL, PROVIDER_DEFAULT } from "./session-config.js";

type Catalog = ResultOf<"model.catalog">;
type Selection = Catalog["selection"];

/** A model and effort chosen while the session was busy, applied when that work ends. */
export interface PendingSelection {
  model: string;
  effort: string | null;
}

/** What the config options read and set of a session (session.ts AcpSession is one). */
interface ConfiguredSession {
  readonly engine: EngineLink;
  readonly busy: boolean;
  mode: Permissions;
  pendingSelection: PendingSelection | null;
  setMode(mode: Permissions): Promise<void>;
  optionsChanged(configOptions: SessionConfigOption[]): void;
}

/** Pages of the catalog read for one answer: more choices than this are not shown. */
const CATALOG_PAGES = 16;

/** A `model.catalog.status` page: the catalog's fields over the same snapshot, and more. */
export type CatalogStatus = ResultOf<"model.catalog.status">;

/**
 * The whole catalog as the engine sees it now: a fresh read (and revision) each time, or, given
 * `status`, a `model.catalog.status` read just now whose choices are that read's (the same
 * snapshot and revision, paged on through its own cursor), so a session/new that has just read
 * the status for its credentials (auth.ts `unreadySelection`) scans the caches once, not twice.
 */
async function readCatalog(session: ConfiguredSession, status?: CatalogStatus): Promise<Catalog> {
  const engine = session.engine;
  const first = status ?? (await engine.request("model.catalog", {}));
  const next = (cursor: string) =>
    status
      ? engine.request("model.catalog.status", { cursor })
      : engine.request("model.catalog", { cursor });
  const choices = [...first.choices];
  let cursor = first.cursor;
  for (let page = 1; cursor !== null && page < CATALOG_PAGES; page += 1) {
    const more = await next(cursor);
    choices.push(...more.choices);
    cursor = more.cursor;
  }
  const { revision, selection, notices, complete } = first;
  return { revision, selection, notices, cursor: first.cursor, complete, choices };
}

/**
 * The session's config options, from a fresh catalog read (or the status read just now:
 * `readCatalog`). A model or effort chosen while the session was busy shows as its value
 * already (it applies from the next turn).
 */
export async function currentOptions(
  session: ConfiguredSession,
  status?: CatalogStatus,
): Promise<SessionConfigOption[]> {
  const catalog = await readCatalog(session, status);
  return optionsOf(session, catalog, session.pendingSelection ?? catalog.selection);
}

function optionsOf(
  session: ConfiguredSession,
  catalog: Catalog,
  selection: Selection,
): SessionConfigOption[] {
  return configOptions(session.mode, session.engine.sandbox !== null, catalog.choices, selection);
}

/**
 * session/set_config_option: `mode` sets the permission level of the next prompts; `model` and
 * `thought_level` go through our model.select, guarded by the revision of a catalog read just
 * now (never a remembered one), so a model that left the catalog is refused, not replaced.
 * While a prompt (or an /undo) runs, the engine's selection cannot change (a switch inside a
 * turn would break the replay of the provider's state): the choice, checked against the
 * catalog, is kept as pending, shown as the value, and applied when that work ends
 * (`applyPendingSelection`).
 */
export async function setOption(
  session: ConfiguredSession,
  configId: string,
  value: unknown,
): Promise<SessionConfigOption[]> {
  if (typeof value !== "string") throw acpError("invalid_params", "The value must be a string.");
  if (configId === "mode") {
    await session.setMode(checkedMode(value, session.engine.sandbox !== null));
    return currentOptions(session);
  }
  if (configId !== "model" && configId !== "thought_level")
    throw acpError("invalid_params", "No such config option.");
  const catalog = await readCatalog(session);
  const selection = session.pendingSelection ?? catalog.selection;
  let model: string;
  let effort: string | null;
  if (configId === "model") {
    const choice = catalog.choices.find((c) => c.id === value);
    if (value === NO_MODEL || !choice) throw acpError("model_unavailable");
    model = choice.id;
    // The effort carries over when the new model offers it; else the model's default applies.
    effort =
      selection.effort !== null && choice.efforts.includes(selection.effort)
        ? selection.effort
        : null;
  } else {
    if (selection.model === null) throw acpError("model_unavailable");
    const choice = catalog.choices.find((c) => c.id === selection.model);
    if (value !== PROVIDER_DEFAULT && choice && !choice.efforts.includes(value))
      throw acpError("invalid_params", "The model does not offer that effort.");
    model = selection.model;
    effort = value === PROVIDER_DEFAULT ? null : value;
  }
  const before = optionsOf(session, catalog, selection);
  let chosen: Selection;
  if (session.busy) {
    // Checked as model.select checks it; applied once the session's work ends.
    session.pendingSelection = { model, effort };
    chosen = session.pendingSelection;
  } else {
    session.pendingSelection = null;
    chosen = (
      await session.engine.request("model.select", {
        model,
        effort,
        catalog_revision: catalog.revision,
      })
    ).selection;
  }
  const options = optionsOf(session, catalog, chosen);
  if (JSON.stringify(options) !== JSON.stringify(before)) session.optionsChanged(options);
  return options;
}

/**
 * After a session's answer (agent.ts): when its engine answered its sandbox from the probe memo
 * (docs/acp.md, "Start-up"), the real probe runs now, off the answer's path. When it found
 * another sandbox than the memo, the engine goes by what it found from then on (`set_mode`, the
 * next answers) and the editor gets the config options with the `mode` option's list corrected
 * (`config_option_update`). A `sandboxed` prompt is allowed or refused by the real probe alone.
 */
export function confirmSandbox(session: ConfiguredSession): void {
  const engine = session.engine;
  setImmediate(async () => {
    try {
      if (await engine.confirmSandbox()) session.optionsChanged(await currentOptions(session));
    } catch {
      // The engine is gone (the session closed): nothing is shown any more.
    }
  });
}

/**
 * Applies the model and effort chosen while the session was busy, now that it is not: our
 * model.select against a fresh catalog read. A model that left the catalog since is refused and
 * the selection stays as it was; either way the editor is told the values now in force
 * (`config_option_update`) when they differ from what it was shown.
 */
export async function applyPendingSelection(session: ConfiguredSession): Promise<void> {
  const pending = session.pendingSelection;
  if (!pending) return;
  session.pendingSelection = null;
  try {
    const catalog = await readCatalog(session);
    const shown = optionsOf(session, catalog, pending);
    let selection = catalog.selection;
    try {
      selection = (
        await session.engine.request("model.select", {
          model: pending.model,
          effort: pending.effort,
          catalog_revision: catalog.revision,
        })
      ).selection;
    } catch {
      // Refused (the model left the catalog, or the engine is closing): nothing changed.
    }
    const now = optionsOf(session, catalog, selection);
    if (JSON.stringify(now) !== JSON.stringify(shown)) session.optionsChanged(now);
  } catch {
    // The engine is gone (the session closed): there is nothing left to apply it to.
  }
}

/**
 * A reopened session's model and effort as they were when it was evicted (sessions.ts): our
 * model.select against a fresh catalog read when the new engine's selection differs. Refused
 * (the model left the catalog since), the engine's stays and the editor is told the values in
 * force (`config_option_update`).
 */
export async function restoreSelection(
  session: ConfiguredSession,
  wanted: Selection,
): Promise<void> {
  const catalog = await readCatalog(session);
  const current = catalog.selection;
  if (wanted.model === null || (current.model === wanted.model && current.effort === wanted.effort))
    return;
  try {
    await session.engine.request("model.select", {
      model: wanted.model,
      effort: wanted.effort,
      catalog_revision: catalog.revision,
    });
  } catch {
    session.optionsChanged(optionsOf(session, catalog, current));
  }
}

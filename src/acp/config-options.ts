import type { SessionConfigOption } from "@agentclientprotocol/sdk";
import type { ResultOf } from "../protocol/methods.js";
import { acpError } from "./errors.js";
import type { AcpSession } from "./session.js";
import { checkedMode, configOptions, NO_MODEL, PROVIDER_DEFAULT } from "./session-config.js";

type Catalog = ResultOf<"model.catalog">;

/** Pages of the catalog read for one answer: more choices than this are not shown. */
const CATALOG_PAGES = 16;

/** The whole catalog as the engine sees it now: a fresh read (and revision) each time. */
async function readCatalog(session: AcpSession): Promise<Catalog> {
  const first = await session.engine.request("model.catalog", {});
  const choices = [...first.choices];
  let cursor = first.cursor;
  for (let page = 1; cursor !== null && page < CATALOG_PAGES; page += 1) {
    const next = await session.engine.request("model.catalog", { cursor });
    choices.push(...next.choices);
    cursor = next.cursor;
  }
  return { ...first, choices };
}

/** The session's config options, from a fresh catalog read. */
export async function currentOptions(session: AcpSession): Promise<SessionConfigOption[]> {
  const catalog = await readCatalog(session);
  return configOptions(
    session.mode,
    session.engine.sandbox !== null,
    catalog.choices,
    catalog.selection,
  );
}

/**
 * session/set_config_option: `mode` sets the permission level of the next prompts; `model` and
 * `thought_level` go through our model.select, guarded by the revision of a catalog read just
 * now (never a remembered one), so a model that left the catalog is refused, not replaced.
 */
export async function setOption(
  session: AcpSession,
  configId: string,
  value: unknown,
): Promise<SessionConfigOption[]> {
  if (typeof value !== "string") throw acpError("invalid_params", "The value must be a string.");
  if (configId === "mode") {
    session.mode = checkedMode(value, session.engine.sandbox !== null);
    return currentOptions(session);
  }
  if (configId !== "model" && configId !== "thought_level")
    throw acpError("invalid_params", "No such config option.");
  const catalog = await readCatalog(session);
  const selection = catalog.selection;
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
    model = selection.model;
    effort = value === PROVIDER_DEFAULT ? null : value;
  }
  const selected = await session.engine.request("model.select", {
    model,
    effort,
    catalog_revision: catalog.revision,
  });
  return configOptions(
    session.mode,
    session.engine.sandbox !== null,
    catalog.choices,
    selected.selection,
  );
}

import { Catalog, type PagePosition } from "../../models/catalog.js";
import { type Provider, resolveProviders } from "../../models/providers.js";
import { log } from "../../process/log.js";
import { forgetVariables } from "../../process/secret-env.js";
import { type CredentialPaths, credentialPaths } from "../../store/credentials.js";
import { type LoadedSettings, loadSettings } from "../../store/settings.js";
import { type ProjectTrust, projectTrust } from "../../trust/workspace-trust.js";
import { CursorStore } from "../cursors.js";
import type { ServerState } from "../state.js";

/** What the model handlers and the turn handlers share: settings read once, one catalog. */
export interface ModelServices {
  settings: LoadedSettings;
  /** The workspace's trust of its project code, read once with the settings (docs/trust.md). */
  trust: ProjectTrust;
  providers: Provider[];
  paths: CredentialPaths;
  catalog: Catalog;
}

/**
 * Settings are read once, here, at child start; the user's configured preferred model and
 * effort become the initial selection (their own choice, applied as written, never replaced by
 * another model).
 */
export function createModelServices(state: ServerState): ModelServices {
  const settings = loadSettings(state.home, state.cwd);
  if (settings.invalid.global) log("warn", "the global settings file is invalid and ignored");
  if (settings.invalid.project) log("warn", "the project settings file is invalid and ignored");
  state.selection = { ...settings.preferred };
  const providers = resolveProviders(settings);
  // A child's state holds its own copy of the environment (childEnvironment): the configured
  // keys stay there, in memory, and leave process.env, so nothing this process starts inherits
  // them. A state that shares process.env itself (in-process tests) keeps it as it is.
  if (state.env !== process.env)
    forgetVariables(providers.flatMap((p) => (p.api_key_env ? [p.api_key_env] : [])));
  const paths = credentialPaths(state.home, state.env);
  const catalog = new Catalog({
    home: state.home,
    env: state.env,
    settings,
    providers,
    paths,
    selection: () => state.selection,
    catalogCursors: new CursorStore<PagePosition>("mc"),
    statusCursors: new CursorStore<PagePosition>("ms"),
    cachedCursors: new CursorStore<PagePosition>("mk"),
  });
  const trust = projectTrust(state.home, state.cwd, settings.project);
  if (trust !== "trusted")
    log("info", `the project's hooks and MCP servers wait for trust (${trust})`);
  return { settings, trust, providers, paths, catalog };
}

import { Catalog, type PagePosition } from "../../models/catalog.js";
import { resolveProviders } from "../../models/providers.js";
import { refreshProvider } from "../../models/refresh/refresh.js";
import { selectModel } from "../../models/selection.js";
import { credentialPaths } from "../../store/credentials.js";
import { loadSettings } from "../../store/settings.js";
import { CursorStore } from "../cursors.js";
import type { HandlerTable } from "../handler.js";
import { log } from "../log.js";
import type { ServerState } from "../state.js";
import { commitFault, httpBounds } from "../test-switches.js";

/**
 * model.catalog, model.catalog.status, model.select and model.refresh. Settings are read once,
 * here, at child start; the user's configured preferred model and effort become the initial
 * selection (their own choice, applied as written, never replaced by another model).
 */
export function modelHandlers(state: ServerState, options: { testMethods: boolean }): HandlerTable {
  const settings = loadSettings(state.home, state.cwd);
  if (settings.invalid.global) log("warn", "the global settings file is invalid and ignored");
  if (settings.invalid.project) log("warn", "the project settings file is invalid and ignored");
  state.selection = { ...settings.preferred };
  const providers = resolveProviders(settings);
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
  });
  return {
    "model.catalog": (params) => catalog.catalogPage(params.cursor),
    "model.catalog.status": (params) => catalog.statusPage(params.cursor),
    "model.select": async (params, ctx) => {
      const selection = await selectModel(catalog, params, ctx.signal);
      ctx.commit(() => {
        state.selection = selection;
      });
      return { selection };
    },
    "model.refresh": (params, ctx) =>
      refreshProvider(params.provider, ctx.signal, {
        commit: ctx.commit,
        catalog,
        settings,
        providers,
        paths,
        home: state.home,
        env: state.env,
        log,
        http: httpBounds(state.env, options.testMethods),
        commitFault: commitFault(state.env, options.testMethods),
      }),
  };
}

import { refreshProvider } from "../../models/refresh/refresh.js";
import { selectModel } from "../../models/selection.js";
import { log } from "../../process/log.js";
import type { HandlerTable } from "../handler.js";
import type { ServerState } from "../state.js";
import type { TestSeam } from "../test-seam.js";
import type { ModelServices } from "./model-services.js";

/** model.catalog, model.catalog.status, model.select and model.refresh. */
export function modelHandlers(
  state: ServerState,
  services: ModelServices,
  seam: TestSeam,
): HandlerTable {
  const { catalog, settings, providers, paths } = services;
  const guided = () => state.negotiated.has("errors.recovery");
  return {
    "model.catalog": (params) => catalog.catalogPage(params.cursor, guided()),
    "model.catalog.status": (params) => catalog.statusPage(params.cursor, guided()),
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
        http: seam.httpBounds,
        ...(seam.cacheCommit ? { cacheCommit: seam.cacheCommit } : {}),
        ...(seam.credentialWrite ? { credentialWrite: seam.credentialWrite() } : {}),
      }),
  };
}

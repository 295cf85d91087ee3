import { ProtocolError } from "../protocol/codes.js";
import type { ParamsOf } from "../protocol/methods.js";
import { nextStepForModel } from "../protocol/recovery.js";
import type { Selection } from "../protocol/schemas/lifecycle.js";
import type { Catalog } from "./catalog.js";
import type { CatalogSnapshot } from "./snapshot.js";

/** `model_unavailable`, with the step that would make `model` (or any model) a choice. */
export function modelUnavailable(snapshot: CatalogSnapshot, model: string | null): ProtocolError {
  return new ProtocolError("model_unavailable", undefined, nextStepForModel(snapshot, model));
}

/**
 * Explicit selection for this child. The guard must equal the revision of a fresh scan (so a
 * reread of an unchanged catalog keeps guards valid, while any refresh or cache change kills
 * them); only a selectable choice can be selected; `effort` null means the model's default.
 * Never writes a settings file.
 */
export async function selectModel(
  catalog: Catalog,
  request: ParamsOf<"model.select">,
  signal: AbortSignal,
): Promise<Selection> {
  const snapshot = await catalog.fresh();
  if (signal.aborted) throw new ProtocolError("operation_cancelled");
  if (request.catalog_revision !== snapshot.revision) throw new ProtocolError("stale_revision");
  const choice = snapshot.choices.find((c) => c.id === request.model);
  if (!choice) throw modelUnavailable(snapshot, request.model);
  if (request.effort !== null && !choice.efforts.includes(request.effort))
    throw new ProtocolError("invalid_params", "The model does not offer that effort.");
  return { model: choice.id, effort: request.effort };
}

/**
 * The settings' `subagent_model` (docs/turns.md, "Subagents"), resolved for each subagent as
 * turn.start resolves the selection: a choice of a fresh catalog snapshot, its provider and that
 * provider's credentials. Unlike the selection it is not the turn's to refuse: a model that
 * cannot be used now is the `agent` call's tool error, and the subagent does not start (never
 * another model in its place). The error names the setting and the refusal's code, never a
 * path, a URL or the provider's words.
 */
import type { SubagentModel } from "../../agent/subagents/subagent-runner.js";
import { ToolError } from "../../agent/tools/tool.js";
import { type Credential, discoverCredential } from "../../credentials/discovery.js";
import type { Provider } from "../../models/providers.js";
import { ProtocolError } from "../../protocol/codes.js";
import type { ServerState } from "../state.js";
import type { ModelServices } from "./model-services.js";

/** Builds a model provider as the turn builds its own (the same bounds and logging). */
type MakeProvider = (
  provider: Provider,
  credential: Credential | null,
) => SubagentModel["provider"];

export function subagentModel(
  state: ServerState,
  services: ModelServices,
  makeProvider: MakeProvider,
): (() => Promise<SubagentModel | null>) | undefined {
  const wanted = services.settings.subagentModel;
  if (wanted === null) return undefined;
  return async () => {
    let snapshot: Awaited<ReturnType<typeof services.catalog.fresh>>;
    try {
      snapshot = await services.catalog.fresh();
    } catch (error) {
      // An unreadable cache (catalog_unavailable, catalog_limit): its code, never its path.
      const code = error instanceof ProtocolError ? error.code : "internal_error";
      throw new ToolError(
        `The subagent did not start: the model catalog could not be read (${code}).`,
      );
    }
    const choice = snapshot.choices.find((c) => c.id === wanted);
    const provider = services.providers.find((p) => p.id === choice?.provider);
    if (!choice || !provider)
      throw new ToolError(
        "The subagent did not start: the settings' subagent_model is not a selectable model now (model_unavailable).",
      );
    const credential = await discoverCredential(provider, {
      env: state.env,
      paths: services.paths,
    });
    if (credential === null)
      throw new ToolError(
        "The subagent did not start: the provider of the settings' subagent_model has no usable credentials (authentication_unavailable).",
      );
    return {
      model: {
        id: choice.id,
        name: choice.model,
        // The model's own default: the selection's effort belongs to the parent's model.
        effort: choice.efforts.length === 0 ? null : choice.default_effort,
        contextWindow: snapshot.contextWindows.get(choice.id) ?? null,
      },
      price: snapshot.prices.get(choice.id) ?? null,
      provider: makeProvider(provider, credential),
    };
  };
}

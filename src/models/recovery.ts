import type {
  AuthenticationState,
  CatalogRecovery,
  CatalogStatus,
} from "../protocol/schemas/models.js";

interface RecoveryInputs {
  relevant: boolean;
  catalogStatus: CatalogStatus;
  authentication: AuthenticationState;
  /** An enabled model of this provider is absent from its valid cache. */
  enabledMissingFromCache: boolean;
  /** The selected model is in this provider's valid cache but not enabled. */
  selectedNotEnabled: boolean;
}

/**
 * What fixes a provider, first matching rule wins (docs/extensions.md restates them):
 * 1. relevant, no credentials                         -> configure_authentication
 * 2. relevant, cache not available                    -> refresh_catalog
 * 3. relevant, selected model listed but not enabled  -> enable_models_and_restart
 * 4. relevant, an enabled model missing from the cache-> refresh_catalog
 * 5. unused, cache available                          -> enable_models_and_restart
 * 6. otherwise                                        -> none
 */
export function recoveryFor(inputs: RecoveryInputs): CatalogRecovery {
  if (inputs.relevant) {
    if (inputs.authentication === "authentication_unavailable") return "configure_authentication";
    if (inputs.catalogStatus !== "available") return "refresh_catalog";
    if (inputs.selectedNotEnabled) return "enable_models_and_restart";
    if (inputs.enabledMissingFromCache) return "refresh_catalog";
    return "none";
  }
  return inputs.catalogStatus === "available" ? "enable_models_and_restart" : "none";
}

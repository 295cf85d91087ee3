import type { CatalogNotice, ProviderStatus } from "../protocol/schemas/models.js";

/**
 * The catalog's notices with their next steps (`errors.recovery`, docs/extensions.md): one
 * `configuration_invalid` per ignored settings file, naming it (`settings`: global or project,
 * never a path), and one notice per relevant provider without a valid cache, whose step is its
 * credentials first (a refresh without them fails), else the refresh. Unused providers get none.
 */
export function guidedNotices(
  invalid: { global: boolean; project: boolean },
  providers: readonly ProviderStatus[],
): CatalogNotice[] {
  const settings = (["global", "project"] as const)
    .filter((which) => invalid[which])
    .map(
      (which): CatalogNotice => ({
        code: "configuration_invalid",
        recovery: "run_setup",
        settings: which,
      }),
    );
  const caches = providers
    .filter((p) => p.relevant && p.catalog_status !== "available")
    .map(
      (p): CatalogNotice => ({
        code: p.catalog_status === "missing_cache" ? "catalog_missing" : "catalog_invalid",
        provider: p.provider,
        recovery:
          p.recovery === "configure_authentication"
            ? "configure_authentication"
            : "refresh_catalog",
      }),
    );
  return [...settings, ...caches];
}

/**
 * The base contract's notices (no capability): exactly `{code, provider}` and one
 * `{code: "configuration_invalid"}` however many settings files are invalid.
 */
export function plainNotices(guided: readonly CatalogNotice[]): CatalogNotice[] {
  const plain: CatalogNotice[] = [];
  for (const notice of guided) {
    if (notice.code === "configuration_invalid") {
      if (!plain.some((n) => n.code === "configuration_invalid"))
        plain.push({ code: "configuration_invalid" });
    } else plain.push({ code: notice.code, provider: notice.provider });
  }
  return plain;
}

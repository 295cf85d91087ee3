import { adviceForStep } from "../protocol/next-step-words.js";
import type { CatalogNotice } from "../protocol/schemas/models.js";

/** The wording of a next step lives beside its vocabulary (protocol/next-step-words.ts). */
export { adviceForStep };

/**
 * A catalog notice in one sentence, with its next step when the notice carries one (and the
 * base contract's step otherwise: a refresh for a cache, the settings file for settings).
 */
export function explainNotice(notice: CatalogNotice): string {
  if (notice.code === "configuration_invalid") {
    const which = notice.settings ? `The ${notice.settings} settings file` : "A settings file";
    return `${which} is invalid and is ignored (built-in defaults are in use): fix it ("mc-agent doctor" shows where it is wrong) or ${lowerFirst(adviceForStep({ recovery: "run_setup", provider: null }))}`;
  }
  const what =
    notice.code === "catalog_missing"
      ? `No catalog of ${notice.provider}'s models has been fetched yet`
      : `${notice.provider}'s cached catalog is invalid`;
  const step = adviceForStep({
    recovery: notice.recovery ?? "refresh_catalog",
    provider: notice.provider,
  });
  return `${what}. ${step}`;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

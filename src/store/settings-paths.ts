import { join } from "node:path";

/**
 * Where the settings files are, apart from their schemas (settings.ts re-exports them): the ACP
 * starter looks for them before zod loads (src/acp/credentials-glance.ts).
 */
/** The largest settings file read (settings.ts); a larger one is invalid. */
export const SETTINGS_BYTES = 1_048_576;

export function globalSettingsPath(home: string): string {
  return join(home, "config.json");
}

export function projectSettingsPath(cwd: string): string {
  return join(cwd, ".mc", "config.json");
}

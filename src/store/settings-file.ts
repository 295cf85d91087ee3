import { join } from "node:path";

/**
 * The settings files' places, bound and JSON reading (settings.ts validates what they read).
 * A module of its own, without zod: the sandbox's network hint (agent/sandbox/network-hint.ts)
 * reads the file raw in the stdio starter (src/server/turn-facts.ts), and the ACP starter looks
 * for the files (src/acp/credentials-glance.ts), before zod has loaded.
 */

/** Settings files larger than this are invalid (they are a few hundred bytes in practice). */
export const SETTINGS_BYTES = 1_048_576;

export function globalSettingsPath(home: string): string {
  return join(home, "config.json");
}

export function projectSettingsPath(cwd: string): string {
  return join(cwd, ".mc", "config.json");
}

export const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** JSON from UTF-8 bytes, or undefined for invalid UTF-8 or JSON. */
export function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(strictUtf8.decode(bytes));
  } catch {
    return undefined;
  }
}

import { resolveProviders } from "../../models/providers.js";
import { resolveHome } from "../../store/home.js";
import { loadSettings } from "../../store/settings.js";

/**
 * Where the user's settings point `provider`: its base URL and whether it came from their
 * MC_HOME/config.json or is the built-in default. Only for the user's own screen, when the
 * provider cannot be reached; the backend's errors never carry it. Null when the provider is
 * not configured or the settings cannot be read.
 */
export function providerAddress(
  env: NodeJS.ProcessEnv,
  cwd: string,
  provider: string,
): { url: string; source: string } | null {
  try {
    const settings = loadSettings(resolveHome(env), cwd);
    const found = resolveProviders(settings).find((p) => p.id === provider);
    if (!found || found.base_url === "") return null;
    const own = settings.global.providers?.[provider]?.base_url !== undefined;
    return {
      url: withoutUserinfo(found.base_url),
      source: own ? "from MC_HOME/config.json" : "the built-in address",
    };
  } catch {
    return null;
  }
}

/** A URL's user and password are credentials: never on the screen. */
function withoutUserinfo(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username === "" && parsed.password === "") return url;
    parsed.username = "";
    parsed.password = "";
    return parsed.toString();
  } catch {
    return url;
  }
}

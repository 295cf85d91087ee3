import { closeSync, openSync, readSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** The settings file is read only this far (the backend's own bound is the same 1 MiB). */
const CONFIG_BYTES = 1_048_576;

/**
 * Where the user's own MC_HOME/config.json points `provider` ("base_url"), for the line that
 * says an unreachable provider's address. The CLI reads the file itself, for this line only:
 * the backend's errors never carry a URL, and the CLI does not reach into the store otherwise.
 * Null when the file, the provider or its base_url is not there (a built-in provider on its
 * built-in address), or the file cannot be read.
 */
export function configuredAddress(env: NodeJS.ProcessEnv, provider: string): string | null {
  const home = env.MC_HOME ? resolve(env.MC_HOME) : join(homedir(), ".mc");
  try {
    const settings = JSON.parse(readHead(join(home, "config.json"))) as {
      providers?: Record<string, { base_url?: unknown }>;
    };
    const url = settings.providers?.[provider]?.base_url;
    return typeof url === "string" && url !== "" ? withoutUserinfo(url) : null;
  } catch {
    return null;
  }
}

function readHead(path: string): string {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(CONFIG_BYTES);
    const size = readSync(fd, buffer, 0, CONFIG_BYTES, 0);
    return buffer.subarray(0, size).toString("utf8");
  } finally {
    closeSync(fd);
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

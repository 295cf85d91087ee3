import { readRegularFileSync } from "../../store/safe-read.js";
import { globalSettingsPath, parseJson, SETTINGS_BYTES } from "../../store/settings-file.js";

/**
 * What MC_HOME/config.json's `"sandbox": {"network": ...}` most likely is, read without its
 * schema: the child's sandbox probe starts on it before the settings are validated (building
 * and running their zod schemas is the longest step of a child's start), and ChildSandbox
 * probes again if the validated settings say otherwise (`confirmNetwork`): an invalid file is
 * ignored whole, so its `true` is not the child's. Anything unreadable reads as the default, off.
 */
export function sandboxNetworkHint(home: string): boolean {
  try {
    const read = readRegularFileSync(globalSettingsPath(home), SETTINGS_BYTES);
    if (read.kind !== "bytes") return false;
    const json = parseJson(read.bytes) as { sandbox?: { network?: unknown } } | undefined;
    return json?.sandbox?.network === true;
  } catch {
    return false;
  }
}

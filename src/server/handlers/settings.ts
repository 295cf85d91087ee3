import { stat } from "node:fs/promises";
import type { SettingsFileCheck } from "../../protocol/schemas/settings.js";
import { errorCode } from "../../store/safe-read.js";
import type { SettingsFileState } from "../../store/settings.js";
import type { HandlerTable } from "../handler.js";
import type { ServerState } from "../state.js";
import type { ModelServices } from "./model-services.js";
import { fileProblems } from "./skill-problems.js";

/**
 * `settings.check` and `model.cached` (docs/extensions.md). The check reports what this child
 * read at its start (never a fresh read: a changed file needs a new child), so a frontend can
 * stop before doing anything on settings the user did not mean.
 */
export function settingsHandlers(state: ServerState, services: ModelServices): HandlerTable {
  return {
    "settings.check": async () => ({
      home: await homeKind(state.home),
      files: [
        await fileCheck("global", services.settings.files.global),
        await fileCheck("project", services.settings.files.project),
      ],
      ...(state.negotiated.has("workspace.trust") ? { trust: services.trust } : {}),
      ...(await fileProblems(state)),
      configuration_reload: "restart_child" as const,
    }),
    "model.cached": (params) => services.catalog.cachedPage(params.cursor),
  };
}

async function fileCheck(
  file: SettingsFileCheck["file"],
  read: SettingsFileState,
): Promise<SettingsFileCheck> {
  if (read.state !== "invalid")
    return { file, state: read.state, reason: null, rule: null, line: null, column: null };
  // Only an invalid file needs the JSON locator: a valid start never loads it.
  const { locateFault } = await import("../../store/settings-locate.js");
  return { file, state: "invalid", ...locateFault(read.fault) };
}

/** MC_HOME as it is now: a plain file there makes every store operation fail (named as such). */
async function homeKind(home: string): Promise<"folder" | "absent" | "not_a_folder"> {
  try {
    return (await stat(home)).isDirectory() ? "folder" : "not_a_folder";
  } catch (error) {
    const code = errorCode(error);
    return code === "ENOENT" ? "absent" : "not_a_folder";
  }
}

import {
  type AgentClient,
  homeOf,
  invalidFiles,
  type SettingsCheckResult,
  settingsFilePath,
} from "../client/index.js";
import { configPolicy, IGNORE_CONFIG_ERRORS } from "./config-policy.js";
import { ActionableError } from "./failure.js";
import { describeInvalid } from "./settings-report.js";
import type { Terminal } from "./terminal.js";

/**
 * Runs first in every command that starts the backend: a settings file the child found invalid
 * stops the command (exit 1) before it does anything on defaults the user never chose, unless
 * --ignore-config-errors says to go on. MC_HOME that is not a folder stops it either way.
 */
export async function checkSettings(
  client: AgentClient,
  term: Terminal,
  cwd: string,
): Promise<void> {
  if (!client.has("settings.check")) return;
  const check = await client.call("settings.check", {});
  const env = term.io.env;
  if (check.home === "not_a_folder")
    throw new ActionableError(
      "home_not_a_folder",
      `MC_HOME is ${homeOf(env)}, which is a file (or inside one), not a folder`,
      "Point MC_HOME at a folder, or move that file away; mc-agent doctor shows the state.",
    );
  const invalid = invalidFiles(check);
  if (invalid.length === 0) return;
  report(term, check, env, cwd);
  if (configPolicy.ignoreErrors) {
    term.note(`mc-agent: going on as ${IGNORE_CONFIG_ERRORS} asks: ${consequence(invalid)}.`);
    return;
  }
  throw new ActionableError(
    "configuration_invalid",
    `the settings are invalid, so ${consequence(invalid)}`,
    `Fix the file and run the command again (mc-agent doctor checks every file), or add ${IGNORE_CONFIG_ERRORS} to go on anyway.`,
  );
}

function report(
  term: Terminal,
  check: SettingsCheckResult,
  env: NodeJS.ProcessEnv,
  cwd: string,
): void {
  for (const file of invalidFiles(check)) {
    const [first, ...rest] = describeInvalid(file, settingsFilePath(file.file, env, cwd));
    term.note(`mc-agent: ${term.paintNote("invalid settings", "31")}: ${first}`);
    for (const line of rest) term.note(line);
  }
}

/** What the backend does with the invalid files: each is ignored as if it were absent. */
function consequence(invalid: SettingsCheckResult["files"]): string {
  const global = invalid.some((f) => f.file === "global");
  const project = invalid.some((f) => f.file === "project");
  const parts = [
    ...(global
      ? [
          "the backend ignores MC_HOME/config.json (built-in defaults: no custom providers, no enabled models, no MCP servers)",
        ]
      : []),
    ...(project ? ["the backend ignores .mc/config.json (its model and effort)"] : []),
  ];
  return parts.join(", and ");
}

import type { NextStep } from "./recovery.js";

/**
 * How a frontend words the commands and the restart a next step names: the terminal says
 * `mc-agent setup` and "restart the backend"; an editor's agent (ACP) prefixes the real MC_HOME
 * when it is not the default, and its restart is a new session.
 */
export interface StepWording {
  /** The shell command for `mc-agent <words>`. */
  command(words: string): string;
  /** What makes a settings change take effect. */
  restart: string;
}

export const TERMINAL_WORDING: StepWording = {
  command: (words) => `mc-agent ${words}`,
  restart: "restart the backend",
};

/**
 * A next step (`errors.recovery`, docs/extensions.md) as a sentence naming the command to run.
 * One wording for every frontend: the CLI prints it, an editor shows it, a GUI puts it on a
 * button's label. The provider is named when the step is about one. Pure, so the SDK and the
 * ACP agent word a step alike.
 */
export function adviceForStep(next: NextStep, wording: StepWording = TERMINAL_WORDING): string {
  const p = next.provider;
  const run = wording.command;
  switch (next.recovery) {
    case "run_setup":
      return `Run "${run("setup")}": it finds your API keys, logins and local model servers, fetches a provider's models and sets your default model.`;
    case "configure_authentication":
      return `Give ${p ?? "the model provider"} credentials: export its API key variable or log in with its own CLI ("${run("setup")}" shows what it finds), then ${wording.restart}.`;
    case "refresh_catalog":
      return `Fetch ${p ? `${p}'s` : "the provider's"} models: run "${run(`refresh ${p ?? "<provider>"}`)}".`;
    case "enable_models_and_restart":
      return `Enable a model and make it the default: run "${run(`models enable ${p ?? "<provider>"}/<model> --default`)}" ("${run("models")}" lists them), then ${wording.restart}.`;
  }
}

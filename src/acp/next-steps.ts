/**
 * First-run failures as messages an editor user can act on (docs/acp.md, "First run"): each
 * names the command to run, with the real MC_HOME when it is not the default, since the user
 * types it in a terminal whose environment is not the editor's.
 */
import type { RequestError } from "@agentclientprotocol/sdk";
import { DEFAULT_MESSAGES } from "../protocol/codes.js";
import { adviceForStep, type StepWording } from "../protocol/next-step-words.js";
import type { NextStepName } from "../protocol/recovery.js";
import type { TurnResult } from "../protocol/schemas/turns.js";
import { EngineError } from "../server/engine-face.js";
import { acpError } from "./errors.js";
import { commandWording } from "./initialize-answer.js";

type TurnFailure = NonNullable<Extract<TurnResult, { status: "failed" }>["error"]>;

/** What a failed turn's user does next, by its code; codes without a step keep their message. */
const TURN_STEPS: Partial<Record<TurnFailure["code"], (w: StepWording) => string>> = {
  remote_unavailable: () =>
    "Check that the model provider is running and reachable (a local server such as Ollama must be started), then send the prompt again.",
  remote_timeout: () =>
    "The provider is slow or unreachable: check it is running and reachable, then send the prompt again.",
  rate_limited: () => "Wait a little, then send the prompt again.",
  authentication_rejected: (w) =>
    `Check or renew the provider's API key ("${w.command("setup")}" shows which keys and logins it finds), then ${w.restart}.`,
};

/**
 * A refused model's headline by its next step: the engine's own message ("That model is not a
 * selectable choice.") is the same for every cause, which is what the editor showed before.
 */
const MODEL_HEADLINES: Record<NextStepName, string> = {
  run_setup: "No model is set up yet.",
  configure_authentication: "The model's provider has no usable credentials.",
  refresh_catalog: "The provider's models have not been fetched yet.",
  enable_models_and_restart: "No model is enabled and selected as the default.",
};

/** The commands a message names, for the agent's MC_HOME. */
export class NextSteps {
  readonly wording: StepWording;

  constructor(home: string) {
    this.wording = {
      command: commandWording(home),
      // Each ACP session starts its own engine, which reads the settings afresh.
      restart: "start a new session",
    };
  }

  /** `mc-agent <words>` as the user must type it. */
  command(words: string): string {
    return this.wording.command(words);
  }

  /**
   * An engine error as the editor shows it: its message, then its next step when it carries one
   * (`errors.recovery`); any other error passes unchanged.
   */
  mapped(error: unknown): unknown {
    if (!(error instanceof EngineError) || error.next === null) return error;
    const headline =
      error.code === "model_unavailable" ? MODEL_HEADLINES[error.next.recovery] : error.message;
    return acpError(error.code, `${headline} ${adviceForStep(error.next, this.wording)}`);
  }

  /**
   * `provider` has no credentials: what its turn's admission answers (`authentication_unavailable`
   * with the step `configure_authentication`), for a session/new that would only fail later.
   */
  missingCredentials(provider: string): RequestError {
    const step = adviceForStep({ recovery: "configure_authentication", provider }, this.wording);
    return acpError(
      "authentication_unavailable",
      `${DEFAULT_MESSAGES.authentication_unavailable} ${step}`,
    );
  }

  /** A failed turn's error, with what to do about it when its code says. */
  turnFailure(error: TurnFailure): RequestError {
    const step = TURN_STEPS[error.code];
    return acpError(error.code, step ? `${error.message} ${step(this.wording)}` : error.message);
  }
}

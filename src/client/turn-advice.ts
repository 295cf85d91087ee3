import type { TURN_FAILURE_CODES } from "../protocol/schemas/turns.js";

export type TurnFailureCode = (typeof TURN_FAILURE_CODES)[number];

/** What to do after a failed turn (`result.error.code`); the session keeps what was done. */
const TURN_ADVICE: Record<TurnFailureCode, string> = {
  authentication_rejected:
    "The provider rejected the credentials; check or renew them, then try again.",
  remote_unavailable: "The provider could not be reached; check the network and try again.",
  remote_timeout: "The provider stopped answering; try again later.",
  rate_limited: "The provider is rate limiting; wait a little and try again.",
  context_exceeded:
    "The conversation no longer fits the model's context window; start a new session or pick a model with a larger window.",
  invalid_response: "The provider sent something outside its API format; try again or report it.",
  provider_error: "The provider answered with an error; try again, or pick another model.",
  history_write_failed:
    "The session history could not be saved (disk full or an I/O error); free space, then try again.",
};

export function adviceForTurn(code: TurnFailureCode): string {
  return TURN_ADVICE[code];
}

import type { ErrorCode } from "../protocol/codes.js";
import type { NextStep } from "../protocol/recovery.js";
import type {
  AuthenticationState,
  CatalogRecovery,
  CatalogStatus,
  ModelRefreshResult,
  ProviderStatus,
  RefreshReason,
} from "../protocol/schemas/models.js";
import type { ClientErrorCode } from "./errors.js";
import { adviceForStep } from "./next-step-advice.js";

/** Human words for every status value; `Record` over the enums makes a missing one a type error. */
const CATALOG_WORDS: Record<CatalogStatus, string> = {
  available: "its cached catalog is valid",
  missing_cache: "no catalog has been cached for it yet",
  empty_cache: "its cached catalog lists no models",
  invalid_format: "its cached catalog is not in the cache format",
  invalid_schema: "its cached catalog has invalid entries or belongs to another provider",
  incompatible_fingerprint: "its cached catalog was fetched from different provider settings",
};

const AUTH_WORDS: Record<AuthenticationState, string> = {
  ready: "credentials are ready",
  authentication_unavailable: "no usable credentials were found",
  not_checked: "credentials were not checked because no enabled model uses it",
};

/** The recovery action, as something a person can do (the command, with `explain`'s provider). */
export const RECOVERY_ACTIONS: Record<CatalogRecovery, string> = {
  none: "Nothing to do.",
  configure_authentication: adviceForStep({ recovery: "configure_authentication", provider: null }),
  refresh_catalog: adviceForStep({ recovery: "refresh_catalog", provider: null }),
  enable_models_and_restart: adviceForStep({
    recovery: "enable_models_and_restart",
    provider: null,
  }),
};

export interface Explanation {
  provider: string;
  /** One sentence: what the status means. */
  sentence: string;
  recovery: CatalogRecovery;
  /** What to do about it. */
  action: string;
}

/** Client flow step 3: a provider's cache and authentication status in words, and what to do. */
export function explain(status: ProviderStatus): Explanation {
  const use = status.relevant ? "in use" : "not in use";
  return {
    provider: status.provider,
    sentence: `${status.provider} (${use}): ${CATALOG_WORDS[status.catalog_status]}; ${AUTH_WORDS[status.authentication]}.`,
    recovery: status.recovery,
    action:
      status.recovery === "none"
        ? RECOVERY_ACTIONS.none
        : adviceForStep({ recovery: status.recovery, provider: status.provider }),
  };
}

const REFRESH_WORDS: Record<RefreshReason, string> = {
  authentication_unavailable: "no usable credentials were found; configure them first",
  authentication_rejected: "the provider rejected the credentials; check or renew them",
  configuration_invalid: "the provider's settings are invalid; fix them and restart the backend",
  remote_unavailable: "the provider could not be reached; check the network and try again",
  remote_timeout: "the provider did not answer in time; try again later",
  rate_limited: "the provider is rate limiting; wait and try again",
  empty_catalog: "the provider listed no models; the previous cache was kept",
  invalid_catalog: "the provider's model list was invalid; the previous cache was kept",
  catalog_limit: "the provider's model list exceeds the cache bounds; the previous cache was kept",
  cache_write_failed: "the catalog could not be saved; check the backend store and try again",
};

/** A refresh outcome in one sentence. */
export function explainRefresh(result: ModelRefreshResult): string {
  if (result.outcome === "refreshed") return `${result.provider}: catalog refreshed.`;
  const why = result.reason ? REFRESH_WORDS[result.reason] : "no reason was given";
  return `${result.provider}: refresh failed: ${why}.`;
}

/** What to do after an error, for every wire and client code. */
const ADVICE: Record<ErrorCode | ClientErrorCode, string> = {
  invalid_request: "Report a client bug.",
  frame_too_large: "Send smaller requests.",
  method_not_found: "Use a backend that implements this method.",
  invalid_params: "Check the arguments (IDs and provider names use letters, digits, . _ -).",
  not_initialized: "Report a client bug: initialize comes first.",
  already_initialized: "Report a client bug: initialize only once.",
  unsupported_protocol_version: "Use a backend that speaks protocol version 1.",
  unsupported_capability: "Use a backend version that offers this feature.",
  duplicate_request_id: "Report a client bug: request IDs must be unique.",
  child_exhausted: "Start a new backend child.",
  busy: "Wait for the running operation to finish, then try again.",
  shutting_down: "Start a new backend child.",
  operation_cancelled: "Run it again when you want it.",
  operation_missing: "Nothing to cancel: it already finished.",
  discovery_limit: "Use session discovery, which has no store-size ceiling.",
  discovery_unavailable: "Inspect the backend's session store (permissions, symlinks, names).",
  discovery_record_bytes: "Compact or export the oversized session history, then retry.",
  discovery_page_bytes: "Report a backend failure.",
  session_missing: "List sessions to see the IDs available in this folder.",
  session_invalid: "Inspect or repair that session's history in the backend store.",
  cwd_mismatch: "Run this from the folder the session belongs to.",
  session_locked: "Another program is writing that session; wait for it to finish, then retry.",
  stale_revision: "Read again from the start.",
  model_unavailable: "Pick one of the selectable choices listed by the catalog.",
  catalog_unavailable: "Inspect the backend's model cache folder (permissions, symlinks).",
  catalog_limit: "Refresh the provider's catalog to replace the oversized cache.",
  attachment_required: "Create or open a session first.",
  authentication_unavailable:
    "Configure the model provider's credentials, then restart the backend.",
  turn_missing: "Nothing to interrupt, or no such turn: read the session's history for its turns.",
  approval_missing: "Nothing to decide: that approval already ended.",
  sandbox_unavailable:
    "Install or enable the OS sandbox as the message says (mc-agent doctor shows the detail), or choose another permission level.",
  rule_missing: "No such rule: list them again (mc-agent rules).",
  rules_unavailable:
    "The workspace's rules file is damaged or unwritable: `mc-agent rules clear` replaces it.",
  history_write_failed: "Free disk space or fix the backend store, then try again.",
  workspace_changed:
    "Files changed since the last turn: look at them with a dry run, then revert with force to overwrite them.",
  checkpoint_missing: "That turn has no checkpoint to go back to: pick another turn.",
  prompt_blocked:
    "A hook of yours refused this prompt (its words are above): change the prompt or the hook.",
  session_exists:
    "A session with that ID is already there: delete or archive that one first, then retry.",
  budget_exceeded:
    "The session reached its budget_usd: raise the setting and restart the backend, or start a new session.",
  command_missing: "No such custom command here: list them (commands.list, mc-agent skills).",
  input_unsupported:
    "Choose a model whose catalog entry lists image input, or send the prompt without the image.",
  internal_error: "Report a backend failure (its log is on stderr; MC_LOG=debug for more).",
  spawn_failed: "Check that the backend command exists and runs.",
  child_exited: "Check the backend's log on stderr (MC_LOG=debug), then try again.",
  protocol_violation: "The backend does not speak the protocol correctly; report it.",
  invalid_response: "The backend sent a result outside the protocol schema; report it.",
  closed: "The client was closed; start a new one.",
  aborted: "Run it again when you want it.",
  not_negotiated: "Negotiate the capability at spawn.",
  discovery_unstable: "The session store is changing; try again when it is quiet.",
  catalog_unstable: "The model catalog is changing; try again when it is quiet.",
  restart_limit: "The backend keeps running out of requests; report it.",
  stale_guard: "Reload the catalog, then choose again.",
};

/**
 * What to do after an error: its next step when it carries one (`errors.recovery` negotiated:
 * `RemoteError.next`), naming the command to run, else the advice for its code.
 */
export function adviceFor(code: ErrorCode | ClientErrorCode, next: NextStep | null = null): string {
  return next ? adviceForStep(next) : ADVICE[code];
}

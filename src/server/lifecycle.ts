import { initializeResultOf } from "../boot/initialize-fast.js";
import {
  CAPABILITIES,
  type Capability,
  extensionParameters,
  isCapability,
} from "../protocol/capabilities.js";
import { ProtocolError } from "../protocol/codes.js";
import { PROTOCOL_VERSION } from "../protocol/constants.js";
import type {
  InitializeParams,
  InitializeResult,
  StatusResult,
} from "../protocol/schemas/lifecycle.js";
import type { ServerState } from "./state.js";

interface StatusInputs {
  worker: StatusResult["worker"];
  active: StatusResult["active_requests"];
  requestsLeft: number;
}

/** initialize and status results, built from the child's state. */
export function lifecycleResults(state: ServerState, implemented: () => Set<string>) {
  return {
    /**
     * Negotiates at once; the result waits (a promise) only for what a negotiated extension
     * still finds out (`state.extensionPending`).
     */
    initialize(params: InitializeParams): InitializeResult | Promise<InitializeResult> {
      if (params.protocol_version !== PROTOCOL_VERSION) {
        throw new ProtocolError("unsupported_protocol_version");
      }
      const requested = params.required_capabilities;
      if (new Set(requested).size !== requested.length) {
        throw new ProtocolError(
          "invalid_params",
          "required_capabilities lists a capability twice.",
        );
      }
      const available = implemented();
      for (const name of requested) {
        if (!isCapability(name) || !available.has(name))
          throw new ProtocolError("unsupported_capability");
      }
      const negotiated = CAPABILITIES.filter((name) => requested.includes(name));
      state.negotiated = new Set<Capability>(negotiated);
      state.phase = "ready";
      const pending = negotiated.flatMap((name) => state.extensionPending[name]?.() ?? []);
      if (pending.length === 0) return initializeResult(state, negotiated);
      return Promise.all(pending).then(() => initializeResult(state, negotiated));
    },

    status(inputs: StatusInputs): StatusResult {
      return {
        state: state.phase,
        cwd: state.cwd,
        attachment: state.attachment,
        selection: state.selection,
        worker: inputs.worker,
        active_requests: inputs.active,
        requests_left: inputs.requestsLeft,
      };
    },
  };
}

function initializeResult(state: ServerState, negotiated: Capability[]): InitializeResult {
  const extensions: Record<string, object> = {};
  for (const name of negotiated) {
    const parameters = extensionParameters(name);
    const extra = state.extensionExtras[name];
    if (parameters) extensions[name] = extra ? { ...parameters, ...extra() } : parameters;
  }
  return initializeResultOf(negotiated, extensions) as InitializeResult;
}

import type OpenAI from "openai";
import type { ResponseCreateParamsStreaming } from "openai/resources/responses/responses";
import { failure, statusFailure, thrownFailure } from "./http-failures.js";
import { CallGuard, SDK_TIMEOUT_MS } from "./http-transport.js";
import type { ProviderOptions } from "./index.js";
import type {
  ModelProvider,
  ModelRequest,
  ProviderFailure,
  StreamEvent,
  TransportBounds,
} from "./provider.js";
import { errorCodeFailure, ResponsesReader, responsesBody } from "./responses-format.js";

/** What `createModelProvider` hands every provider. */

type Sdk = typeof import("openai");
let sdk: Promise<Sdk> | null = null;
/** The SDK loads on the first call of a Responses provider, not at child start. */
export function loadOpenAi(): Promise<Sdk> {
  sdk ??= import("openai");
  return sdk;
}

/** `openai`: the Responses API with an API key (`Authorization: Bearer`), nothing stored. */
export function createResponsesProvider(options: ProviderOptions): ModelProvider {
  const { provider, credential, bounds } = options;
  return {
    async *stream(request) {
      if (credential?.kind !== "api_key" && credential?.kind !== "oauth_bearer")
        throw failure("authentication_rejected", "no API key");
      const key = credential.kind === "api_key" ? credential.key : credential.token;
      const body = responsesBody(request, provider);
      yield* responsesCall({ baseURL: provider.base_url, apiKey: key, headers: {} }, body, {
        request,
        bounds,
        providerType: provider.type,
      });
    },
  };
}

export interface ResponsesEndpoint {
  baseURL: string;
  apiKey: string;
  headers: Record<string, string>;
}

interface CallContext {
  request: ModelRequest;
  bounds: TransportBounds;
  providerType: string;
}

/**
 * One streamed Responses call. Every SDK default that could act behind our back is pinned:
 * no retries, no SDK timeout, no environment (base URL, organisation, project), no logging.
 */
export async function* responsesCall(
  endpoint: ResponsesEndpoint,
  body: ResponseCreateParamsStreaming,
  context: CallContext,
): AsyncGenerator<StreamEvent> {
  const mod = await loadOpenAi();
  const { OpenAI } = mod;
  const guard = new CallGuard(context.bounds, context.request.signal);
  const client: OpenAI = new OpenAI({
    apiKey: endpoint.apiKey,
    baseURL: endpoint.baseURL,
    organization: null,
    project: null,
    maxRetries: 0,
    timeout: SDK_TIMEOUT_MS,
    fetch: guard.fetch,
    defaultHeaders: endpoint.headers,
    logLevel: "off",
  });
  const reader = new ResponsesReader(context.providerType);
  try {
    const stream = await client.responses.create(body, { signal: guard.controller.signal });
    for await (const event of stream) {
      for (const out of reader.read(event)) {
        guard.pause();
        yield out;
        guard.resume();
      }
      if (reader.finished) return;
    }
    if (guard.cancelled) return;
    throw thrownFailure(new Error("aborted"), guard, () => null);
  } catch (error) {
    if (guard.cancelled) return;
    throw thrownFailure(error, guard, (e) => openAiFailure(e, mod));
  } finally {
    guard.close();
  }
}

/** An SDK HTTP error: the status first, then the body's error code refines it. */
export function openAiFailure(error: unknown, mod: Sdk): ProviderFailure | null {
  if (!(error instanceof mod.APIError) || error instanceof mod.APIConnectionError) return null;
  if (error.status === undefined) return errorCodeFailure(error.code ?? null);
  if (error.code === "context_length_exceeded") return failure("context_exceeded");
  return statusFailure(error.status, error.headers);
}

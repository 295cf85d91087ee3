import type {
  ResponseCreateParamsStreaming,
  ResponseStreamEvent,
} from "openai/resources/responses/responses";
import { parseJson } from "../../protocol/well-formed.js";
import { failure, saying, thrownFailure } from "./failures.js";
import type {
  ModelProvider,
  ModelRequest,
  ProviderOptions,
  StreamEvent,
  TransportBounds,
} from "./provider.js";
import { errorCodeFailure, ResponsesReader, responsesBody } from "./responses-format.js";
import { CallGuard, loadOpenAi, type OpenAiEndpoint, openAiClient } from "./transport.js";

/** `openai`: the Responses API with an API key (`Authorization: Bearer`), nothing stored. */
export function createResponsesProvider(options: ProviderOptions): ModelProvider {
  const { provider, credential, bounds } = options;
  return {
    async *stream(request) {
      if (credential?.kind !== "api_key" && credential?.kind !== "oauth_bearer")
        throw failure("authentication_rejected", "no API key");
      const key = credential.kind === "api_key" ? credential.key : credential.token;
      const body = responsesBody(request, provider);
      yield* responsesCall({ baseUrl: provider.base_url, apiKey: key }, body, {
        request,
        bounds,
        providerType: provider.type,
      });
    },
  };
}

interface CallContext {
  request: ModelRequest;
  bounds: TransportBounds;
  providerType: string;
}

/** One streamed Responses call, through the shared transport (`openAiClient` pins the SDK). */
export async function* responsesCall(
  endpoint: OpenAiEndpoint,
  body: ResponseCreateParamsStreaming,
  context: CallContext,
): AsyncGenerator<StreamEvent> {
  const sdk = await loadOpenAi();
  const guard = new CallGuard(context.bounds, context.request.signal);
  const reader = new ResponsesReader(context.providerType);
  try {
    const client = await openAiClient(guard, endpoint);
    const messages = guard.events(() =>
      client.responses.create(body, { signal: guard.signal }).asResponse(),
    );
    for await (const { data } of messages) {
      if (data.startsWith("[DONE]")) break;
      const event = parseJson(data) as ResponseStreamEvent & {
        error?: { code?: unknown; type?: unknown };
      };
      // An `error` object at the top of an event, as the SDK's own reader treats it: its code,
      // else its type (a 5xx is `{"type":"server_error","code":null}`).
      if (event?.error)
        throw saying(
          errorCodeFailure(stringCode(event.error.code) ?? stringCode(event.error.type)),
          event,
        );
      yield* reader.read(event);
      if (reader.finished) return;
    }
    if (guard.cancelled) return;
    throw failure("invalid_response");
  } catch (error) {
    if (guard.cancelled) return;
    throw thrownFailure(error, guard, sdk);
  } finally {
    guard.close();
  }
}

const stringCode = (code: unknown) => (typeof code === "string" ? code : null);

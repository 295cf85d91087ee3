import { z } from "zod";
import {
  endpointBase,
  httpExchange,
  PROVIDER_BODY_BYTES,
  statusReason,
} from "../../http/exchange.js";
import { RefreshFailure } from "../../http/refresh-failure.js";
import { lazy } from "../../protocol/lazy.js";
import { CACHE_MODELS, type CacheModel } from "../../store/catalog-cache.js";
import { parseJson } from "../../store/settings.js";
import type { Provider } from "../providers.js";

/** What a provider adapter needs to authenticate one listing. */
export type ListingAuth =
  | { kind: "keyless" }
  | { kind: "api_key"; key: string }
  | { kind: "oauth_bearer"; token: string }
  | { kind: "codex"; token: string; account_id: string | null };

const ANTHROPIC_VERSION = "2023-06-01";
/** Codex's models endpoint filters by client version; mc asks as a current client. */
const CODEX_CLIENT_VERSION = "0.99.0";

/** The request's cancellation signal and its wall and connect bounds for each exchange. */
interface Remote {
  signal: AbortSignal;
  wallMs: number;
  connectMs: number;
}

/** Lists a provider's models over its real wire format. */
export function listModels(
  provider: Provider,
  auth: ListingAuth,
  remote: Remote,
): Promise<CacheModel[]> {
  const base = endpointBase(provider.base_url);
  if (provider.type === "anthropic") return listAnthropic(base, auth, remote);
  if (provider.type === "codex") return listCodex(base, auth, remote);
  return listOpenAi(base, auth, remote);
}

const OpenAiList = lazy(() =>
  z.looseObject({
    data: z.array(z.looseObject({ id: z.string() })),
  }),
);

async function listOpenAi(base: string, auth: ListingAuth, remote: Remote) {
  const body = await getJson(`${base}/models`, bearerHeaders(auth), remote);
  const parsed = OpenAiList().safeParse(body);
  if (!parsed.success) throw new RefreshFailure("invalid_catalog");
  guardCount(parsed.data.data.length);
  return parsed.data.data.map((m) => ({ id: m.id }));
}

const AnthropicPage = lazy(() =>
  z.looseObject({
    data: z.array(
      z.looseObject({ id: z.string(), display_name: z.string().nullable().optional() }),
    ),
    has_more: z.boolean(),
    last_id: z.string().nullable().optional(),
  }),
);

/** Pages with `after_id` while `has_more`; every page must make progress. */
async function listAnthropic(base: string, auth: ListingAuth, remote: Remote) {
  const headers: Record<string, string> = {
    "anthropic-version": ANTHROPIC_VERSION,
    accept: "application/json",
  };
  if (auth.kind === "api_key") headers["x-api-key"] = auth.key;
  else if (auth.kind !== "keyless") {
    headers.authorization = `Bearer ${auth.token}`;
    headers["anthropic-beta"] = "oauth-2025-04-20";
  }
  const models: CacheModel[] = [];
  let after: string | null = null;
  for (;;) {
    const query =
      after === null ? "?limit=1000" : `?limit=1000&after_id=${encodeURIComponent(after)}`;
    const parsed = AnthropicPage().safeParse(
      await getJson(`${base}/v1/models${query}`, headers, remote),
    );
    if (!parsed.success) throw new RefreshFailure("invalid_catalog");
    for (const m of parsed.data.data) models.push({ id: m.id, name: m.display_name ?? null });
    guardCount(models.length);
    if (!parsed.data.has_more) return models;
    const last = parsed.data.last_id ?? null;
    if (parsed.data.data.length === 0 || last === null || last === after)
      throw new RefreshFailure("invalid_catalog");
    after = last;
  }
}

const CodexLevel = lazy(() => z.union([z.string(), z.looseObject({ effort: z.string() })]));
const CodexList = lazy(() =>
  z.looseObject({
    models: z.array(
      z.looseObject({
        slug: z.string(),
        display_name: z.string().nullable().optional(),
        context_window: z.number().int().positive().nullable().optional(),
        supported_reasoning_levels: z.array(CodexLevel()).nullable().optional(),
        default_reasoning_level: z.string().nullable().optional(),
      }),
    ),
  }),
);

async function listCodex(base: string, auth: ListingAuth, remote: Remote) {
  const headers = bearerHeaders(auth);
  if (auth.kind === "codex" && auth.account_id) headers["chatgpt-account-id"] = auth.account_id;
  const body = await getJson(
    `${base}/models?client_version=${CODEX_CLIENT_VERSION}`,
    headers,
    remote,
  );
  const parsed = CodexList().safeParse(body);
  if (!parsed.success) throw new RefreshFailure("invalid_catalog");
  guardCount(parsed.data.models.length);
  return parsed.data.models.map((m) => {
    const efforts = (m.supported_reasoning_levels ?? []).map((l) =>
      typeof l === "string" ? l : l.effort,
    );
    const model: CacheModel = { id: m.slug, name: m.display_name ?? null };
    if (m.context_window) model.context_window = m.context_window;
    if (efforts.length > 0) {
      model.efforts = efforts;
      model.default_effort =
        m.default_reasoning_level && efforts.includes(m.default_reasoning_level)
          ? m.default_reasoning_level
          : null;
    }
    return model;
  });
}

/** A keyless listing (a custom provider without a key) sends no `Authorization` at all. */
function bearerHeaders(auth: ListingAuth): Record<string, string> {
  if (auth.kind === "keyless") return { accept: "application/json" };
  const token = auth.kind === "api_key" ? auth.key : auth.token;
  return { authorization: `Bearer ${token}`, accept: "application/json" };
}

function guardCount(count: number): void {
  if (count > CACHE_MODELS) throw new RefreshFailure("catalog_limit");
}

/** GET with the provider bounds; non-2xx statuses and non-JSON bodies become reasons. */
async function getJson(url: string, headers: Record<string, string>, remote: Remote) {
  const response = await httpExchange(
    {
      url,
      headers,
      wallMs: remote.wallMs,
      connectMs: remote.connectMs,
      maxBytes: PROVIDER_BODY_BYTES,
      tooLarge: "catalog_limit",
    },
    remote.signal,
  );
  const reason = statusReason(response.status);
  if (reason) throw new RefreshFailure(reason);
  const json = parseJson(response.body);
  if (json === undefined) throw new RefreshFailure("invalid_catalog");
  return json;
}

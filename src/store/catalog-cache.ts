import { createHash } from "node:crypto";
import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { safeParse } from "../protocol/first-parse.js";
import { type Infer, lazy } from "../protocol/lazy.js";
import { errorCode, readRegularFile, UnsafeStoreFile } from "./safe-read.js";
import { parseJson } from "./settings.js";

/**
 * Model catalog caches: `MC_HOME/cache/models/<provider>.json`, one per provider, written only by
 * a deliberate refresh. Age never expires a cache.
 */
export const CACHE_FORMAT = "mc-model-cache";
export const CACHE_VERSION = 1;
export const CACHE_BYTES = 1_048_576;
export const CACHE_MODELS = 2048;

const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,255}$/;
const Effort = lazy(() => z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/));

const Price = lazy(() => z.number().min(0).max(1e6).finite());

/**
 * A model's prices in USD per million tokens: `input` (uncached input), `output` (reasoning
 * included) and `cache_read` (cached input; null: priced as `input`).
 */
export const ModelCost = lazy(() =>
  z.strictObject({ input: Price(), output: Price(), cache_read: Price().nullable() }),
);

export const MODALITY_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;
export const ModelModalities = lazy(() =>
  z.strictObject({ input: z.array(z.string().regex(MODALITY_PATTERN)).max(16) }),
);

export const CacheModel = lazy(() =>
  z
    .strictObject({
      // Checked for safety and uniqueness after the fingerprint, as the contract orders it.
      id: z.string(),
      name: z.string().max(256).nullable().optional(),
      context_window: z.number().int().min(1).max(1e9).nullable().optional(),
      efforts: z.array(Effort()).max(16).optional(),
      default_effort: Effort().nullable().optional(),
      /** USD per million tokens, from models.dev (issue 42); absent: the price is unknown. */
      cost: ModelCost().optional(),
      /** What the model takes as input, from models.dev (`text`, `image`, `pdf`, ...). */
      modalities: ModelModalities().optional(),
    })
    .refine((m) => m.default_effort == null || (m.efforts ?? []).includes(m.default_effort), {
      message: "default_effort must be one of efforts",
    }),
);

export const CacheFile = lazy(() =>
  z.strictObject({
    format: z.literal(CACHE_FORMAT),
    version: z.literal(CACHE_VERSION),
    provider: z.string(),
    fingerprint: z.string().regex(/^[0-9a-f]{64}$/),
    fetched_at: z.string().min(1).max(64),
    models: z.array(CacheModel()),
  }),
);

export type CacheModel = Infer<typeof CacheModel>;
export type ModelCost = Infer<typeof ModelCost>;
export type CacheFile = Infer<typeof CacheFile>;

/** A cache over the byte or entry bound: the operation error `catalog_limit`. */
export class CacheLimitExceeded extends Error {
  constructor() {
    super("catalog cache exceeds its bounds");
    this.name = "CacheLimitExceeded";
  }
}

export type CacheVerdict =
  | { status: "available"; models: CacheModel[] }
  | {
      status:
        | "missing_cache"
        | "empty_cache"
        | "invalid_format"
        | "invalid_schema"
        | "incompatible_fingerprint";
    };

/** The identity a cache is bound to: a changed type or endpoint invalidates it. */
interface ProviderIdentity {
  type: string;
  base_url: string;
}

/**
 * SHA-256 (lowercase hex) of the UTF-8 bytes of `{"type":<type>,"base_url":<base_url>}`, written
 * compactly with the keys in that order (exactly what JSON.stringify produces). The base URL is
 * the configured string, or the built-in default, unchanged.
 */
export function providerFingerprint(identity: ProviderIdentity): string {
  const canonical = JSON.stringify({ type: identity.type, base_url: identity.base_url });
  return createHash("sha256").update(canonical, "utf8").digest("hex");
}

function cacheFolder(home: string): string {
  return join(home, "cache", "models");
}

export function cachePath(home: string, provider: string): string {
  return join(cacheFolder(home), `${provider}.json`);
}

/**
 * Throws `UnsafeStoreFile` when `cache` or `cache/models` exists but is not a real folder (a
 * symlinked folder would let a cache be read from anywhere). Absent folders are fine.
 */
export async function checkCacheFolders(home: string): Promise<void> {
  for (const folder of [join(home, "cache"), cacheFolder(home)]) {
    try {
      const stat = await lstat(folder);
      if (!stat.isDirectory()) throw new UnsafeStoreFile();
    } catch (error) {
      if (error instanceof UnsafeStoreFile) throw error;
      if (errorCode(error) === "ENOENT") return;
      throw new UnsafeStoreFile();
    }
  }
}

/**
 * The raw bytes of a provider's cache, or null when there is none. Throws `UnsafeStoreFile`
 * (symlink, non-regular, unreadable) and `CacheLimitExceeded` (over 1 MiB).
 */
export async function readCacheBytes(home: string, provider: string): Promise<Buffer | null> {
  const read = await readRegularFile(cachePath(home, provider), CACHE_BYTES);
  if (read.kind === "missing") return null;
  if (read.kind === "too_large") throw new CacheLimitExceeded();
  return read.bytes;
}

/**
 * Validates cache bytes in the contract's order: format, schema and provider identity,
 * fingerprint, empty entries, entry identities. Throws `CacheLimitExceeded` for more than 2048
 * entries, which is an operation error rather than a status.
 */
export function validateCache(
  bytes: Buffer | null,
  provider: string,
  fingerprint: string,
): CacheVerdict {
  if (bytes === null) return { status: "missing_cache" };
  const json = parseJson(bytes);
  if (!isObject(json) || json.format !== CACHE_FORMAT || json.version !== CACHE_VERSION)
    return { status: "invalid_format" };
  if (Array.isArray(json.models) && json.models.length > CACHE_MODELS)
    throw new CacheLimitExceeded();
  // Its first check without zod's compiled fast path (first-parse.ts): a start reads each
  // provider's cache once or twice, and compiling cost more than it saved on the path to an ACP
  // session's answer (docs/benchmarks.md, "Targets of issue 44").
  const parsed = safeParse(CacheFile(), json);
  if (!parsed.success || parsed.data.provider !== provider) return { status: "invalid_schema" };
  if (parsed.data.fingerprint !== fingerprint) return { status: "incompatible_fingerprint" };
  if (parsed.data.models.length === 0) return { status: "empty_cache" };
  if (!entryIdentitiesValid(parsed.data.models, provider)) return { status: "invalid_schema" };
  return { status: "available", models: parsed.data.models };
}

/** Every ID safe (also as `<provider>/<id>`) and unique. */
export function entryIdentitiesValid(models: readonly { id: string }[], provider: string): boolean {
  const seen = new Set<string>();
  for (const { id } of models) {
    if (!MODEL_ID.test(id) || !MODEL_ID.test(`${provider}/${id}`) || seen.has(id)) return false;
    seen.add(id);
  }
  return true;
}

/** The bytes a refresh writes: one compact JSON line. */
export function serializeCache(file: CacheFile): Buffer {
  return Buffer.from(`${JSON.stringify(file)}\n`, "utf8");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

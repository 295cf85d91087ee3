import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type {
  CachedModel,
  CachedProvider,
  SettingsCheckResult,
} from "../protocol/schemas/settings.js";
import type { Caller } from "./caller.js";
import { CATALOG_READ_ATTEMPTS } from "./catalog.js";
import type { CallOptions } from "./connection.js";
import { ClientError, isRemote } from "./errors.js";
import { followCursor, withCursor } from "./pager.js";

/**
 * Where a settings file lives, by the documented rule (docs/store.md, "Settings"): the child
 * never names paths, so a frontend that points at an error works the path out itself.
 */
export function settingsFilePath(
  file: "global" | "project",
  env: NodeJS.ProcessEnv,
  cwd: string,
): string {
  return file === "global" ? join(homeOf(env), "config.json") : join(cwd, ".mc", "config.json");
}

/** MC_HOME, or ~/.mc; an empty variable counts as unset (docs/store.md). */
export function homeOf(env: NodeJS.ProcessEnv): string {
  return env.MC_HOME ? resolve(env.MC_HOME) : join(homedir(), ".mc");
}

/** The files that are invalid, from a `settings.check` result. */
export function invalidFiles(check: SettingsCheckResult): SettingsCheckResult["files"] {
  return check.files.filter((f) => f.state === "invalid");
}

export interface CachedRead {
  revision: string;
  providers: CachedProvider[];
  models: CachedModel[];
}

/** Every page of `model.cached` of one revision; a catalog changing under it is read again. */
export async function readCached(client: Caller, options: CallOptions = {}): Promise<CachedRead> {
  for (let attempt = 1; attempt <= CATALOG_READ_ATTEMPTS; attempt += 1) {
    const read = await oneRevision(client, options);
    if (read) return read;
  }
  throw new ClientError(
    "catalog_unstable",
    `The catalog changed during ${CATALOG_READ_ATTEMPTS} reads in a row.`,
  );
}

async function oneRevision(client: Caller, options: CallOptions): Promise<CachedRead | null> {
  let read: CachedRead | null = null;
  try {
    const pages = followCursor(
      (cursor) => client.call("model.cached", withCursor({}, cursor), options),
      "model.cached",
    );
    for await (const page of pages) {
      if (read && page.revision !== read.revision) return null;
      read ??= { revision: page.revision, providers: page.providers, models: [] };
      read.models.push(...page.models);
    }
  } catch (error) {
    if (isRemote(error, "stale_revision")) return null;
    throw error;
  }
  return read;
}

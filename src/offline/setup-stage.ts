import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeFileAtomic } from "../store/atomic-write.js";
import { cachePath, checkCacheFolders, readCacheBytes } from "../store/catalog-cache.js";

/**
 * A provider that MC_HOME/config.json does not name yet (a local server setup found) cannot be
 * refreshed by a child reading that file, and setup writes the file only once, at its end (so
 * that Ctrl-C at any step leaves it as it was). Its refresh runs in a staging home instead: a
 * private temporary MC_HOME whose config.json is the user's file with the new provider added
 * (models_dev_url and every other setting kept). Once the user has picked a model, the staged
 * cache file is copied into MC_HOME's cache (valid there: a cache is bound to the provider's
 * type and base URL, which are the same) and then the settings are written.
 */
export async function createStagingHome(settingsText: string): Promise<string> {
  const stage = await mkdtemp(join(tmpdir(), "mc-setup-"));
  await writeFile(join(stage, "config.json"), settingsText, { mode: 0o600 });
  return stage;
}

/**
 * Copies the provider's catalog cache from the staging home into `home` with the store's atomic
 * writer. False when the staging home has none (the refresh did not write one).
 */
export async function adoptStagedCache(
  stage: string,
  home: string,
  provider: string,
): Promise<boolean> {
  const bytes = await readCacheBytes(stage, provider);
  if (bytes === null) return false;
  await checkCacheFolders(home);
  await writeFileAtomic(cachePath(home, provider), bytes, 0o600);
  return true;
}

export async function removeStagingHome(stage: string): Promise<void> {
  await rm(stage, { recursive: true, force: true });
}

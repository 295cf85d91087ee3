import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeFileAtomic } from "../store/atomic-write.js";
import { cachePath, checkCacheFolders, readCacheBytes } from "../store/catalog-cache.js";
import { CREDENTIAL_FILE_BYTES, credentialPaths } from "../store/credentials.js";
import { readRegularFile, UnsafeStoreFile } from "../store/safe-read.js";

/** A staging home, and the MC_HOME credential file it was given (null: none to give). */
export interface StagingHome {
  dir: string;
  credentials: Buffer | null;
}

/**
 * A provider that MC_HOME/config.json does not name yet (a local server setup found) cannot be
 * refreshed by a child reading that file, and setup writes the file only once, at its end (so
 * that Ctrl-C at any step leaves it as it was). Its refresh runs in a staging home instead: a
 * private temporary MC_HOME whose config.json is the user's file with the new provider added
 * (models_dev_url and every other setting kept). Once the user has picked a model, the staged
 * cache file is copied into MC_HOME's cache (valid there: a cache is bound to the provider's
 * type and base URL, which are the same) and then the settings are written.
 *
 * MC_HOME's own credential file, auth.json, is copied in too (mode 0600, in a folder only the
 * user can enter), so that a credential stored there works for the staged refresh as it does for
 * `mc-agent refresh`; the child would find none otherwise, the staging home being its MC_HOME.
 */
export async function createStagingHome(settingsText: string, home: string): Promise<StagingHome> {
  const dir = await mkdtemp(join(tmpdir(), "mc-setup-"));
  await writeFile(join(dir, "config.json"), settingsText, { mode: 0o600 });
  const credentials = await credentialBytes(home);
  if (credentials !== null) await writeFile(join(dir, "auth.json"), credentials, { mode: 0o600 });
  return { dir, credentials };
}

/**
 * After the staged refresh: a credential the refresh renewed (Codex writes a renewed token back
 * to the file it came from) is written back to MC_HOME, unless MC_HOME's file changed meanwhile
 * (then that newer file wins, and the renewal is only lost, never written over it).
 */
export async function adoptStagedCredentials(stage: StagingHome, home: string): Promise<void> {
  if (stage.credentials === null) return;
  const staged = await credentialBytes(stage.dir);
  if (staged === null || staged.equals(stage.credentials)) return;
  const current = await credentialBytes(home);
  if (current === null || !current.equals(stage.credentials)) return;
  await writeFileAtomic(credentialPaths(home, {}).mcAuth, staged, 0o600);
}

/** The bytes of `home`'s auth.json, read as the child reads it; null when it has none usable. */
async function credentialBytes(home: string): Promise<Buffer | null> {
  try {
    const read = await readRegularFile(credentialPaths(home, {}).mcAuth, CREDENTIAL_FILE_BYTES);
    return read.kind === "bytes" ? read.bytes : null;
  } catch (error) {
    if (error instanceof UnsafeStoreFile) return null;
    throw error;
  }
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

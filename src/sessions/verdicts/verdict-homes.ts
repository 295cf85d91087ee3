import { constants } from "node:fs";
import { lstat, open, opendir, rmdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import { writeCacheFile } from "../../store/cache-file.js";
import { type HomeIdentity, identityAt, identityDigest } from "./home-identity.js";
import type { VerdictPlace } from "./verdict-root.js";

/**
 * The cache folders of homes that no longer exist (docs/store.md, "The verdict cache"). A folder
 * is named by a digest of its home's identity, which cannot be turned back into the home, so
 * each folder holds a small marker, `.home`, naming the identity it was made for. A later prune
 * by any child removes a sibling folder once its marker's home is gone or is another home now
 * (another device or inode at that path): its verdicts can never be read again.
 */
const MARKER = ".home";
const MARKER_BYTES = 8192;
const FOLDER_NAME = /^sessions-([0-9a-f]{32})$/;
/** Files a cache folder may hold; a folder holding anything else is left alone. */
const OURS = /^(\.home|[A-Za-z0-9][A-Za-z0-9_-]{0,63}\.json|\.[A-Za-z0-9][A-Za-z0-9_.-]*\.tmp)$/;
/** At most this many gone homes' folders are removed per prune: a prune stays short. */
const GONE_HOMES_PER_PRUNE = 16;

/** Writes the folder's marker when it has none (temp file, then rename; best effort). */
export async function ensureHomeMarker(place: VerdictPlace): Promise<void> {
  const target = join(place.folder, MARKER);
  if (
    await lstat(target).then(
      () => true,
      () => false,
    )
  )
    return;
  const body = `${JSON.stringify({ format: "mc-verdict-home", version: 1, ...place.identity })}\n`;
  await writeCacheFile(place.folder, MARKER, body, MARKER.slice(1)).catch(() => {});
}

/**
 * Removes up to GONE_HOMES_PER_PRUNE sibling folders of `place` whose marker names a home that is
 * gone. A folder is removed only when its marker is well formed, matches the folder's own name
 * (so a marker copied elsewhere proves nothing), and the home at the marker's path has another
 * identity or none; and only the files a cache folder holds are removed, then the folder (a
 * folder with anything else in it stays). Best effort, never throws; returns the folders removed.
 */
export async function pruneGoneHomes(place: VerdictPlace): Promise<number> {
  const uid = process.getuid?.();
  let removed = 0;
  try {
    for await (const entry of await opendir(place.root)) {
      if (removed >= GONE_HOMES_PER_PRUNE) break;
      const match = FOLDER_NAME.exec(entry.name);
      const folder = join(place.root, entry.name);
      if (match === null || folder === place.folder || !entry.isDirectory()) continue;
      const stats = await lstat(folder).catch(() => null);
      if (stats === null || !stats.isDirectory() || (uid !== undefined && stats.uid !== uid))
        continue;
      const marker = await readMarker(folder);
      if (marker === null || identityDigest(marker) !== match[1]) continue;
      const now = identityAt(marker.path);
      if (now !== null && identityDigest(now) === match[1]) continue; // the home is still there
      if (await removeCacheFolder(folder)) removed += 1;
    }
  } catch {
    // An unreadable root: gone homes' folders stay until a later prune.
  }
  return removed;
}

async function readMarker(folder: string): Promise<HomeIdentity | null> {
  try {
    const handle = await open(
      join(folder, MARKER),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
    try {
      if (!(await handle.stat()).isFile()) return null;
      const buffer = Buffer.alloc(MARKER_BYTES + 1);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      if (bytesRead > MARKER_BYTES) return null;
      const value = JSON.parse(buffer.subarray(0, bytesRead).toString("utf8"));
      const ok =
        value?.format === "mc-verdict-home" &&
        value.version === 1 &&
        typeof value.path === "string" &&
        value.path.startsWith("/") &&
        /^\d{1,20}$/.test(value.dev) &&
        /^\d{1,20}$/.test(value.ino);
      return ok ? { path: value.path, dev: value.dev, ino: value.ino } : null;
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
}

async function removeCacheFolder(folder: string): Promise<boolean> {
  try {
    for await (const entry of await opendir(folder)) {
      if (!OURS.test(entry.name) || !entry.isFile()) return false;
    }
    for await (const entry of await opendir(folder)) {
      if (OURS.test(entry.name) && entry.name !== MARKER) await unlink(join(folder, entry.name));
    }
    // The marker last: a prune cut short leaves a folder that the next one still recognises.
    await unlink(join(folder, MARKER));
    await rmdir(folder);
    return true;
  } catch {
    return false;
  }
}

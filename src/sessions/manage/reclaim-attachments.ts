/**
 * A deletion's last step (docs/store.md, "Deleting a session"): the images the deleted history
 * named (its `user_message` records' `attachments`), each removed from the attachment store
 * unless another history, active or archived, still names it, or a turn used it since this
 * step began (store/attachment-store.ts `reclaimAttachment`: how that stays safe against a
 * turn of another process naming the image while this runs).
 */
import { createReadStream, readdirSync } from "node:fs";
import { join } from "node:path";
import { RECLAIM_CLOCK_MARGIN_MS, reclaimAttachment } from "../../store/attachment-store.js";
import { archiveDir, sessionsDir } from "../../store/layout.js";

const SHA = /"sha256":"([0-9a-f]{64})"/g;

/** Reclaims what `tombstone` named and no other history names; never fails the deletion. */
export async function reclaimAttachments(home: string, tombstone: string): Promise<void> {
  try {
    const named = await namedIn(tombstone, true);
    if (named.size === 0) return;
    const since = Date.now() - RECLAIM_CLOCK_MARGIN_MS;
    for (const history of otherHistories(home)) {
      for (const sha of await namedIn(history, false, named)) named.delete(sha);
      if (named.size === 0) return;
    }
    for (const sha of named) await reclaimAttachment(home, sha, since).catch(() => false);
  } catch {
    // Left in the store: an unused file costs disk, never a wrong history.
  }
}

/** Every history file (`*.jsonl`, not a tombstone or temp file) of both folders. */
function otherHistories(home: string): string[] {
  const paths: string[] = [];
  for (const folder of [sessionsDir(home), archiveDir(home)]) {
    let names: string[] = [];
    try {
      names = readdirSync(folder);
    } catch {}
    for (const name of names)
      if (name.endsWith(".jsonl") && !name.startsWith(".")) paths.push(join(folder, name));
  }
  return paths;
}

/**
 * The image hashes a history names: in a tombstone, those of `user_message` records; in
 * another history, any of `among` it mentions on a `user_message` line (cheap filter, no parse).
 * An unreadable history counts as naming all of `among`: nothing is taken from under it.
 */
async function namedIn(path: string, own: boolean, among?: Set<string>): Promise<Set<string>> {
  const found = new Set<string>();
  let stream: ReturnType<typeof createReadStream>;
  try {
    stream = createReadStream(path, { encoding: "utf8" });
  } catch {
    return own ? found : new Set(among);
  }
  // node:readline at the first read, not with this module: a start that reads no such file before
  // its answer does not load it (2-4 ms; docs/acp.md, "Start-up").
  const lines = process
    .getBuiltinModule("node:readline")
    .createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const line of lines) {
      if (!line.includes('"user_message"') || !line.includes('"attachments"')) continue;
      for (const match of line.matchAll(SHA)) {
        const sha = match[1] as string;
        if (own || among?.has(sha)) found.add(sha);
      }
    }
  } catch {
    if (!own) return new Set(among);
  } finally {
    lines.close();
    stream.destroy();
  }
  return found;
}

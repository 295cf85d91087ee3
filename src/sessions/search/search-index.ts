import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync, rmSync } from "node:fs";
import { join } from "node:path";

/**
 * The search index (docs/store.md, "The search index"): beside the verdicts, in this home's
 * cache folder (`<root>/sessions-<hex>/`, verdicts/verdict-root.ts), never in MC_HOME. One
 * folder per workspace, `search-<32 hex of SHA-256 of the canonical cwd>/`, one file per
 * session, `<id>.json`: the history's signature when it was read and validated for that
 * workspace, its title and updated_at, and each searchable record's index and text. A file
 * whose signature differs from the history's now is stale: the history is read again and the
 * file rewritten (search-index-writer.ts, after the search). Deleting any of it at any time is
 * safe.
 */
export interface IndexedSession {
  format: "mc-search-index";
  version: 1;
  signature: string;
  title: string | null;
  updated_at: string;
  /** [record_index, searchable text] for each record that has one. */
  records: [number, string][];
}

/** Index files larger than this are neither written nor read (a history's text is far less). */
export const INDEX_FILE_MAX_BYTES = 64 * 1024 * 1024;

export function workspaceIndexFolder(cacheFolder: string, workspace: string): string {
  const digest = createHash("sha256").update(workspace).digest("hex").slice(0, 32);
  return join(cacheFolder, `search-${digest}`);
}

/**
 * Reads one search's index entries. `read(id, signature)`: the entry of `id` when it was made of
 * the history as `signature` says it is now; else null (missing, stale, torn, foreign: a miss,
 * the history is read). An entry whose text cannot hold the query is not parsed at all (most
 * entries, for a rare text): `"unmatched"`.
 *
 * Why that is exact: the entry is JSON.stringify's output, whose escapes (`\"`, `\\`, `\n`,
 * `\u001b`, ...) hold no upper-case letter, so lowering the file lowers each string's text and
 * leaves its escapes; a text holding the query then holds it escaped the same way (`rawNeedle`,
 * QueryMatcher) in the file lowered. A hit found there only by chance (a key, a title, across
 * two records) is checked record by record after the parse. The file must begin with the exact
 * header of this signature and end as the object ends, or it is a miss (a file torn by a crash,
 * since cache files are not fsynced, ends elsewhere).
 *
 * Fast path, for a query of ASCII characters (most): the file's bytes are read into one buffer
 * kept for the search, taken one byte a character (latin1, no UTF-8 decoding), lowered and
 * searched. It is the same test as lowering the text: no character outside ASCII lowers to an
 * ASCII letter but U+0130 and U+212A, and a file holding either takes the text path.
 */
export class IndexReader {
  private buffer = Buffer.allocUnsafe(256 * 1024);
  private readonly ascii: boolean;

  constructor(
    private readonly folder: string,
    private readonly rawNeedle: string,
  ) {
    this.ascii = Buffer.byteLength(rawNeedle, "utf8") === rawNeedle.length;
  }

  read(id: string, signature: string): IndexedSession | "unmatched" | null {
    const path = join(this.folder, `${id}.json`);
    const size = this.load(path);
    if (size === null) return null;
    const head = `{"format":"mc-search-index","version":1,"signature":${JSON.stringify(signature)},`;
    const bytes = this.buffer.subarray(0, size);
    if (!bytes.subarray(0, head.length).equals(Buffer.from(head)) || !endsAsObject(bytes))
      return null;
    if (this.ascii && !hasAsciiLowering(bytes)) {
      // One byte a character (latin1): no UTF-8 decoding; lowering it lowers A-Z as in the
      // text and changes no other byte into ASCII, so an ASCII query is found exactly there.
      if (!bytes.toString("latin1").toLowerCase().includes(this.rawNeedle)) return "unmatched";
      return parse(bytes.toString("utf8"));
    }
    const text = bytes.toString("utf8");
    if (!text.toLowerCase().includes(this.rawNeedle)) return "unmatched";
    return parse(text);
  }

  /** The file's bytes into the buffer (grown as needed); their count, or null: a miss. */
  private load(path: string): number | null {
    let fd: number;
    try {
      fd = openSync(path, "r");
    } catch {
      return null; // missing or unreadable: a miss
    }
    try {
      const size = fstatSync(fd).size;
      if (size > INDEX_FILE_MAX_BYTES) return null;
      if (size > this.buffer.length) this.buffer = Buffer.allocUnsafe(size);
      let got = 0;
      while (got < size) {
        const n = readSync(fd, this.buffer, got, size - got, got);
        if (n === 0) break;
        got += n;
      }
      return got === size ? size : null;
    } catch {
      return null;
    } finally {
      closeSync(fd);
    }
  }
}

const BRACKET_CLOSE = 0x5d; // ]
const BRACE_CLOSE = 0x7d; // }

function endsAsObject(bytes: Buffer): boolean {
  return (
    bytes.length >= 2 && bytes[bytes.length - 2] === BRACKET_CLOSE && bytes.at(-1) === BRACE_CLOSE
  );
}

/** U+0130 (C4 B0) and U+212A (E2 84 AA): the characters whose lower case holds an ASCII letter. */
function hasAsciiLowering(bytes: Buffer): boolean {
  return bytes.includes(DOTTED_I) || bytes.includes(KELVIN);
}
const DOTTED_I = Buffer.from([0xc4, 0xb0]);
const KELVIN = Buffer.from([0xe2, 0x84, 0xaa]);

function parse(text: string): IndexedSession | null {
  try {
    const value = JSON.parse(text) as IndexedSession;
    if (typeof value.signature !== "string" || !Array.isArray(value.records)) return null;
    return value;
  } catch {
    return null; // torn or foreign: a miss
  }
}

/**
 * Removes a session's search-index entry for `workspace` (session delete calls it). `cacheFolder`
 * is this home's cache folder (VerdictPlace.folder). Missing entries are fine.
 */
export function forgetSearchEntries(cacheFolder: string, workspace: string, sessionId: string) {
  rmSync(join(workspaceIndexFolder(cacheFolder, workspace), `${sessionId}.json`), { force: true });
}

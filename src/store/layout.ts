import { join } from "node:path";

/**
 * The sessions folder's naming scheme (docs/store.md, "Layout"). Classification looks at the name
 * only; whether a primary is a regular file is decided by the safe opener.
 */

/**
 * The session ID grammar, as the on-disk format fixes it. It is the same grammar as the wire's
 * SESSION_ID_PATTERN (a unit test keeps the two equal); the store may not import protocol code.
 */
export const STORE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

const ARCHIVE_NAME = "archive";
const PRIMARY_SUFFIX = ".jsonl";
const LOCK_SUFFIX = ".lock";

export type EntryKind =
  | { kind: "primary"; id: string }
  | { kind: "lock"; id: string }
  | { kind: "derived" }
  | { kind: "archive" }
  | { kind: "ignored" };

export function sessionsDir(home: string): string {
  return join(home, "sessions");
}

/**
 * Where archived histories live (`sessions/archive/`, session.archive): the same names as in
 * `sessions/`, never listed by session.list or session.discover.
 */
export function archiveDir(home: string): string {
  return join(home, "sessions", ARCHIVE_NAME);
}

/** The folder a history is read from: the sessions folder, or its archive. */
export function historyFolder(home: string, archived: boolean): string {
  return archived ? archiveDir(home) : sessionsDir(home);
}

export function primaryName(id: string): string {
  return `${id}${PRIMARY_SUFFIX}`;
}

export function lockName(id: string): string {
  return `${id}${LOCK_SUFFIX}`;
}

function isStoreId(id: string): boolean {
  return STORE_ID_PATTERN.test(id);
}

/** What a name in the sessions folder is, by name alone. */
export function classifyName(name: string): EntryKind {
  if (name === ARCHIVE_NAME) return { kind: "archive" };
  if (name.endsWith(PRIMARY_SUFFIX)) {
    const stem = name.slice(0, -PRIMARY_SUFFIX.length);
    if (isStoreId(stem)) return { kind: "primary", id: stem };
    // `<id>.<anything>.jsonl`: subagent and other derived histories, never listed.
    const dot = stem.indexOf(".");
    if (dot > 0 && isStoreId(stem.slice(0, dot))) return { kind: "derived" };
    return { kind: "ignored" };
  }
  if (name.endsWith(LOCK_SUFFIX)) {
    const stem = name.slice(0, -LOCK_SUFFIX.length);
    if (isStoreId(stem)) return { kind: "lock", id: stem };
  }
  return { kind: "ignored" };
}

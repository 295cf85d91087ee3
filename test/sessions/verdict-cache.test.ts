import assert from "node:assert/strict";
import {
  chmodSync,
  existsSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import {
  encodeVerdict,
  signatureFields,
  type VerdictRecord,
} from "../../src/sessions/verdicts/verdict-file.js";
import { verdictPlace } from "../../src/sessions/verdicts/verdict-root.js";
import type { ChildOptions, Sandbox, TestChild } from "../helpers/child.js";
import { discoverAll, inSandbox, listAll, startSessions } from "../helpers/sessions.js";
import { isRoot, unprivilegedChild } from "../helpers/unprivileged.js";

/**
 * The verdict cache (docs/extensions.md, "The verdict cache"), black-box: real children, real
 * files. Whether a child read a history is measured from outside by the kernel's own count of
 * the bytes the child's read calls returned (`rchar` in /proc/<pid>/io): a listing that takes a
 * cached verdict reads a few hundred bytes, one that reads the 4 MiB history reads 4 MiB. No
 * switch inside the child is involved. Histories are written, then left alone for more than the
 * cache's 2 s ctime margin before the first listing (a verdict is kept only for a history whose
 * last change is older than that), so every test here runs with the child's real margin. The
 * cache root is a temp `MC_AGENT_CACHE_DIR` beside the sandbox's MC_HOME, never inside it.
 */
const HISTORY_BYTES = 4 * 1024 * 1024;
const MARGIN_WAIT_MS = 2_300;
const SYNC = { MC_AGENT_TEST_VERDICT_SYNC: "1" };

function historyText(cwd: string, title: string, bytes = HISTORY_BYTES): string {
  const head = [
    { type: "session_meta", ts: "2026-11-29T10:00:00.000Z", cwd, id: "x" },
    { type: "title", ts: "2026-11-29T10:00:01.000Z", cwd, title },
  ]
    .map((r) => `${JSON.stringify(r)}\n`)
    .join("");
  const filler = (n: number) =>
    `${JSON.stringify({ type: "user_message", ts: "2026-11-29T10:00:02.000Z", cwd, text: "y".repeat(n) })}\n`;
  const unit = filler(60_000);
  let text = head;
  while (text.length + unit.length < bytes) text += unit;
  const rest = bytes - text.length - filler(0).length;
  return text + filler(Math.max(0, rest));
}

function sessionsOf(box: Sandbox): string {
  const folder = join(box.home, "sessions");
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  return folder;
}

function writeHistory(box: Sandbox, id: string, title: string, cwd = box.workspace): string {
  const path = join(sessionsOf(box), `${id}.jsonl`);
  writeFileSync(path, historyText(cwd, title));
  return path;
}

/** The sandbox's cache root (MC_AGENT_CACHE_DIR), outside MC_HOME. */
const cacheRoot = (box: Sandbox) => join(box.root, "user-cache");
/** This MC_HOME's verdict folder in it (sessions/verdicts/verdict-root.ts: one folder per home identity). */
function cacheFolder(box: Sandbox): string {
  const place = verdictPlace({ MC_AGENT_CACHE_DIR: cacheRoot(box) }, box.home);
  assert.ok(place, "the cache has a place");
  return place.folder;
}
const cacheFile = (box: Sandbox, id: string) => join(cacheFolder(box), `${id}.json`);

/** Bytes the child's read calls returned so far (the kernel's count). */
function bytesRead(child: TestChild): number {
  const io = readFileSync(`/proc/${child.pid}/io`, "utf8");
  return Number(/^rchar: (\d+)$/m.exec(io)?.[1]);
}

/** A listing by both methods, with the bytes each read and the titles it returned. */
async function listBoth(child: TestChild) {
  const before = bytesRead(child);
  const listed = await listAll(child);
  const middle = bytesRead(child);
  const found = await discoverAll(child);
  assert.equal(found.error, null);
  const titles = (rows: { id: string; title: string | null }[]) =>
    Object.fromEntries(rows.map((s) => [s.id, s.title]));
  return {
    listRead: middle - before,
    discoverRead: bytesRead(child) - middle,
    list: titles(listed.pages.flatMap((p) => p.sessions)),
    discover: titles(found.pages.flatMap((p) => p.sessions)),
    notices: found.pages.at(-1)?.notices,
  };
}

async function child(
  box: Sandbox,
  children: TestChild[],
  env: Record<string, string> = SYNC,
  extra: Partial<ChildOptions> = {},
) {
  const withCache = { MC_AGENT_CACHE_DIR: cacheRoot(box), ...env };
  const started = await startSessions(box, { testMethods: true, ...extra, env: withCache });
  children.push(started);
  // Answered by the whole child: the starter answers the initialize before the rest has loaded
  // (docs/local-agent-protocol.md, "Fast start"), and the bundle's bytes are no listing's.
  await started.call("status", {});
  return started;
}

describe("verdict cache", () => {
  it("a cached verdict is used without reading the history: same rows, a few hundred bytes read instead of 4 MiB; without the cache every listing reads it", () =>
    inSandbox(async (box, children) => {
      writeHistory(box, "big", "Cached title");
      await sleep(MARGIN_WAIT_MS);
      const first = await child(box, children);
      const cold = await listBoth(first);
      assert.ok(cold.listRead >= HISTORY_BYTES, `cold list read ${cold.listRead}`);
      assert.ok(existsSync(cacheFile(box, "big")), "the full read left a verdict");
      // session.list wrote the verdict: discover in the same child already takes it.
      assert.ok(cold.discoverRead < 64 * 1024, `discover read ${cold.discoverRead}`);
      const second = await child(box, children);
      const warm = await listBoth(second);
      assert.ok(warm.listRead < 64 * 1024, `warm list read ${warm.listRead}`);
      assert.ok(warm.discoverRead < 64 * 1024, `warm discover read ${warm.discoverRead}`);
      assert.deepEqual(warm.list, { big: "Cached title" });
      assert.deepEqual(warm.discover, cold.discover);
      // The control: the same measure on a child without the cache sees every byte read.
      const off = await child(box, children, { ...SYNC, MC_AGENT_VERDICTS: "off" });
      const uncached = await listBoth(off);
      assert.ok(uncached.listRead >= HISTORY_BYTES && uncached.discoverRead >= HISTORY_BYTES);
      assert.deepEqual(uncached.list, warm.list);
    }));

  it("each signature field changing forces a full read: touch, same-size rewrite with mtime restored, rename, chmod, inode swap", () =>
    inSandbox(async (box, children) => {
      const ids = ["touched", "rewritten", "renamed", "chmodded", "swapped"];
      for (const id of ids) writeHistory(box, id, `Title ${id}`);
      await sleep(MARGIN_WAIT_MS);
      const warmUp = await child(box, children);
      await listBoth(warmUp);
      for (const id of ids) assert.ok(existsSync(cacheFile(box, id)), id);
      const folder = sessionsOf(box);
      const path = (id: string) => join(folder, `${id}.jsonl`);
      const now = new Date();
      utimesSync(path("touched"), now, now);
      // Same length, new title, mtime put back: only ctime (and the bytes) changed.
      const old = statSync(path("rewritten"));
      writeFileSync(path("rewritten"), historyText(box.workspace, "Title REWRITE"));
      assert.equal(statSync(path("rewritten")).size, old.size);
      utimesSync(path("rewritten"), old.atime, old.mtime);
      renameSync(path("renamed"), path("renamed2"));
      chmodSync(path("chmodded"), 0o640);
      // A new inode with the same bytes, then the old name: a different file.
      writeFileSync(`${path("swapped")}.tmp`, historyText(box.workspace, "Title SWAP"));
      renameSync(`${path("swapped")}.tmp`, path("swapped"));
      const fresh = await child(box, children);
      const after = await listBoth(fresh);
      // Five histories of 4 MiB, each read in full again by the first listing after the change.
      // (Discovery then may take the verdicts that full read left, when the changes are already
      // older than the margin on a slow machine: verdicts of the new bytes, hence the titles.)
      assert.ok(after.listRead >= 5 * HISTORY_BYTES, `list read ${after.listRead}`);
      const expected = {
        touched: "Title touched",
        rewritten: "Title REWRITE",
        renamed2: "Title renamed",
        chmodded: "Title chmodded",
        swapped: "Title SWAP",
      };
      assert.deepEqual(after.list, expected);
      assert.deepEqual(after.discover, expected);
    }));

  it("corrupt, truncated, symlinked and oversized cache entries are ignored (a well-formed forged entry is used: the forgery would work)", () =>
    inSandbox(async (box, children) => {
      const ids = ["corrupt", "truncated", "linked", "oversized", "forged"];
      for (const id of ids) writeHistory(box, id, `Real ${id}`);
      await sleep(MARGIN_WAIT_MS);
      const folder = cacheFolder(box);
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      const forged = (id: string, title: string): Buffer => {
        const stats = lstatSync(join(sessionsOf(box), `${id}.jsonl`), { bigint: true });
        const record: VerdictRecord = {
          format: "mc-session-verdict",
          version: 1,
          name: `${id}.jsonl`,
          ...signatureFields(stats),
          end: "eligible",
          cwds: [box.workspace],
          summary: {
            title,
            title_oversize: false,
            user_line: null,
            created_at: "2026-11-29T10:00:00.000Z",
            updated_at: "2026-11-29T10:00:02.000Z",
            saw_cwd: true,
            records: 3,
          },
        };
        return encodeVerdict(record) ?? Buffer.from(JSON.stringify(record));
      };
      const corrupt = forged("corrupt", "FAKE");
      corrupt.writeUInt8(corrupt.readUInt8(corrupt.length - 5) ^ 1, corrupt.length - 5);
      writeFileSync(join(folder, "corrupt.json"), corrupt);
      const truncated = forged("truncated", "FAKE");
      writeFileSync(join(folder, "truncated.json"), truncated.subarray(0, truncated.length - 8));
      writeFileSync(join(box.home, "elsewhere.json"), forged("linked", "FAKE"));
      symlinkSync(join(box.home, "elsewhere.json"), join(folder, "linked.json"));
      // A valid file with a correct digest, only too long (a 200 KiB title).
      const big = forged("oversized", "F".repeat(200 * 1024));
      assert.ok(big.length > 192 * 1024);
      writeFileSync(join(folder, "oversized.json"), big);
      writeFileSync(join(folder, "forged.json"), forged("forged", "FORGED"));
      const reader = await child(box, children, { MC_AGENT_VERDICTS: "on" });
      const seen = await listBoth(reader);
      const expected = {
        corrupt: "Real corrupt",
        truncated: "Real truncated",
        linked: "Real linked",
        oversized: "Real oversized",
        forged: "FORGED",
      };
      assert.deepEqual(seen.list, expected);
      assert.deepEqual(seen.discover, expected);
      const planted = readFileSync(join(box.home, "elsewhere.json"));
      assert.deepEqual(planted, forged("linked", "FAKE"), "never written through the symlink");
    }));

  it("a read-only cache folder, or a symlinked one, costs only speed: same rows, no error, nothing written there", (t) =>
    inSandbox(async (box, children) => {
      writeHistory(box, "one", "Only one");
      const folder = cacheFolder(box);
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      // Mode bits bind only a child that is not root (test/helpers/unprivileged.ts); the cache
      // must belong to the child's user, or it is refused before its mode matters.
      const run = unprivilegedChild(box);
      if ("skip" in run) return t.skip(run.skip);
      if (isRoot) for (const path of [cacheRoot(box), folder]) lchownSync(path, 65534, 65534);
      await sleep(MARGIN_WAIT_MS);
      chmodSync(folder, 0o500);
      const first = await child(box, children, SYNC, run.options);
      const a = await listBoth(first);
      const b = await listBoth(first);
      chmodSync(folder, 0o700);
      assert.deepEqual(a.list, { one: "Only one" });
      assert.deepEqual(b.discover, { one: "Only one" });
      assert.ok(b.listRead >= HISTORY_BYTES, "no verdict could be kept: read again");
      assert.ok(b.discoverRead >= HISTORY_BYTES, "no verdict could be kept: read again");
      assert.deepEqual(readdirSync(folder), []);
      // A symlinked cache folder is not followed, for reading or writing.
      rmSync(folder, { recursive: true });
      const target = join(box.root, "target");
      mkdirSync(target);
      if (isRoot) lchownSync(target, 65534, 65534);
      symlinkSync(target, folder);
      const second = await child(box, children, SYNC, run.options);
      const c = await listBoth(second);
      assert.deepEqual(c.list, { one: "Only one" });
      assert.deepEqual(readdirSync(target), [], "nothing written through the symlink");
    }));

  it("a verdict read in one workspace is applied to another by its recorded cwds; verdicts of deleted histories are pruned", () =>
    inSandbox(async (box, children) => {
      const other = join(box.root, "other-ws");
      mkdirSync(other);
      writeHistory(box, "mine", "Mine");
      writeHistory(box, "theirs", "Theirs", other);
      await sleep(MARGIN_WAIT_MS);
      const here = await child(box, children);
      const a = await listBoth(here);
      assert.deepEqual(a.list, { mine: "Mine" });
      const there = await child(box, children, SYNC, { cwd: other });
      const b = await listBoth(there);
      assert.deepEqual(b.list, { theirs: "Theirs" });
      assert.deepEqual(b.discover, { theirs: "Theirs" });
      // "theirs" was read to its end only in the other workspace; "mine" came from the cache.
      assert.ok(b.listRead < 2 * HISTORY_BYTES, `read ${b.listRead}`);
      unlinkSync(join(sessionsOf(box), "mine.jsonl"));
      const pruner = await child(box, children);
      await listBoth(pruner);
      for (let i = 0; existsSync(cacheFile(box, "mine")); i += 1) {
        assert.ok(i < 500, "the verdict of a deleted history is pruned");
        await sleep(20);
      }
      assert.ok(existsSync(cacheFile(box, "theirs")), "a live history's verdict stays");
    }));
});

import { createHash } from "node:crypto";
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import module, { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { Script } from "node:vm";
import { REFRESH_HOOK, type RefreshHook, StartReach } from "./code-cache-hook.js";
import { privateCacheRoot } from "./compile-cache.js";
import type { Handover } from "./starter.js";

/**
 * The child's start on a Node without a compile cache for ES modules (20; `enableCompileCache`
 * exists from 22.1): dist/child/stdio.cjs, the whole child as one CommonJS script
 * (scripts/bundle.js), compiled with `vm.Script` and V8's code cache. The ES module bundle's
 * compile was a third of a start (docs/benchmarks.md, "Start-up profile"); with the cache V8
 * deserialises the code of what the start ran instead of parsing and compiling it. What a start
 * does not run (the turn engine, the MCP SDK, the revert) is in the same file, in esbuild's
 * init functions that run on first use, so it is never run at start and, read from the cache,
 * never parsed either; each module is in the file once, so no state is ever held twice. undici
 * and the provider SDKs, 2.6 MB that only a model call loads, are files of their own beside it
 * (dist/child/vendor/), required by those init functions: a start no longer reads them.
 *
 * Where: `<tmpdir>/mc-agent-<uid>/code-cache/<node version>-<arch>/`, under the same private
 * root as Node's compile cache (compile-cache.ts: this user's, writable by nobody else, or no
 * cache at all). One entry per bundle, per V8 flags: its name holds the bundle's SHA-256 (the
 * build writes it on the bundle's first line), the file's size and modification time, and a
 * hash of the options given to node; V8 itself rejects data made by another V8 version, with
 * other flags or for a source of another length, and each entry carries the SHA-256 of its data
 * (V8 checks none in release builds). A rejected, damaged or unreadable entry is
 * compiled afresh and rewritten, a temp file renamed over it, so concurrent first starts each
 * write a whole entry and the last rename wins. The entry written after the top level holds
 * only what the top level ran; the child makes it again with what its start ran too (the
 * handlers, the settings' schemas, the first requests), as `-started` (code-cache-refresh.ts),
 * which the next starts use. Each entry records how far the start that made it had gone
 * (code-cache-hook.ts `StartReach`: served, a session attached): a later child that goes
 * further makes the started entry again, so a first start that only answered an initialize
 * does not hold every later start to its code.
 * `MC_AGENT_COMPILE_CACHE=0` turns it off.
 */

/** The bundle's first line, written by scripts/bundle.js: the SHA-256 of the rest. */
const HEADER = /^\/\/ mc-agent child bundle ([0-9a-f]{64})\n/;

/** Entries kept per folder: a rebuilt or reinstalled bundle writes a new one each time. */
const KEPT_ENTRIES = 4;

/** What the child's bundle exports: src/server/stdio.ts `runStdio`. */
interface ChildBundle {
  runStdio: (handedOver: string | null, handover?: Handover) => void;
}

/** What the ACP agent's bundle, dist/child/acp.cjs, exports: src/acp/start.ts. */
export interface AcpBundle {
  startAcp: (handedOver: string | null) => void;
}

/**
 * The child's bundle loaded through the code cache (its top level run, the cache written when
 * it was missing or rejected), or null when this Node has its own compile cache, the cache is
 * off or has no private folder, or the bundle cannot be read: src/main.ts then imports the
 * ES module bundle, which compiles faster than this one without a cache.
 */
export function loadCachedChild<Exports = ChildBundle>(
  bundle: string,
  env = process.env,
  options: LoadOptions = {},
): Exports | null {
  if (!useCodeCache(env)) return null;
  const root = privateCacheRoot();
  if (root === null) return null;
  let source: string;
  let size: number;
  let mtime: number;
  try {
    const fd = openSync(bundle, "r");
    try {
      const stat = fstatSync(fd);
      size = stat.size;
      mtime = Math.trunc(stat.mtimeMs);
      // One byte a character: the bundle is ASCII (scripts/bundle.js), and a one-byte string
      // is half the memory of the two-byte one a stray UTF-8 character would make.
      source = readFileSync(fd, "latin1");
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
  const hash = HEADER.exec(source)?.[1];
  if (hash === undefined) return null;
  const folder = join(root, "code-cache", `${process.version}-${process.arch}`);
  // Each bundle's entries are named after it (stdio.cjs, acp.cjs), and pruned among themselves.
  const name = basename(bundle, ".cjs");
  const key = `${name}-${hash.slice(0, 32)}-${size}-${mtime}-${flagsKey(env)}`;
  const started = join(folder, `${key}${STARTED}.bin`);
  const early = join(folder, `${key}.bin`);
  const startedEntry = readEntry(started);
  const cached = startedEntry?.data ?? readEntry(early)?.data;
  // The file is one function expression, CommonJS's module wrapper (scripts/bundle.js).
  const script = new Script(source, {
    filename: bundle,
    cachedData: cached,
  });
  const exports = runBundle<Exports>(script, bundle);
  // Made now, after the top level ran (its functions are then compiled and in the data) and
  // before runStdio sets the heap's flags: V8 keys the data by its flags, and the next start
  // loads the bundle before they are set. A started entry V8 rejected is replaced under its own
  // name as the furthest, so that no start refreshes it again (what made it did not hold).
  let reach = startedEntry?.reach ?? StartReach.loaded;
  if (cached === undefined || script.cachedDataRejected === true) {
    reach = startedEntry === undefined ? StartReach.loaded : StartReach.final;
    writeEntry(
      startedEntry === undefined ? early : started,
      script.createCachedData(),
      name,
      reach,
    );
  }
  if (reach < StartReach.session && options.refresh !== false)
    offerStartedRefresh(script, { started, early, name }, reach);
  return exports;
}

/** Runs a bundle's top level: the file is one function expression, CommonJS's module wrapper. */
function runBundle<Exports>(script: Script, bundle: string): Exports {
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  const exported = { exports: {} as Exports };
  wrapper.call(
    exported.exports,
    exported.exports,
    createRequire(bundle),
    exported,
    bundle,
    dirname(bundle),
  );
  return exported.exports;
}

/**
 * A bundle compiled without the code cache, for a script the agent must load whatever the
 * cache's state (src/boot/later-script.ts: its private folder gone since the start, say).
 */
export function loadUncached<Exports>(bundle: string): Exports {
  return runBundle<Exports>(
    new Script(readFileSync(bundle, "latin1"), { filename: bundle }),
    bundle,
  );
}

/** How a bundle is loaded. */
interface LoadOptions {
  /**
   * false: its entry is never made again with the start's code (offerStartedRefresh). For a
   * script loaded after the heap's flags are set (src/boot/later-script.ts): its entry is made
   * under them, as every start loads it, while the refresh makes entries under the load's flags.
   */
  refresh?: boolean;
}

/** The name's end of an entry that holds the start's code too (code-cache-refresh.ts). */
const STARTED = "-started";

/** The entries of one bundle under these flags: the early one and the started one. */
interface EntryNames {
  started: string;
  early: string;
  name: string;
}

/**
 * The entry written after the top level holds only the code the top level ran: what the start
 * runs next (the handlers, the settings' schemas, the first requests) is compiled afresh by
 * every start. The child calls the hook once it has served its start, and again as it goes
 * further (code-cache-refresh.ts), with the V8 flags as they were when the bundle loaded: the
 * data made then holds that code too, written as the started entry with how far the start had
 * gone, replacing the early one. Only a start further than the entry's (`reach`) makes it again.
 */
function offerStartedRefresh(script: Script, names: EntryNames, reach: StartReach): void {
  let made: StartReach = reach;
  const refresh: RefreshHook = (now) => {
    if (now <= made) return;
    made = now;
    writeEntry(names.started, script.createCachedData(), names.name, now, names.early);
  };
  (globalThis as { [REFRESH_HOOK]?: RefreshHook })[REFRESH_HOOK] = refresh;
}

/**
 * An entry's data and how far the start that made it had gone, or undefined when it is
 * missing, unreadable or not whole: an entry is the SHA-256 of the rest, then the reach (one
 * byte), then the data. V8 checks its version, its flags and the source's length, but (release
 * builds) no checksum of the code it deserialises: a damaged entry would run.
 */
function readEntry(entry: string): { data: Buffer; reach: StartReach } | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(entry);
  } catch {
    return undefined;
  }
  if (bytes.length <= DIGEST_BYTES + 1) return undefined;
  const rest = bytes.subarray(DIGEST_BYTES);
  if (!digest(rest).equals(bytes.subarray(0, DIGEST_BYTES))) return undefined;
  const reach = rest[0] as number;
  if (reach > StartReach.final) return undefined;
  return { data: rest.subarray(1), reach: reach as StartReach };
}

const DIGEST_BYTES = 32;

function digest(data: Buffer): Buffer {
  return createHash("sha256").update(data).digest();
}

/** Whether this Node takes the code cache path: only where Node has no compile cache of its own. */
function useCodeCache(env: NodeJS.ProcessEnv = process.env): boolean {
  const enable = (module as { enableCompileCache?: unknown }).enableCompileCache;
  return typeof enable !== "function" && env.MC_AGENT_COMPILE_CACHE !== "0";
}

/**
 * The options node was started with (its command line and NODE_OPTIONS), as 8 hex digits of
 * FNV-1a: V8 rejects data made under other flags, so each set of them gets an entry of its own
 * instead of rewriting a shared one at every start.
 */
function flagsKey(env: NodeJS.ProcessEnv = process.env): string {
  const text = `${process.execArgv.join("\0")}\n${env.NODE_OPTIONS ?? ""}`;
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/**
 * Writes one entry whole, with the reach of the start that made it (a temp file of this
 * process, then a rename: a reader sees the old entry, the new one or none), removes the one it
 * `replaces`, and drops the oldest beyond KEPT_ENTRIES. Failing to write only costs the next
 * start its compile.
 */
function writeEntry(
  entry: string,
  data: Buffer,
  name: string,
  reach: StartReach,
  replaces?: string,
): void {
  const temp = `${entry}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(entry), { recursive: true, mode: 0o700 });
    const rest = Buffer.concat([Buffer.of(reach), data]);
    writeFileSync(temp, Buffer.concat([digest(rest), rest]), { mode: 0o600 });
    renameSync(temp, entry);
    if (replaces !== undefined) rmSync(replaces, { force: true });
  } catch {
    rmSync(temp, { force: true });
    return;
  }
  pruneEntries(dirname(entry), entry, name);
}

/** An entry's file name for the bundle `name`: its hash follows (acp-later's are not acp's). */
const entryOf = (name: string) => new RegExp(`^${name}-[0-9a-f]{32}-.*\\.bin$`);

/** The bundle's entries in the folder but the KEPT_ENTRIES newest (the one just written among them). */
function pruneEntries(folder: string, written: string, name: string): void {
  try {
    const entries = readdirSync(folder)
      .filter((file) => entryOf(name).test(file))
      .map((file) => join(folder, file))
      .filter((path) => path !== written)
      .map((path) => ({ path, mtime: statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
      .sort((a, b) => b.mtime - a.mtime);
    for (const { path } of entries.slice(KEPT_ENTRIES - 1)) rmSync(path, { force: true });
  } catch {
    // Another start pruning the same folder: whatever is left is pruned by the next write.
  }
}

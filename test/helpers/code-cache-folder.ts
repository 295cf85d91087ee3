import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import module from "node:module";
import { join } from "node:path";
import { sandbox, TestChild } from "../../src/conformance/harness.js";

/**
 * The child's code cache folder on Node 20 (src/boot/code-cache.ts) as tests see it from
 * outside: each test gives the child a temp folder of its own (TMPDIR).
 */
export const UID = process.getuid?.() ?? -1;
/** Node 22.1 and later have a compile cache of their own: the child takes that path instead. */
const HAS_COMPILE_CACHE =
  typeof (module as { enableCompileCache?: unknown }).enableCompileCache === "function";
export const SKIP =
  UID < 0 ? "no user IDs here" : HAS_COMPILE_CACHE ? "this Node has a compile cache" : false;
/** Entries a folder keeps (docs/benchmarks.md: "a write keeps the folder's 4 newest entries"). */
export const KEPT_ENTRIES = 4;

/** The cache folder of this Node under `tmp`. */
export const folderIn = (tmp: string) =>
  join(tmp, `mc-agent-${UID}`, "code-cache", `${process.version}-${process.arch}`);

export async function start(
  tmp: string,
  options: { bin?: string; env?: Record<string, string> } = {},
): Promise<Record<string, unknown>> {
  const box = sandbox();
  const child = new TestChild({
    cwd: box.workspace,
    home: box.home,
    // The bundle answers the initialize, not the starter (src/boot/starter.ts): the result
    // shows which bundle ran.
    env: { TMPDIR: tmp, MC_AGENT_FAST_START: "0", ...options.env },
    ...(options.bin ? { command: [process.execPath, options.bin, "stdio"] } : {}),
  });
  try {
    const init = await child.initialize(["operation.cancel"]);
    assert.ok(init.result, JSON.stringify(init.error));
    return init.result;
  } finally {
    await child.close();
    box.cleanup();
  }
}

/** The folder's file names, sorted. */
export const names = (folder: string) => (existsSync(folder) ? readdirSync(folder).sort() : []);

/** An entry's identity: rewritten means a new file renamed over it. */
export const identity = (path: string) => {
  const stat = statSync(path);
  return `${stat.ino}:${stat.mtimeMs}:${stat.size}`;
};

/** Whether an entry is whole: its SHA-256 header matches its data. */
export function whole(path: string): boolean {
  const bytes = readFileSync(path);
  const data = bytes.subarray(32);
  return (
    data.length > 0 && createHash("sha256").update(data).digest().equals(bytes.subarray(0, 32))
  );
}

/** How far the start that made an entry had gone (code-cache-hook.ts `StartReach`). */
export const reachOf = (path: string) => readFileSync(path)[32];

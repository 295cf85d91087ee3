/**
 * Whether `pid` is a live process on this host: what the store's orphan sweeps ask of a temp
 * file's writer (docs/store.md, "Orphaned temp files"). `kill(pid, 0)` failing with anything but
 * ESRCH (EPERM: someone else's live process) counts as alive. A file of its own so that a
 * synchronous writer (the sandbox probe memo) uses it without loading node:fs/promises.
 */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    const code =
      typeof error === "object" && error !== null ? (error as { code?: unknown }).code : "";
    return code !== "ESRCH";
  }
}

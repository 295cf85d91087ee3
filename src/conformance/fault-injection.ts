import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, rmSync, statfsSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Sandbox } from "./harness.js";
import { CaseSkipped } from "./skip.js";

/**
 * Filesystem faults the kit injects from outside the child: a folder nobody may write into, and
 * a disk that is full. Where the machine cannot inject one (no privileges, no tmpfs), the case is
 * skipped with the reason, never passed.
 */

/** Whether a new file can be created in the folder (by this process). */
function writable(folder: string): boolean {
  const probe = join(folder, ".conformance-probe");
  try {
    writeFileSync(probe, "x");
    unlinkSync(probe);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `body` while `relative` (under MC_HOME) cannot be written: mode 0500, and for root, for
 * whom modes do not apply, the immutable attribute (`chattr +i`).
 */
export async function lockFolder(
  box: Sandbox,
  relative: string,
  body: () => Promise<void>,
): Promise<void> {
  const folder = join(box.home, relative);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  chmodSync(folder, 0o500);
  let immutable = false;
  try {
    if (writable(folder)) {
      try {
        execFileSync("chattr", ["+i", folder], { stdio: "ignore" });
        immutable = true;
      } catch {}
    }
    if (writable(folder)) throw new CaseSkipped("this machine cannot make a folder read-only");
    await body();
  } finally {
    if (immutable) execFileSync("chattr", ["-i", folder], { stdio: "ignore" });
    chmodSync(folder, 0o700);
  }
}

/**
 * Runs `body` with a 256 KiB tmpfs mounted at `relative` (under MC_HOME); `fill()` then takes
 * every free byte of it, so the next write fails with ENOSPC.
 */
export async function tinyDisk(
  box: Sandbox,
  relative: string,
  body: (fill: () => void) => Promise<void>,
): Promise<void> {
  const mountPoint = join(box.home, relative);
  mkdirSync(mountPoint, { recursive: true, mode: 0o700 });
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", mountPoint], {
      stdio: "ignore",
    });
  } catch {
    throw new CaseSkipped("this machine cannot mount a tmpfs (needs privileges)");
  }
  try {
    await body(() => fillDisk(mountPoint));
  } finally {
    rmSync(join(mountPoint, ".filler"), { force: true });
    try {
      execFileSync("umount", ["-l", mountPoint], { stdio: "ignore" });
    } catch {}
  }
}

function fillDisk(mountPoint: string): void {
  const { bavail, bsize } = statfsSync(mountPoint);
  try {
    writeFileSync(join(mountPoint, ".filler"), Buffer.alloc(bavail * bsize));
  } catch {
    // Filled up to the last block, which is the point.
  }
}

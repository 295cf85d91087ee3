import { execFileSync } from "node:child_process";

/**
 * A small tmpfs, for a real full disk. Mounting needs root (or a mount namespace); where it is
 * refused, `mountTmpfs` returns the reason and the caller skips its full-disk variant.
 */
export function mountTmpfs(dir: string, kib: number): string | null {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${kib}k,mode=0700`, "tmpfs", dir], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    return null;
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return `cannot mount a tmpfs here (${stderr || (error as Error).message})`;
  }
}

export function unmountTmpfs(dir: string): void {
  try {
    execFileSync("umount", [dir], { stdio: "ignore" });
  } catch {}
}

import { execFile } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

/**
 * The benchmarks' peer, Codex app-server, installed on demand: `@openai/codex` at one pinned
 * version, into a cache folder outside the repository (never a dependency of this package), and
 * only when that folder does not hold it yet. What it resolves with is the native binary the
 * package's own `bin/codex.js` would run; or, when the install or the binary fails (no network,
 * a platform the package has no build for), the reason the peer's rows are skipped.
 */
export const CODEX_VERSION = "0.171.0";

const run = promisify(execFile);
const INSTALL_TIMEOUT_MS = 5 * 60_000;

export type PeerInstall = { binary: string; version: string } | { skipped: string };

/** `$MC_BENCH_PEERS`, or a folder under the system's temp dir, shared by every worktree. */
export function peersFolder(): string {
  return process.env.MC_BENCH_PEERS || join(tmpdir(), "mc-agent-bench-peers");
}

/**
 * The platform package npm installs beside `@openai/codex` (an optional dependency chosen by
 * os/cpu) and the target folder its binary sits in, for this machine; none when Codex ships no
 * build for it.
 */
function platformBuild(): { pkg: string; target: string; exe: string } | undefined {
  const targets: Record<string, string> = {
    "linux-x64": "x86_64-unknown-linux-musl",
    "linux-arm64": "aarch64-unknown-linux-musl",
    "darwin-x64": "x86_64-apple-darwin",
    "darwin-arm64": "aarch64-apple-darwin",
    "win32-x64": "x86_64-pc-windows-msvc",
    "win32-arm64": "aarch64-pc-windows-msvc",
  };
  const key = `${process.platform}-${process.arch}`;
  const target = targets[key];
  if (!target) return undefined;
  const exe = process.platform === "win32" ? "codex.exe" : "codex";
  return { pkg: `codex-${key}`, target, exe };
}

/** The installed Codex binary, installing it first if the cache folder lacks it. */
export async function installCodex(version = CODEX_VERSION): Promise<PeerInstall> {
  const build = platformBuild();
  if (!build) return { skipped: `Codex ships no build for ${process.platform}-${process.arch}` };
  const prefix = join(peersFolder(), `codex-${version}`);
  const binary = join(
    prefix,
    "node_modules",
    "@openai",
    build.pkg,
    "vendor",
    build.target,
    "bin",
    build.exe,
  );
  if (!existsSync(binary)) {
    process.stderr.write(`bench: installing @openai/codex@${version} into ${prefix} ...\n`);
    mkdirSync(prefix, { recursive: true });
    try {
      await run(
        "npm",
        [
          "install",
          "--prefix",
          prefix,
          "--no-save",
          "--no-audit",
          "--no-fund",
          "--no-package-lock",
          `@openai/codex@${version}`,
        ],
        { timeout: INSTALL_TIMEOUT_MS, shell: process.platform === "win32" },
      );
    } catch (error) {
      return { skipped: `npm install @openai/codex@${version} failed: ${firstLine(error)}` };
    }
    if (!existsSync(binary))
      return { skipped: `@openai/codex@${version} installed no binary for ${build.target}` };
  }
  try {
    const { stdout } = await run(binary, ["--version"], { timeout: 30_000 });
    if (!stdout.includes(version))
      return { skipped: `the cached Codex binary says ${stdout.trim()}, not ${version}` };
  } catch (error) {
    return { skipped: `the Codex binary does not run here: ${firstLine(error)}` };
  }
  return { binary, version };
}

function firstLine(error: unknown): string {
  const e = error as { stderr?: string; message?: string };
  const text = (e.stderr?.trim() || e.message || String(error)).split("\n");
  return text.find((line) => /err/i.test(line)) ?? text[0] ?? "unknown error";
}

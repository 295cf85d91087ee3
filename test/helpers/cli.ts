import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CHILD_BIN, PACKAGE_ROOT } from "./child.js";
import { SCRIPTED_CHILD } from "./fakes.js";

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `mc-agent <args>` as a process (pipes, so non-TTY), bounded in time; `input` is its stdin. */
export function runCli(
  args: string[],
  options: {
    cwd: string;
    env: Record<string, string | undefined>;
    timeoutMs?: number;
    input?: string;
  },
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [CHILD_BIN, ...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    if (options.input !== undefined) proc.stdin?.end(options.input);
    let stdout = "";
    let stderr = "";
    proc.stdout?.setEncoding("utf8").on("data", (t: string) => {
      stdout += t;
    });
    proc.stderr?.setEncoding("utf8").on("data", (t: string) => {
      stderr += t;
    });
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`mc-agent ${args.join(" ")} did not finish; stderr: ${stderr.slice(-400)}`));
    }, options.timeoutMs ?? 20_000);
    proc.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The environment that points the CLI at the scripted fake child serving `dir`. */
export function scriptedEnv(
  dir: string,
  extra: Record<string, string> = {},
): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    FAKE_DIR: dir,
    MC_AGENT_CHILD: JSON.stringify(SCRIPTED_CHILD),
    // The goldens' times are UTC; the CLI shows local time.
    TZ: "UTC",
    ...extra,
  };
}

/**
 * The expected output in test/golden/<name>; with UPDATE_GOLDEN=1 the file is (re)written from
 * `actual` instead (review the diff before committing).
 */
export function golden(name: string, actual: string): string {
  const path = join(PACKAGE_ROOT, "test", "golden", name);
  if (process.env.UPDATE_GOLDEN === "1") writeFileSync(path, actual);
  return readFileSync(path, "utf8");
}

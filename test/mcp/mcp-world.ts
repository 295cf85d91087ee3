import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../helpers/child.js";

/** The official servers (dev dependencies), run with this Node. */
export const EVERYTHING = join(
  PACKAGE_ROOT,
  "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);
export const MEMORY = join(
  PACKAGE_ROOT,
  "node_modules/@modelcontextprotocol/server-memory/dist/index.js",
);

/** Our SDK McpServer whose tool list changes on request (test/fixtures/mcp-changing-server.ts). */
export const CHANGING = join(import.meta.dirname, "../fixtures/mcp-changing-server.js");

/** Real servers get a long startup timeout: a loaded machine may need more than the default. */
const SLOW_START = { startup_timeout_ms: 100_000 };

export const everythingStdio = (extra: object = {}) => ({
  command: process.execPath,
  args: [EVERYTHING, "stdio"],
  ...SLOW_START,
  ...extra,
});
export const memoryStdio = (extra: object = {}) => ({
  command: process.execPath,
  args: [MEMORY],
  ...SLOW_START,
  ...extra,
});
export const changingStdio = (extra: object = {}) => ({
  command: process.execPath,
  args: [CHANGING],
  ...SLOW_START,
  ...extra,
});
/** A server that starts and never answers: it reads nothing, so EOF does not end it either. */
export const hanging = (extra: object = {}) => ({
  command: process.execPath,
  args: ["-e", "setInterval(() => {}, 1000)"],
  ...extra,
});

export function writeMcpHome(home: string, servers: Record<string, object>): void {
  writeFileSync(join(home, "config.json"), JSON.stringify({ mcp_servers: servers }, null, 2));
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** server-everything in streamable-HTTP mode on a free port (it takes PORT from its env). */
export async function startEverythingHttp(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const proc: ChildProcess = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
    env: { PATH: process.env.PATH, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let text = "";
    proc.stderr?.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes(`port ${port}`)) resolve();
    });
    proc.on("exit", () => reject(new Error(`server-everything http exited: ${text}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: async () => {
      if (proc.exitCode !== null) return;
      const exited = new Promise((resolve) => proc.on("exit", resolve));
      proc.kill("SIGKILL");
      await exited;
    },
  };
}

/** A live process: its parent and its command line (state Z, a zombie, is not alive). */
interface ProcessEntry {
  pid: number;
  ppid: number;
  cmdline: string;
}

function processTable(): ProcessEntry[] {
  const out: ProcessEntry[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] === "Z") continue;
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ");
      out.push({ pid: Number(name), ppid: Number(fields[1]), cmdline });
    } catch {}
  }
  return out;
}

/** Every live descendant of `pid`, from the process table. */
export function descendants(pid: number): ProcessEntry[] {
  const table = processTable();
  const found: ProcessEntry[] = [];
  let frontier = [pid];
  while (frontier.length > 0) {
    const next = table.filter((p) => frontier.includes(p.ppid));
    found.push(...next);
    frontier = next.map((p) => p.pid);
  }
  return found;
}

/** The pids of live processes whose command line contains `text` (a marker argument). */
export function processesWith(text: string): number[] {
  return processTable()
    .filter((p) => p.cmdline.includes(text))
    .map((p) => p.pid);
}

export function alive(pid: number): boolean {
  return processTable().some((p) => p.pid === pid);
}

/** Polls the process table until none of `pids` is alive (the test's own timeout bounds it). */
export async function allGone(pids: number[]): Promise<void> {
  while (pids.some(alive)) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** The environment of a live process, as the kernel shows it. */
export function environOf(pid: number): Record<string, string> {
  const text = readFileSync(`/proc/${pid}/environ`, "utf8");
  const env: Record<string, string> = {};
  for (const entry of text.split("\0").filter(Boolean)) {
    const at = entry.indexOf("=");
    env[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return env;
}

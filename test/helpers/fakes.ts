import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SessionEntry } from "../../src/protocol/schemas/sessions.js";
import { PACKAGE_ROOT } from "./child.js";

/** Commands of the fake children under test/fixtures (compiled to dist/test/fixtures). */
const FIXTURES = join(PACKAGE_ROOT, "dist", "test", "fixtures");
export function badChild(mode: string): string[] {
  return [process.execPath, join(FIXTURES, "bad-child.js"), mode];
}
export const SCRIPTED_CHILD = [process.execPath, join(FIXTURES, "scripted-child.js")];

export function entry(id: string, title: string | null = `Session ${id}`): SessionEntry {
  return {
    id,
    title,
    created_at: "2026-11-29T10:00:00.000Z",
    updated_at: "2026-11-29T11:00:00.000Z",
    busy: false,
    cwd: "verified",
    open: "exact",
  };
}

/** A folder with the scripted child's canned data. */
export function scriptedDir(root: string, data: Record<string, unknown>): string {
  const dir = join(root, "fake");
  mkdirSync(dir, { recursive: true });
  for (const [name, value] of Object.entries(data))
    writeFileSync(join(dir, name), JSON.stringify(value));
  return dir;
}

export function writeJson(dir: string, name: string, value: unknown): void {
  writeFileSync(join(dir, name), JSON.stringify(value));
}

/** How many scripted children have started with this folder. */
export function spawnCount(dir: string): number {
  try {
    return readFileSync(join(dir, "spawns.log"), "utf8").split("\n").filter(Boolean).length;
  } catch {
    return 0;
  }
}

/** Collects unhandled rejections while a test runs; assert the list is empty at the end. */
export function watchRejections(): { list: unknown[]; stop(): void } {
  const list: unknown[] = [];
  const onRejection = (reason: unknown) => list.push(reason);
  process.on("unhandledRejection", onRejection);
  return { list, stop: () => process.off("unhandledRejection", onRejection) };
}

/** Resolves after `ms` (for giving stray frames time to arrive). */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Resolves once `check` holds, polled (for a state the child shows, such as a request it
 * admitted, instead of a pause that a busy machine may outlast).
 */
export async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const poll = async () => {
    while (!(await check())) await pause(20);
  };
  await within(poll(), 20_000, what);
}

/** Rejects when `promise` takes longer than `ms`: every await in the tests is bounded. */
export function within<T>(promise: Promise<T>, ms = 10_000, what = "operation"): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer));
}

/** The methods the scripted child received, in order. */
export function requestLog(dir: string): string[] {
  try {
    return readFileSync(join(dir, "requests.log"), "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { Frame } from "./frame.js";
import { nextId, type TestChild } from "./harness.js";

/** Small assertions the conformance cases share. */

/** Rejects with a readable message when the promise does not settle in time. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
  });
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer));
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Sends a test.sleep and returns its ID and its (future) terminal response. */
export function startSleep(
  child: TestChild,
  ms: number,
  options: { stubborn?: boolean; id?: string } = {},
): { id: string; done: Promise<Frame> } {
  const id = options.id ?? nextId("sleep");
  const params = options.stubborn ? { ms, stubborn: true } : { ms };
  const done = child.request("test.sleep", params, id, ms + 20_000);
  return { id, done };
}

/** Waits until `status` lists the request as active (admission is asynchronous to us). */
export async function untilActive(child: TestChild, id: string): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    const status = await child.request("status", {});
    const active = (status.result?.active_requests ?? []) as { id: string }[];
    if (active.some((a) => a.id === id)) return;
    await delay(10);
  }
  throw new Error(`request ${id} never showed up as active in status`);
}

export function assertError(frame: Frame, code: string, what: string): void {
  assert.ok(frame.error, `${what}: expected error ${code}, got ${JSON.stringify(frame.result)}`);
  assert.equal(frame.error.code, code, `${what}: expected ${code}`);
}

export function assertCancelled(frame: Frame, what: string): void {
  assertError(frame, "operation_cancelled", what);
}

/** How many frames the child sent with this ID. */
export function responsesTo(child: TestChild, id: string): number {
  return child.frames.filter((f) => f.id === id).length;
}

/** Position of the first frame with this ID (for ordering assertions). */
export function indexOfResponse(child: TestChild, id: string): number {
  return child.frames.findIndex((f) => f.id === id);
}

/** Resident set size of a Linux process in KiB, or null where /proc is not available. */
export function residentKiB(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** Waits for the child's exit and checks it was clean (code 0). */
export async function assertCleanExit(child: TestChild, ms: number): Promise<void> {
  const exit = await within(child.exited, ms, "child exit");
  assert.deepEqual(exit, { code: 0, signal: null }, "the child exits 0 after a clean shutdown");
}

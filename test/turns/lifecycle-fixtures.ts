/**
 * Shared by the lifecycle tests (issue 17: nothing outlives the client): the contract's cleanup
 * bound read generously, a child thread stuck in a FIFO's open, and a new child that must be able
 * to take the session over.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { LIMITS } from "../../src/protocol/constants.js";
import { text } from "../fixtures/chat-completions-server.js";
import { startReady, type TestChild } from "../helpers/child.js";
import { lockPath, waitUntil, within } from "./turn-control-fixtures.js";
import { runTurn, TURN_CAPS, type TurnWorld } from "./turn-harness.js";

/**
 * The contract bounds interrupt, shutdown and EOF by `cleanup_ms` (2 s). A test reads it with
 * slack for a loaded machine (both cores busy): the child's own timers run late there, and the
 * test's clock includes spawning and pipe latency. Far below anything that would pass by luck
 * on the old code, which never ended at all.
 */
export const CLEANUP_READING_MS = LIMITS.cleanup_ms + 4000;

export function mkfifo(path: string): void {
  execFileSync("mkfifo", [path]);
}

/**
 * Resolves once one of the child's threads is blocked opening a FIFO (the kernel's
 * `wait_for_partner`); at once where the kernel hides wait channels.
 */
export async function stuckInFifoOpen(pid: number): Promise<void> {
  const channels = () =>
    readdirSync(`/proc/${pid}/task`).map((tid) => {
      try {
        return readFileSync(`/proc/${pid}/task/${tid}/wchan`, "utf8");
      } catch {
        return "";
      }
    });
  if (channels().every((channel) => channel === "0" || channel === "")) return;
  await waitUntil(
    () => channels().includes("wait_for_partner"),
    "a thread blocked in the FIFO's open",
  );
}

/** `promise` within the generous cleanup reading; returns how long it took. */
export async function timed<T>(
  promise: Promise<T>,
  what: string,
): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await within(promise, what, 60_000);
  return { value, ms: Date.now() - started };
}

export function assertWithinCleanup(ms: number, what: string): void {
  assert.ok(
    ms <= CLEANUP_READING_MS,
    `${what} took ${ms} ms; the bound is cleanup_ms (${LIMITS.cleanup_ms} ms)`,
  );
}

/** Whether the process exists (a zombie not yet reaped counts as gone). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/**
 * The session's lock is gone, and a new child on the same store opens the session and runs a
 * turn in it (no `session_locked`). The new child becomes the world's child.
 */
export async function sessionTakenOver(world: TurnWorld, sessionId: string): Promise<void> {
  assert.ok(!existsSync(lockPath(world.box, sessionId)), "the turn's lock was removed");
  world.child = await startReady(world.box, TURN_CAPS, {
    testMethods: true,
    env: { DEMO_KEY: "sk-test-secret-key", MC_AGENT_TEST_BACKOFF_PERCENT: "1" },
  });
  await world.child.call("session.open", { id: sessionId });
  world.server.reply(text("Still here."));
  const { result } = await runTurn(world.child, "Are you there?");
  assert.equal(result.status, "completed");
}

/** The record types (with statuses) of a saved session after its `session_meta`. */
export function shapes(records: Record<string, unknown>[]): string[] {
  return records.slice(1).map((r) => {
    if (r.type === "turn_end") return `turn_end:${r.status}`;
    if (r.type === "tool_result") return `tool_result:${r.status}`;
    return String(r.type);
  });
}

export function workspaceFile(world: TurnWorld, name: string): string {
  return join(world.box.workspace, name);
}

export type { TestChild };

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { stall, text } from "../fixtures/chat-completions-server.js";
import type { Frame, Sandbox, TestChild } from "../helpers/child.js";
import { treeDigest } from "../models/fixtures.js";
import {
  finishTurn,
  runTurn,
  type StartedTurn,
  startTurn,
  type TurnEvent,
  type TurnResultShape,
  type TurnWorld,
} from "./turn-harness.js";

/**
 * Shared by the refusal and interrupt tests: proving nothing was written, a saved session to
 * refuse against, a turn held open mid-stream, and reading the saved records.
 */

/** Every file of MC_HOME and the workspace with its mtime and hash (`skip` drops names). */
export function storeDigest(box: Sandbox, skip: (path: string) => boolean = () => false) {
  return new Map([...treeDigest(box.home, skip), ...treeDigest(box.workspace, skip)]);
}

export const isLock = (path: string) => path.endsWith(".lock");

export function historyPath(box: Sandbox, id: string): string {
  return join(box.home, "sessions", `${id}.jsonl`);
}

export function lockPath(box: Sandbox, id: string): string {
  return join(box.home, "sessions", `${id}.lock`);
}

/** The session's saved records, parsed, as the file holds them. */
export function recordsOf(box: Sandbox, id: string): Record<string, unknown>[] {
  return readFileSync(historyPath(box, id), "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line));
}

/** A session saved by one completed turn (the child stays attached to it). */
export async function savedSession(world: TurnWorld): Promise<string> {
  const { session } = await world.child.call("session.create", {});
  world.server.reply(text("Saved."));
  const { result } = await runTurn(world.child, "Save this session");
  assert.equal(result.status, "completed");
  return session.id;
}

/** The text streamed so far in a turn's message deltas. */
export function deltaText(events: TurnEvent[]): string {
  return events
    .filter((e) => e.event.type === "message_delta")
    .map((e) => e.event.text)
    .join("");
}

/** What a stalled reply streams before it stops (its first three pieces of four characters). */
export const STALLED_TEXT = "Hello world,";

/**
 * Starts a turn whose reply streams `STALLED_TEXT` and then stalls with the connection open,
 * and resolves once the client has seen all of that text: the turn is running mid-stream.
 */
export async function stalledTurn(
  world: TurnWorld,
  input = "Tell me something long",
  permissions?: string,
): Promise<StartedTurn> {
  // The role chunk, then three content pieces of four characters.
  world.server.reply(stall(text(`${STALLED_TEXT} and then more that never comes`), 4));
  const turn = startTurn(world.child, input, permissions);
  await waitUntil(() => deltaText(turn.events()) === STALLED_TEXT, "the stalled deltas");
  return turn;
}

/** Polls `condition` until it holds; fails after a generous bound. */
export async function waitUntil(
  condition: () => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Interrupts a running turn and returns its (checked) result and events. */
export async function interruptTurn(
  child: TestChild,
  turn: StartedTurn,
): Promise<{ result: TurnResultShape; events: TurnEvent[] }> {
  const ack = await child.request("turn.interrupt", { request_id: turn.id });
  assert.deepEqual(ack.result, { state: "interrupting", request_id: turn.id });
  return settled(child, turn);
}

/** The turn's result (which must be a result, not an error) with its invariants checked. */
export async function settled(
  child: TestChild,
  turn: StartedTurn,
): Promise<{ result: TurnResultShape; events: TurnEvent[] }> {
  const finished = await finishTurn(child, turn);
  // The driver checks that every event comes before the result; here also that there is one.
  assert.equal(answersTo(child, turn.id).length, 1, "one response per admitted turn");
  return finished;
}

/** Asserts the result of an interrupted turn. */
export function assertInterrupted(result: TurnResultShape): void {
  assert.equal(result.status, "interrupted");
  assert.equal(result.stop_reason, "interrupted");
  assert.equal(result.error, null);
}

/** How many response frames (results or errors) the child sent for one request ID. */
export function answersTo(child: TestChild, id: string): Frame[] {
  return child.frames.filter((f) => f.id === id);
}

/** `promise`, or a failure naming `what` after a generous bound. */
export async function within<T>(promise: Promise<T>, what: string, ms = 30_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, bound]);
  } finally {
    clearTimeout(timer);
  }
}

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Frame, TestChild } from "../helpers/child.js";

/** Sends turn.steer for the turn.start `requestId`; its answer frame. */
export function steer(child: TestChild, requestId: string, input: string): Promise<Frame> {
  return child.request("turn.steer", { request_id: requestId, input });
}

/** The history's steer records (`user_message` with `steer: true`), in order. */
export function steerRecords(records: Record<string, unknown>[]): Record<string, unknown>[] {
  return records.filter((r) => r.type === "user_message" && r.steer === true);
}

/**
 * A shell command that runs until the test opens its gate (a file in the workspace), then
 * prints "gate open": a tool certainly running for as long as the test needs.
 */
export function gatedShell(workspace: string): { command: string; open(): void } {
  return {
    command: "while [ ! -f .gate ]; do sleep 0.02; done; echo gate open",
    open: () => writeFileSync(join(workspace, ".gate"), ""),
  };
}

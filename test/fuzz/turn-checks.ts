import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Sandbox, TestChild } from "../../src/conformance/harness.js";
import { auditWire } from "../../src/conformance/wire-audit.js";
import { LIMITS } from "../../src/protocol/constants.js";
import { TURN_EXTENSION } from "../../src/protocol/schemas/turns.js";

/**
 * The invariants the turn fuzzers check on every frame and every saved record, whatever the
 * stream or the client did: inside the schemas (the kit's wire audit), well-formed UTF-8 (no
 * lone surrogate in any string: strict decoders such as serde_json reject them), every line
 * within `frame_bytes`, every turn event within `event_bytes`. Each returns readable problems.
 */
const fatalUtf8 = new TextDecoder("utf-8", { fatal: true });

/** The path and a sample of the first string in `value` that is not well-formed UTF-16. */
export function loneSurrogate(value: unknown, path = "$"): string | null {
  if (typeof value === "string") {
    return Buffer.from(value, "utf8").toString("utf8") === value
      ? null
      : `${path}: ${JSON.stringify(value.slice(-40))}`;
  }
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = loneSurrogate(item, `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      const found = loneSurrogate(key, `${path}.<key>`) ?? loneSurrogate(item, `${path}.${key}`);
      if (found) return found;
    }
  }
  return null;
}

/** Problems in the child's stdout lines from `fromLine` on, and in its frames from `fromFrame`. */
export function frameProblems(child: TestChild, fromLine: number, fromFrame: number): string[] {
  const problems: string[] = [];
  if (child.garbage.length > 0) problems.push(`non-frame on stdout: ${child.garbage[0]}`);
  for (const line of child.rawLines.slice(fromLine)) {
    const bytes = Buffer.byteLength(line, "utf8");
    if (bytes > LIMITS.frame_bytes) problems.push(`a frame of ${bytes} bytes over frame_bytes`);
    if (line.includes("\ufffd") && !line.includes("\\ufffd")) {
      // The child only writes JSON.stringify output; a raw U+FFFD here would come from our own
      // decoder meeting invalid UTF-8 bytes on the pipe.
      problems.push(`a frame with a replacement character: ${line.slice(0, 300)}`);
    }
    let frame: { method?: string; params?: { event?: unknown } };
    try {
      frame = JSON.parse(line);
    } catch {
      continue;
    }
    const lone = loneSurrogate(frame);
    if (lone) problems.push(`a frame with a lone surrogate at ${lone}`);
    if (frame.method === "turn.event") {
      const size = Buffer.byteLength(JSON.stringify(frame.params?.event), "utf8");
      if (size > TURN_EXTENSION.event_bytes)
        problems.push(`a turn event of ${size} bytes over event_bytes: ${line.slice(0, 200)}`);
    }
  }
  problems.push(
    ...auditWire({
      sent: child.sent,
      received: child.frames.slice(fromFrame),
      forbidden: [child.options.home, child.options.cwd],
    }),
  );
  return problems;
}

/**
 * A history file read off the disk: valid UTF-8, every LF-terminated line a JSON object with a
 * type and no lone surrogate; a last line without LF is allowed only when `tornTail` (a writer
 * killed mid-append: turns.md section 8) and must then not parse.
 */
export function historyFileProblems(path: string, tornTail = false): string[] {
  const bytes = readFileSync(path);
  let text: string;
  try {
    text = fatalUtf8.decode(bytes);
  } catch {
    return ["the history is not valid UTF-8"];
  }
  const problems: string[] = [];
  const lines = text.split("\n");
  const tail = lines.pop() as string;
  if (tail !== "") {
    if (!tornTail) problems.push("the history ends without LF");
    else if (parses(tail)) problems.push("a whole record without its LF at the end");
  }
  for (const [n, line] of lines.entries()) {
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      problems.push(`history line ${n + 1} is not JSON`);
      continue;
    }
    const type = (record as { type?: unknown } | null)?.type;
    if (typeof type !== "string") problems.push(`history line ${n + 1} has no type`);
    const lone = loneSurrogate(record);
    if (lone) problems.push(`history line ${n + 1} has a lone surrogate at ${lone}`);
  }
  return problems;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Lock files left under MC_HOME/sessions. */
export function leftoverLocks(box: Sandbox): string[] {
  try {
    return readdirSync(join(box.home, "sessions")).filter((name) => name.endsWith(".lock"));
  } catch {
    return [];
  }
}

import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { utf8Length } from "../protocol/raw-json.js";
import type { SessionEvent } from "../protocol/schemas/sessions.js";
import { chunkChars } from "../protocol/text-cut.js";
import { planUpdate } from "./plan-update.js";
import { replayTitle, textContent, toolKind, toolLocations } from "./tool-calls.js";

/**
 * One saved history record (what `session.history` pages) as the updates `session/load` replays:
 * user and agent messages as chunks, a tool call with its result, a plan as ACP's `plan`. Other records (turn starts and
 * ends, compactions, titles, records of other tools) show nothing. Records are loose objects, so
 * each field is checked before it is used. A message longer than `REPLAY_CHUNK_CHARS` is sent
 * as several chunks (as a turn streams it), and a tool call's input larger than
 * `REPLAY_INPUT_BYTES` of JSON is shown as `{"omitted_bytes": n}`, as a turn's `tool_call`
 * event shows it: a record may hold up to 8 MiB, which no single update should carry.
 */
const REPLAY_CHUNK_CHARS = 8192;
const REPLAY_INPUT_BYTES = 10_837;

export function replayUpdates(cwd: string, record: SessionEvent): SessionUpdate[] {
  const r = record as Record<string, unknown>;
  switch (r.type) {
    case "user_message":
      return typeof r.text === "string" ? chunks("user_message_chunk", r.text) : [];
    case "assistant_message":
      return typeof r.text === "string" && r.text !== ""
        ? chunks("agent_message_chunk", r.text)
        : [];
    case "tool_call": {
      if (typeof r.item_id !== "string" || typeof r.tool !== "string") return [];
      return [
        {
          sessionUpdate: "tool_call",
          toolCallId: r.item_id,
          title: replayTitle(r.tool, r.input),
          kind: toolKind(r.tool),
          status: "pending",
          locations: toolLocations(cwd, r.input),
          rawInput: shownInput(r.input),
        },
      ];
    }
    case "tool_result": {
      if (typeof r.item_id !== "string" || typeof r.output !== "string") return [];
      return [
        {
          sessionUpdate: "tool_call_update",
          toolCallId: r.item_id,
          status: r.status === "completed" ? "completed" : "failed",
          content: r.output === "" ? [] : [textContent(r.output)],
        },
      ];
    }
    case "plan":
      return planUpdate(r.plan);
    default:
      return [];
  }
}

function chunks(kind: "user_message_chunk" | "agent_message_chunk", text: string): SessionUpdate[] {
  // An empty user message is still one (empty) chunk: the prompt was sent.
  const pieces = text === "" ? [""] : chunkChars(text, REPLAY_CHUNK_CHARS);
  return pieces.map((piece) => ({ sessionUpdate: kind, content: { type: "text", text: piece } }));
}

function shownInput(input: unknown): unknown {
  const bytes = utf8Length(JSON.stringify(input) ?? "null");
  return bytes > REPLAY_INPUT_BYTES ? { omitted_bytes: bytes } : input;
}

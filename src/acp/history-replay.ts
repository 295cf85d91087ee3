import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { SessionEvent } from "../protocol/schemas/sessions.js";
import { replayTitle, textContent, toolKind, toolLocations } from "./tool-calls.js";

/**
 * One saved history record (what `session.history` pages) as the updates `session/load` replays:
 * user and agent messages as chunks, a tool call with its result. Other records (turn starts and
 * ends, compactions, titles, records of other tools) show nothing. Records are loose objects, so
 * each field is checked before it is used.
 */
export function replayUpdates(cwd: string, record: SessionEvent): SessionUpdate[] {
  const r = record as Record<string, unknown>;
  switch (r.type) {
    case "user_message":
      return typeof r.text === "string" ? [chunk("user_message_chunk", r.text)] : [];
    case "assistant_message":
      return typeof r.text === "string" && r.text !== ""
        ? [chunk("agent_message_chunk", r.text)]
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
          rawInput: r.input,
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
    default:
      return [];
  }
}

function chunk(kind: "user_message_chunk" | "agent_message_chunk", text: string): SessionUpdate {
  return { sessionUpdate: kind, content: { type: "text", text } };
}

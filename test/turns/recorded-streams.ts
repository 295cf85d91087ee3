import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The streams recorded from real providers (`../shared/provider-streams/` beside the package,
 * `index.json` naming each source), read at test time and never copied into the project: each
 * file cut into its model calls, put on the wire as its API sends it, and read by the APIs'
 * documented semantics into what a turn must show of it (independently of src/agent/providers).
 */

export type Format = "responses" | "chat" | "anthropic";

export interface IndexEntry {
  file: string;
  server: string;
  kind: string;
  note?: string;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  reasoning_tokens: number;
}

/** What one recorded model call means, read from its payloads. */
export interface CallMeaning {
  /** Each assistant message: its text (the deltas joined) and its phase (Responses only). */
  messages: { text: string; phase: string | null }[];
  reasoning: string;
  /** The tools the model called, by the names it gave, with their call IDs. */
  calls: { id: string; name: string }[];
  usage: Usage | null;
  /** An error the stream carried instead of an answer: the failure code it stands for. */
  failure: string | null;
  stop: "end_turn" | "tool_use" | "max_tokens" | "refusal";
  /** The field its reasoning came in (Chat Completions), when it streamed some. */
  reasoningField: "reasoning_content" | "reasoning" | null;
}

export interface RecordedCall {
  /** The SSE data payloads of this call, parsed. */
  payloads: Record<string, unknown>[];
  meaning: CallMeaning;
}

export interface Recording {
  entry: IndexEntry;
  format: Format;
  calls: RecordedCall[];
  /** A raw SSE recording (event: lines as recorded): sent as it is. */
  raw: string | null;
}

/** The folder, found from the package root (the directory with package.json above this file). */
export function streamsDir(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
  const streams = join(dir, "..", "shared", "provider-streams");
  return existsSync(join(streams, "index.json")) ? streams : null;
}

export function loadRecordings(dir: string): Recording[] {
  const index = JSON.parse(readFileSync(join(dir, "index.json"), "utf8")) as {
    files: IndexEntry[];
  };
  return index.files.map((entry) => {
    const format = formatOf(entry.file);
    const text = readFileSync(join(dir, entry.file), "utf8");
    const raw = entry.kind === "recorded-raw-sse" ? text : null;
    const payloads = raw ? dataOfRawSse(raw) : dataLines(text);
    return { entry, format, raw, calls: splitCalls(format, payloads) };
  });
}

function formatOf(file: string): Format {
  const folder = file.split("/")[0];
  if (folder === "responses" || folder === "chat" || folder === "anthropic") return folder;
  throw new Error(`no format for ${file}`);
}

function dataLines(text: string): Record<string, unknown>[] {
  return text
    .split(/\r?\n/)
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function dataOfRawSse(text: string): Record<string, unknown>[] {
  return text
    .split(/\r?\n/)
    .filter((line) => line.startsWith("data:"))
    .map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>);
}

/** A recording of several calls of one run starts each with `response.created`/`message_start`. */
function splitCalls(format: Format, payloads: Record<string, unknown>[]): RecordedCall[] {
  const start = format === "responses" ? "response.created" : "message_start";
  const groups: Record<string, unknown>[][] = [];
  for (const payload of payloads) {
    const next = format !== "chat" && payload.type === start && (groups.at(-1)?.length ?? 0) > 0;
    if (groups.length === 0 || next) groups.push([]);
    groups.at(-1)?.push(payload);
  }
  return groups.map((group) => ({ payloads: group, meaning: meaningOf(format, group) }));
}

/** The bytes of one call on the wire, as its API sends them (`event:` lines where it names them). */
export function wireOf(format: Format, call: RecordedCall, lineEnd: string): string {
  const events = call.payloads.map((payload) => {
    const data = `data: ${JSON.stringify(payload)}${lineEnd}`;
    return format === "chat" ? data : `event: ${String(payload.type)}${lineEnd}${data}`;
  });
  if (format === "chat") events.push(`data: [DONE]${lineEnd}`);
  return events.map((event) => `${event}${lineEnd}`).join("");
}

function meaningOf(format: Format, payloads: Record<string, unknown>[]): CallMeaning {
  if (format === "chat") return chatMeaning(payloads);
  if (format === "responses") return responsesMeaning(payloads);
  return anthropicMeaning(payloads);
}

const count = (value: unknown): number => (typeof value === "number" ? value : 0);
type Json = Record<string, unknown>;
const at = (value: unknown, ...keys: string[]): unknown =>
  keys.reduce<unknown>((v, k) => (v && typeof v === "object" ? (v as Json)[k] : undefined), value);

/** Chat Completions: `delta.content` (a string, or Mistral's typed chunks), reasoning, tool calls. */
function chatMeaning(payloads: Json[]): CallMeaning {
  let text = "";
  let reasoning = "";
  let reasoningField: CallMeaning["reasoningField"] = null;
  const calls: { id: string; name: string }[] = [];
  let usage: Usage | null = null;
  let finish: string | null = null;
  for (const chunk of payloads) {
    const u = chunk.usage as Json | null | undefined;
    if (u)
      usage = {
        input_tokens: count(u.prompt_tokens),
        output_tokens: count(u.completion_tokens),
        cached_input_tokens: count(at(u, "prompt_tokens_details", "cached_tokens")),
        reasoning_tokens: count(at(u, "completion_tokens_details", "reasoning_tokens")),
      };
    for (const choice of (chunk.choices as Json[] | undefined) ?? []) {
      const delta = (choice.delta ?? {}) as Json;
      for (const field of ["reasoning_content", "reasoning"] as const)
        if (typeof delta[field] === "string" && delta[field] !== "") {
          reasoningField ??= field;
          reasoning += delta[field];
          break;
        }
      const content = delta.content;
      if (typeof content === "string") text += content;
      for (const part of Array.isArray(content) ? (content as Json[]) : []) {
        if (part.type === "text") text += String(part.text ?? "");
        if (part.type === "thinking")
          for (const piece of part.thinking as Json[]) reasoning += String(piece.text ?? "");
      }
      for (const fragment of (delta.tool_calls as Json[] | undefined) ?? []) {
        const name = at(fragment, "function", "name");
        const index = typeof fragment.index === "number" ? fragment.index : null;
        const starts = index === null ? Boolean(fragment.id || name) : index >= calls.length;
        if (starts || calls.length === 0)
          calls.push({ id: String(fragment.id ?? `call_${calls.length}`), name: String(name) });
      }
      if (typeof choice.finish_reason === "string") finish = choice.finish_reason;
    }
  }
  const stop =
    calls.length > 0
      ? "tool_use"
      : finish === "length"
        ? "max_tokens"
        : finish === "content_filter"
          ? "refusal"
          : "end_turn";
  const messages = text ? [{ text, phase: null }] : [];
  return {
    messages,
    reasoning,
    calls,
    usage: usage ?? zero(),
    failure: null,
    stop,
    reasoningField,
  };
}

const zero = (): Usage => ({
  input_tokens: 0,
  output_tokens: 0,
  cached_input_tokens: 0,
  reasoning_tokens: 0,
});

/** Responses: message items (each its own, with its phase), reasoning, function calls, errors. */
function responsesMeaning(payloads: Json[]): CallMeaning {
  const messages: { text: string; phase: string | null }[] = [];
  let open: { text: string; phase: string | null } | null = null;
  let reasoning = "";
  const calls: { id: string; name: string }[] = [];
  let usage: Usage | null = null;
  let failure: string | null = null;
  let stop: CallMeaning["stop"] = "end_turn";
  for (const event of payloads) {
    const item = event.item as Json | undefined;
    switch (event.type) {
      case "response.output_item.added":
        if (item?.type === "message") open = { text: "", phase: (item.phase as string) ?? null };
        break;
      case "response.output_text.delta":
        if (open) open.text += String(event.delta);
        break;
      case "response.output_item.done":
        if (item?.type === "message" && open) {
          if (open.text !== "") messages.push(open);
          open = null;
        }
        if (item?.type === "function_call")
          calls.push({ id: String(item.call_id), name: String(item.name) });
        break;
      case "response.reasoning_summary_part.added":
        if (count(event.summary_index) > 0) reasoning += "\n\n";
        break;
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        reasoning += String(event.delta);
        break;
      case "response.completed":
      case "response.incomplete": {
        const u = at(event, "response", "usage") as Json | null;
        if (u)
          usage = {
            input_tokens: count(u.input_tokens),
            output_tokens: count(u.output_tokens),
            cached_input_tokens: count(at(u, "input_tokens_details", "cached_tokens")),
            reasoning_tokens: count(at(u, "output_tokens_details", "reasoning_tokens")),
          };
        if (event.type === "response.incomplete") stop = "max_tokens";
        else if (calls.length > 0) stop = "tool_use";
        break;
      }
      case "response.failed":
      case "error": {
        // OpenAI's error codes; a 5xx is `server_error` (its code may be null, its type says it).
        const error = (
          event.type === "error" ? event.error : at(event, "response", "error")
        ) as Json;
        failure ??= responsesFailure(String(error?.code ?? error?.type ?? ""));
        break;
      }
    }
  }
  return { messages, reasoning, calls, usage, failure, stop, reasoningField: null };
}

function responsesFailure(code: string): string {
  if (code === "rate_limit_exceeded") return "rate_limited";
  if (code === "server_error" || code === "server_is_overloaded") return "remote_unavailable";
  return "provider_error";
}

/** Messages: text and thinking blocks, tool_use blocks, usage from message_start and message_delta. */
function anthropicMeaning(payloads: Json[]): CallMeaning {
  let text = "";
  let reasoning = "";
  const calls: { id: string; name: string }[] = [];
  const usage = zero();
  let stopReason: string | null = null;
  let failure: string | null = null;
  const take = (u: Json | undefined) => {
    if (!u) return;
    if (typeof u.input_tokens === "number") {
      usage.cached_input_tokens = count(u.cache_read_input_tokens);
      usage.input_tokens =
        u.input_tokens + usage.cached_input_tokens + count(u.cache_creation_input_tokens);
    }
    if (typeof u.output_tokens === "number") usage.output_tokens = u.output_tokens;
    const thinking = at(u, "output_tokens_details", "thinking_tokens");
    if (typeof thinking === "number") usage.reasoning_tokens = thinking;
  };
  for (const event of payloads) {
    if (event.type === "message_start") take(at(event, "message", "usage") as Json);
    if (event.type === "message_delta") {
      take(event.usage as Json);
      stopReason = (at(event, "delta", "stop_reason") as string) ?? stopReason;
    }
    if (event.type === "content_block_start" && at(event, "content_block", "type") === "tool_use")
      calls.push({
        id: String(at(event, "content_block", "id")),
        name: String(at(event, "content_block", "name")),
      });
    if (event.type === "content_block_delta") {
      const delta = event.delta as Json;
      if (delta.type === "text_delta") text += String(delta.text);
      if (delta.type === "thinking_delta") reasoning += String(delta.thinking);
    }
    if (event.type === "error") {
      const type = at(event, "error", "type");
      failure =
        type === "overloaded_error" || type === "api_error"
          ? "remote_unavailable"
          : type === "rate_limit_error"
            ? "rate_limited"
            : "provider_error";
    }
  }
  const stop =
    stopReason === "max_tokens" || stopReason === "refusal"
      ? stopReason
      : calls.length > 0
        ? "tool_use"
        : "end_turn";
  const messages = text ? [{ text, phase: null }] : [];
  return { messages, reasoning, calls, usage, failure, stop, reasoningField: null };
}

/** The answer a follow-up call gets once a recording's calls are used (constructed, not recorded). */
export function closingCall(format: Format): RecordedCall {
  const payloads: Json[] =
    format === "chat"
      ? [
          {
            id: "c",
            object: "chat.completion.chunk",
            choices: [{ index: 0, delta: { content: "Closed." }, finish_reason: "stop" }],
          },
        ]
      : format === "responses"
        ? [
            { type: "response.created", response: { id: "r", status: "in_progress", output: [] } },
            {
              type: "response.output_item.added",
              output_index: 0,
              item: { id: "m", type: "message", role: "assistant", content: [] },
            },
            { type: "response.output_text.delta", item_id: "m", delta: "Closed." },
            {
              type: "response.output_item.done",
              output_index: 0,
              item: { id: "m", type: "message", role: "assistant", content: [] },
            },
            { type: "response.completed", response: { id: "r", status: "completed" } },
          ]
        : [
            { type: "message_start", message: { usage: { input_tokens: 1, output_tokens: 1 } } },
            { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
            {
              type: "content_block_delta",
              index: 0,
              delta: { type: "text_delta", text: "Closed." },
            },
            { type: "content_block_stop", index: 0 },
            {
              type: "message_delta",
              delta: { stop_reason: "end_turn" },
              usage: { output_tokens: 2 },
            },
            { type: "message_stop" },
          ];
  return { payloads, meaning: meaningOf(format, payloads) };
}

/** The wire text cut into pieces of varied sizes (1 byte up), so that no boundary is favoured. */
export function byteSplit(wire: string): Buffer[] {
  const bytes = Buffer.from(wire, "utf8");
  const sizes = [1, 3, 17, 64, 251, 1024, 4093, 2];
  const pieces: Buffer[] = [];
  for (let offset = 0, i = 0; offset < bytes.length; i++) {
    const size = sizes[i % sizes.length] as number;
    pieces.push(bytes.subarray(offset, offset + size));
    offset += size;
  }
  return pieces;
}

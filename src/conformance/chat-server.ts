import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { chunkChars } from "../protocol/text-cut.js";

/**
 * A loopback Chat Completions server that streams exactly as real ones do (OpenAI's shape; vLLM,
 * llama.cpp and Ollama follow it): a role-only first chunk, content in pieces, tool calls whose
 * `id` and name come only on the first fragment and whose arguments arrive in pieces, a
 * `finish_reason` chunk, a final usage chunk with empty `choices`, then `data: [DONE]`.
 *
 * Scripted per test or kit case, ONE reply per model call, in order; every request is kept
 * (headers and parsed body) so a test asserts what the model was shown:
 *
 *   const server = await startChatServer();
 *   server.reply(text("Hello"));                                // streamed in pieces
 *   server.reply(toolCall("read_file", { path: "a" }));          // one call, finish tool_calls
 *   server.reply(toolCalls([call("a", {}), call("b", {})]));     // parallel calls
 *   server.reply(answer({ text: "Let me look.", calls: [...], usage: { prompt_tokens: 9 } }));
 *   server.reply(fail(429, { retryAfter: 1 }));                  // status, body, headers
 *   server.reply(reset());        // connection reset before any output
 *   server.reply(cut(text("Hello world"), 3));                   // socket closed after 3 chunks
 *   server.reply(stall(text("Hello"), 2));                       // 2 chunks, then silence
 *   server.reply(held(text("Hello"), 2, door.wait));             // 2 chunks, the rest later
 *   server.reply(garbage("data: {not json\n\n"));                // raw bytes as the stream
 *   server.reply(contextTooLong());                              // OpenAI's 400
 *   ... provider.stream(...) ...
 *   server.requests[0].body.messages; server.requests[0].headers.authorization;
 *   await server.close();
 *
 * A request with no script left is answered by the `otherwise` script when one is set (a kit
 * case that cannot know how many calls another implementation makes), else 500 and counted in
 * `unscripted`.
 */

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (null when it was not JSON; `raw` has it). */
  // biome-ignore lint/suspicious/noExplicitAny: tests and kit cases read the wire body freely.
  body: any;
  raw: string;
}

interface Exchange {
  request: SeenRequest;
  res: ServerResponse;
  socket: Socket;
}

/** One scripted answer to one model call. */
export type Script = (exchange: Exchange) => void | Promise<void>;

export interface ChatServer {
  /** The base URL a provider is configured with (`http://127.0.0.1:<port>/v1`). */
  baseUrl: string;
  requests: SeenRequest[];
  unscripted: number;
  reply(...scripts: Script[]): void;
  /** The answer to every call once the scripted replies are used up. */
  otherwise(script: Script): void;
  /** Scripts not yet used. */
  pending(): number;
  /** Drops the scripts not yet used. */
  clear(): void;
  close(): Promise<void>;
}

export async function startChatServer(): Promise<ChatServer> {
  const queue: Script[] = [];
  let fallback: Script | null = null;
  const sockets = new Set<Socket>();
  const chat: ChatServer = {
    baseUrl: "",
    requests: [],
    unscripted: 0,
    reply: (...scripts) => queue.push(...scripts),
    otherwise: (script) => {
      fallback = script;
    },
    pending: () => queue.length,
    clear: () => {
      queue.length = 0;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req, res) => {
    collect(req).then((request) => {
      chat.requests.push(request);
      const script = queue.shift() ?? fallback;
      if (!script) {
        chat.unscripted += 1;
        return sendJson(res, 500, { error: { message: "no scripted reply", type: "test" } });
      }
      return script({ request, res, socket: req.socket });
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  chat.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return chat;
}

async function collect(req: IncomingMessage): Promise<SeenRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString("utf8");
  let body: unknown = null;
  try {
    body = JSON.parse(raw);
  } catch {}
  return { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body, raw };
}

// ---- the streamed answer ----------------------------------------------------------------------

export interface CallSpec {
  name: string;
  /** An object is sent as its JSON text; a string is sent as is (e.g. broken JSON). */
  input: unknown;
  id?: string;
}

interface UsageSpec {
  prompt_tokens?: number;
  completion_tokens?: number;
  cached_tokens?: number;
  reasoning_tokens?: number;
}

export interface AnswerSpec {
  /** The text, split into pieces of `pieceChars` (or given as the pieces themselves). */
  text?: string | string[];
  /** Reasoning text before the answer, as vLLM/DeepSeek's `reasoning_content`. */
  reasoning?: string;
  calls?: CallSpec[];
  /** Default: `tool_calls` with calls, else `stop`; null sends no finish chunk at all. */
  finish?: string | null;
  /** Default: small fixed counts; null sends no usage chunk (a server ignoring include_usage). */
  usage?: UsageSpec | null;
  pieceChars?: number;
  /** Argument pieces per tool call (default 3). */
  argumentPieces?: number;
  /** Send `data: [DONE]` at the end (default true). */
  done?: boolean;
  /** Every line's end (default LF): SSE allows CR, LF and CRLF. */
  lineEnd?: "LF" | "CRLF" | "CR";
  /** A comment line (`: ` and this text) sent before the chunk of this index. */
  comment?: { before: number; text: string };
}

const LINE_ENDS = { LF: "\n", CRLF: "\r\n", CR: "\r" } as const;

export function call(name: string, input: unknown, id?: string): CallSpec {
  return id === undefined ? { name, input } : { name, input, id };
}

/** The SSE lines (`data: ...\n\n`, or with `lineEnd`'s ends) of one streamed answer, in order. */
export function answerEvents(spec: AnswerSpec, model = "test-model"): string[] {
  const base = { id: "chatcmpl-test", object: "chat.completion.chunk", created: 1, model };
  const chunk = (delta: unknown, finish: string | null = null, usage: unknown = null) => ({
    ...base,
    system_fingerprint: null,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    usage,
  });
  const chunks: unknown[] = [chunk({ role: "assistant", content: "", refusal: null })];
  if (spec.reasoning)
    for (const piece of chunkChars(spec.reasoning, spec.pieceChars ?? 4))
      chunks.push(chunk({ reasoning_content: piece }));
  const text = spec.text ?? "";
  for (const piece of Array.isArray(text) ? text : chunkChars(text, spec.pieceChars ?? 4))
    chunks.push(chunk({ content: piece }));
  (spec.calls ?? []).forEach((c, index) => {
    const args = typeof c.input === "string" ? c.input : JSON.stringify(c.input);
    const id = c.id ?? `call_${index}_${Math.random().toString(36).slice(2, 10)}`;
    chunks.push(
      chunk({
        tool_calls: [{ index, id, type: "function", function: { name: c.name, arguments: "" } }],
      }),
    );
    const size = Math.max(1, Math.ceil(args.length / (spec.argumentPieces ?? 3)));
    for (const piece of chunkChars(args, size))
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  const finish =
    spec.finish === undefined ? (spec.calls?.length ? "tool_calls" : "stop") : spec.finish;
  if (finish !== null) chunks.push(chunk({}, finish));
  if (spec.usage !== null) chunks.push({ ...base, choices: [], usage: usageOf(spec.usage ?? {}) });
  const end = LINE_ENDS[spec.lineEnd ?? "LF"];
  const lines = chunks.map((c) => `data: ${JSON.stringify(c)}${end}${end}`);
  if (spec.done !== false) lines.push(`data: [DONE]${end}${end}`);
  if (spec.comment) lines.splice(spec.comment.before, 0, `: ${spec.comment.text}${end}`);
  return lines;
}

function usageOf(spec: UsageSpec) {
  const prompt = spec.prompt_tokens ?? 12;
  const completion = spec.completion_tokens ?? 5;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: spec.cached_tokens ?? 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: spec.reasoning_tokens ?? 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function startStream(res: ServerResponse): void {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
}

/**
 * Writes the lines one at a time, each as its own chunk, waiting for drain when asked, and
 * resolves once the last one is flushed to the socket (so a cut after it really sent it).
 */
async function writeLines(res: ServerResponse, lines: string[]): Promise<void> {
  for (const [index, line] of lines.entries()) {
    if (res.destroyed) return;
    if (index === lines.length - 1) {
      await new Promise<void>((resolve) => res.write(line, () => resolve()));
    } else if (!res.write(line)) {
      await new Promise((resolve) => res.once("drain", resolve));
    }
  }
}

// ---- the builders -----------------------------------------------------------------------------

/** Each answer script's spec, so `cut(text("..."), n)` can stream part of it. */
const SPECS = new WeakMap<Script, AnswerSpec>();

/** The general streamed answer. */
export function answer(spec: AnswerSpec): Script {
  const script: Script = async ({ request, res }) => {
    startStream(res);
    await writeLines(res, answerEvents(spec, request.body?.model));
    res.end();
  };
  SPECS.set(script, spec);
  return script;
}

export function text(content: string | string[], extra: Omit<AnswerSpec, "text"> = {}): Script {
  return answer({ ...extra, text: content });
}

export function toolCall(name: string, input: unknown, extra: Omit<AnswerSpec, "calls"> = {}) {
  return answer({ ...extra, calls: [call(name, input)] });
}

export function toolCalls(calls: CallSpec[], extra: Omit<AnswerSpec, "calls"> = {}): Script {
  return answer({ ...extra, calls });
}

export interface FailSpec {
  /** Seconds, or an HTTP date, as `Retry-After`. */
  retryAfter?: number | string;
  retryAfterMs?: number;
  /** Default: an OpenAI-style `{"error": {...}}` naming the status. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** An error status with a body and headers (401, 403, 429 + Retry-After, 500, 503, ...). */
export function fail(status: number, spec: FailSpec = {}): Script {
  return ({ res }) => {
    const headers: Record<string, string> = { ...spec.headers };
    if (spec.retryAfter !== undefined) headers["retry-after"] = String(spec.retryAfter);
    if (spec.retryAfterMs !== undefined) headers["retry-after-ms"] = String(spec.retryAfterMs);
    const body = spec.body ?? {
      error: { message: `scripted ${status}`, type: "test_error", param: null, code: null },
    };
    sendJson(res, status, body, headers);
  };
}

/** OpenAI's answer to a context past the model's window. */
export function contextTooLong(): Script {
  return fail(400, {
    body: {
      error: {
        message:
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    },
  });
}

/** The connection reset (RST) before any byte of the answer. */
export function reset(): Script {
  return ({ socket }) => {
    socket.resetAndDestroy();
  };
}

/** A streamed answer whose socket is closed after `chunks` of its SSE lines. */
export function cut(spec: AnswerSpec | Script, chunks: number): Script {
  return partial(spec, chunks, (exchange) => {
    exchange.socket.destroy();
  });
}

/** A streamed answer that stops writing after `chunks` lines and keeps the connection open. */
export function stall(spec: AnswerSpec | Script, chunks: number): Script {
  return partial(spec, chunks, () => {});
}

/**
 * A streamed answer that sends `chunks` lines, waits for `release` (the case's moment), then
 * sends the rest: a turn that is certainly running, for as long as the case needs.
 */
export function held(spec: AnswerSpec | Script, chunks: number, release: Promise<void>): Script {
  const answerSpec = typeof spec === "function" ? specOf(spec) : spec;
  return async (exchange) => {
    startStream(exchange.res);
    const lines = answerEvents(answerSpec, exchange.request.body?.model);
    await writeLines(exchange.res, lines.slice(0, chunks));
    await release;
    await writeLines(exchange.res, lines.slice(chunks));
    exchange.res.end();
  };
}

function partial(spec: AnswerSpec | Script, chunks: number, then: Script): Script {
  const answerSpec = typeof spec === "function" ? specOf(spec) : spec;
  return async (exchange) => {
    startStream(exchange.res);
    const lines = answerEvents(answerSpec, exchange.request.body?.model).slice(0, chunks);
    await writeLines(exchange.res, lines);
    await then(exchange);
  };
}

/** Raw bytes as a 200 event stream (garbage, a non-SSE body, a stream that just ends). */
export function garbage(raw: string, contentType = "text/event-stream"): Script {
  return ({ res }) => {
    res.writeHead(200, { "content-type": contentType });
    res.end(raw);
  };
}

/** Full control of one exchange. */
export function custom(script: Script): Script {
  return script;
}

function specOf(script: Script): AnswerSpec {
  const spec = SPECS.get(script);
  if (!spec) throw new Error("cut/stall take an answer spec or a text/toolCall(s)/answer script");
  return spec;
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const textBody = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(textBody),
    ...headers,
  });
  res.end(textBody);
}

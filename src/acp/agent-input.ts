import { type AnyMessage, RequestError } from "@agentclientprotocol/sdk";
import { BoundedLines } from "./line-bound.js";
import type { AcpHandover } from "./starter.js";

/**
 * The agent's stdin as the messages the SDK's connection reads (docs/acp.md, "Start-up"): from
 * where the starter (starter.ts) stopped, the bytes it read first, then the pipe; split into
 * lines and parsed as the SDK's `ndJsonStream` parses them, without web streams: a line of
 * white space is skipped, a line over the bound (line-bound.ts) or no JSON is answered
 * `-32700`, a batch or a value that is no object `-32600`, each answer written before the next
 * line is read. Node loads its web streams (four modules, and a fresh context the first time a
 * writer's lock is released) for ndJsonStream and the adapters around it: about 7 ms of CPU
 * before the first session's answer, for a stream of one reader.
 *
 * When the starter answered the first line (an `initialize`), only that line is given at once,
 * and the rest waits for `held`: the sink drops the first line the SDK writes as its own answer
 * to that initialize (stdout-sink.ts), so no other line may be answered before it
 * (initialize-gate.ts orders the requests that wait for it, but not, say, an unknown method's
 * error). Chunks waiting behind an answer being written pause stdin past HELD_CHUNKS, so a fast
 * editor is held in the pipe, not in memory.
 */
export function agentInput(
  handover: AcpHandover | undefined,
  held: Promise<void> | null,
  reply: (message: AnyMessage) => Promise<void>,
): MessageSource {
  const stdin = process.stdin;
  const lines = new BoundedLines();
  const decoder = new TextDecoder();
  const chunks: Uint8Array[] = [];
  const messages: AnyMessage[] = [];
  let waiting: { resolve: (read: Read) => void; reject: (error: unknown) => void } | null = null;
  let state: "open" | "ended" | "done" = "open";
  let failure: { error: unknown } | null = null;
  let pumping = false;
  let listening = false;
  /** Read through a call: TypeScript keeps no narrowing of `state` across an await in it. */
  const over = () => state === "done";

  const settle = (read: Read) => {
    const reader = waiting;
    waiting = null;
    reader?.resolve(read);
  };
  const finish = () => {
    state = "done";
    settle(DONE);
  };
  const fail = (error: unknown) => {
    if (state === "done") return;
    state = "done";
    failure = { error };
    messages.length = 0;
    stdin.pause();
    const reader = waiting;
    waiting = null;
    reader?.reject(error);
  };

  /** One line: a message for the connection, or the answer to write first (undefined: none). */
  const take = (line: Uint8Array | null): Promise<void> | undefined => {
    if (line === null) return reply(refusal(RequestError.parseError()));
    const text = decoder.decode(line).trim();
    if (!text) return undefined;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return reply(refusal(RequestError.parseError()));
    }
    if (Array.isArray(message))
      return reply(
        refusal(RequestError.invalidRequest(undefined, "JSON-RPC batches are not supported")),
      );
    if (typeof message !== "object" || message === null)
      return reply(refusal(RequestError.invalidRequest(message)));
    if (waiting) settle({ done: false, value: message as AnyMessage });
    else messages.push(message as AnyMessage);
    return undefined;
  };

  /** Splits the chunks in order, one at a time, each answer written before the next line. */
  const pump = async () => {
    if (pumping) return;
    pumping = true;
    try {
      while (chunks.length > 0 && !over()) {
        for (const line of lines.push(chunks.shift() as Uint8Array)) {
          const answer = take(line);
          if (answer) await answer;
          if (over()) return;
        }
        if (listening && chunks.length < HELD_CHUNKS) stdin.resume();
      }
      if (state === "ended") {
        const last = lines.flush();
        const answer = last === undefined ? undefined : take(last);
        if (answer) await answer;
        finish();
      }
    } finally {
      pumping = false;
    }
  };
  const push = (chunk: Uint8Array) => {
    chunks.push(chunk);
    if (chunks.length >= HELD_CHUNKS) stdin.pause();
    pump().catch(fail);
  };
  const end = () => {
    if (state !== "open") return;
    state = "ended";
    pump().catch(fail);
  };

  const read = Buffer.concat(handover?.read ?? []);
  const first = handover?.answered ? handover.answered.lineBytes : read.length;
  if (first > 0) push(read.subarray(0, first));
  const rest = () => {
    if (read.length > first) push(read.subarray(first));
    if (handover?.ended) return end();
    stdin.on("data", push);
    stdin.once("end", end);
    stdin.once("error", fail);
    listening = true;
    stdin.resume();
  };
  if (held) void held.then(rest);
  else rest();

  const reader: MessageReader = {
    read() {
      const next = messages.shift();
      if (next !== undefined) return Promise.resolve({ done: false, value: next });
      if (failure) return Promise.reject(failure.error);
      if (state === "done") return Promise.resolve(DONE);
      return new Promise((resolve, reject) => {
        waiting = { resolve, reject };
      });
    },
    releaseLock() {},
    async cancel() {
      // The connection closed: nothing more is read, and a read waiting ends.
      if (state === "done") return;
      messages.length = 0;
      stdin.pause();
      finish();
    },
  };
  return { getReader: () => reader };
}

/**
 * Chunks waiting to be split past which stdin is paused: the queue the web stream before held
 * (its high-water mark). Only a line's answer being written holds them.
 */
const HELD_CHUNKS = 16;

type Read = { done: false; value: AnyMessage } | { done: true; value: undefined };
const DONE: Read = { done: true, value: undefined };

/** The readable end of the SDK's stream as its connection (2.4, `receive`) uses it. */
export interface MessageSource {
  getReader(): MessageReader;
}

interface MessageReader {
  read(): Promise<Read>;
  releaseLock(): void;
  cancel(reason?: unknown): Promise<void>;
}

/** The SDK's answer to a line it could not take (its `protocolErrorResponse`). */
function refusal(error: RequestError): AnyMessage {
  return { jsonrpc: "2.0", id: null, error: error.toErrorResponse() };
}

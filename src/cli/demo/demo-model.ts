import type { IncomingMessage, ServerResponse } from "node:http";
import { chunkChars } from "../../protocol/text-cut.js";

/**
 * The demo's scripted "model" behind `POST /v1/chat/completions`, streamed in the real Chat
 * Completions wire format (what OpenAI, vLLM, llama.cpp and Ollama send): a role-only first
 * chunk, the content in pieces, a tool call whose id and name come on its first fragment and
 * whose arguments follow in pieces, a `finish_reason` chunk, a usage chunk with empty
 * `choices` (asked for with `stream_options.include_usage`), then `data: [DONE]`.
 *
 * Deterministic and small: asked a question, it first calls `list_dir` on "."; shown that
 * tool's result, it answers how many entries it saw. So the demo runs the real agent loop
 * (model call, tool, model call) over the protocol without a key or the network.
 */

interface ChatMessage {
  role: string;
  content?: unknown;
}

interface ChatRequest {
  model?: unknown;
  messages?: ChatMessage[];
  stream_options?: { include_usage?: boolean };
}

/** Bytes of a request body the demo model reads; more is refused. */
const BODY_BYTES = 4 * 1024 * 1024;

export async function answerChat(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const request = await readJson(req);
  if (request === null) {
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: "invalid request body" } }));
    return;
  }
  const model = typeof request.model === "string" ? request.model : "demo-1";
  const messages = request.messages ?? [];
  const seen = toolResultAfterLastUser(messages);
  const stream = new ChunkStream(res, model);
  if (seen === null) {
    stream.text("Let me look at this folder first.");
    stream.toolCall("call_demo_list_1", "list_dir", JSON.stringify({ path: "." }));
    stream.finish("tool_calls");
  } else {
    stream.text(describeListing(seen));
    stream.finish("stop");
  }
  if (request.stream_options?.include_usage) stream.usage(sizeOf(messages), stream.written);
  stream.done();
}

/** The tool result the model was shown since the user last spoke, or null (none yet). */
function toolResultAfterLastUser(messages: ChatMessage[]): string | null {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i] as ChatMessage;
    if (message.role === "user") return null;
    if (message.role === "tool") return typeof message.content === "string" ? message.content : "";
  }
  return null;
}

/** list_dir's output: one "<kind> <name>" line an entry, "(empty folder)", a "[N more" note. */
function describeListing(output: string): string {
  if (output.startsWith("(empty folder)"))
    return "I looked: this folder is empty, so there is nothing to work on yet.";
  const lines = output.split("\n").filter((line) => line !== "");
  const entries = lines.filter((line) => /^(dir|file|symlink|other) /.test(line));
  const more = Number(/^\[(\d+) more entries/m.exec(output)?.[1] ?? 0);
  const total = entries.length + more;
  const folders = entries.filter((line) => line.startsWith("dir ")).length;
  const noun = total === 1 ? "entry" : "entries";
  return `I looked: this folder has ${total} ${noun} (${folders} ${folders === 1 ? "folder" : "folders"}). Tell me what to do with them.`;
}

/** A rough token count, the way the demo reports usage: four characters a token. */
function sizeOf(messages: ChatMessage[]): number {
  return Math.ceil(JSON.stringify(messages).length / 4);
}

async function readJson(req: IncomingMessage): Promise<ChatRequest | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    return typeof parsed === "object" && parsed !== null ? (parsed as ChatRequest) : null;
  } catch {
    return null;
  }
}

/** Writes `chat.completion.chunk` events as server-sent events. */
class ChunkStream {
  /** Characters of output so far (for the usage chunk). */
  written = 0;
  private readonly base: { id: string; object: string; created: number; model: string };

  constructor(
    private readonly res: ServerResponse,
    model: string,
  ) {
    this.base = { id: "chatcmpl-demo", object: "chat.completion.chunk", created: 1, model };
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    this.choice({ role: "assistant", content: "", refusal: null });
  }

  text(text: string): void {
    for (const piece of chunkChars(text, 6)) this.choice({ content: piece });
    this.written += text.length;
  }

  toolCall(id: string, name: string, args: string): void {
    const index = 0;
    this.choice({
      tool_calls: [{ index, id, type: "function", function: { name, arguments: "" } }],
    });
    for (const piece of chunkChars(args, 5))
      this.choice({ tool_calls: [{ index, function: { arguments: piece } }] });
    this.written += name.length + args.length;
  }

  finish(reason: "stop" | "tool_calls"): void {
    this.choice({}, reason);
  }

  usage(prompt: number, completionChars: number): void {
    const completion = Math.ceil(completionChars / 4);
    this.send({
      ...this.base,
      choices: [],
      usage: {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
      },
    });
  }

  done(): void {
    this.res.end("data: [DONE]\n\n");
  }

  private choice(delta: unknown, finish: string | null = null): void {
    this.send({
      ...this.base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      usage: null,
    });
  }

  private send(chunk: unknown): void {
    this.res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  }
}

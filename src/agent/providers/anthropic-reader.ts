import type { ContentBlockParam } from "@anthropic-ai/sdk/resources/messages/messages";
import { z } from "zod";
import { parseJson } from "../../protocol/well-formed.js";
import { TextBuilder } from "../text-builder.js";
import type { ThinkingBlock } from "./anthropic-format.js";
import { failure } from "./failures.js";
import type { ProviderState, StreamEvent, Usage } from "./provider.js";

/**
 * Reads Messages stream events into ours. Content blocks are assembled by index: text and
 * thinking stream as deltas, a `tool_use` block's input arrives as JSON pieces (the first may be
 * empty) and is handed on whole at its `content_block_stop`. Unknown event, block and delta
 * types are skipped (the SDK already drops `ping`).
 */

const Count = z.number().int().nonnegative();
const InputUsage = z.looseObject({
  input_tokens: Count.nullish(),
  output_tokens: Count.nullish(),
  cache_read_input_tokens: Count.nullish(),
  cache_creation_input_tokens: Count.nullish(),
  // Newer models report their thinking apart (claude-sonnet-5 streams): part of output_tokens.
  output_tokens_details: z.looseObject({ thinking_tokens: Count.nullish() }).nullish(),
});
const MessageStart = z.looseObject({ message: z.looseObject({ usage: InputUsage.nullish() }) });
const BlockStart = z.looseObject({
  index: z.number().int().nonnegative(),
  content_block: z.looseObject({
    type: z.string(),
    id: z.string().optional(),
    name: z.string().optional(),
    text: z.string().optional(),
    thinking: z.string().optional(),
    signature: z.string().optional(),
    data: z.string().optional(),
  }),
});
const BlockDelta = z.looseObject({
  index: z.number().int().nonnegative(),
  delta: z.looseObject({
    type: z.string(),
    text: z.string().optional(),
    partial_json: z.string().optional(),
    thinking: z.string().optional(),
    signature: z.string().optional(),
  }),
});
const BlockStop = z.looseObject({ index: z.number().int().nonnegative() });
const MessageDelta = z.looseObject({
  delta: z.looseObject({ stop_reason: z.string().nullish() }),
  usage: InputUsage.nullish(),
});

/** A block as it started, and what its deltas streamed (kept flat: `TextBuilder`). */
type Block = z.infer<typeof BlockStart>["content_block"] & {
  streamed: { text: TextBuilder; thinking: TextBuilder; json: TextBuilder };
};

export class MessagesReader {
  stopped = false;
  stopReason: string | null = null;
  sawToolCall = false;
  private blocks = new Map<number, Block>();
  /** Every finished block of this call, all segments, in order (a pause sends them back). */
  private readonly content: ContentBlockParam[] = [];
  private readonly thinking: ThinkingBlock[] = [];
  private usage = { input: 0, cached: 0, output: 0, reasoning: 0 };

  constructor(private readonly providerType: string) {}

  startSegment(): void {
    this.stopped = false;
    this.stopReason = null;
    this.blocks = new Map();
    this.usage = { input: 0, cached: 0, output: 0, reasoning: 0 };
  }

  read(event: { type: string }): StreamEvent[] {
    switch (event.type) {
      case "message_start":
        this.takeUsage(parse(MessageStart, event).message.usage);
        return [];
      case "content_block_start": {
        const { index, content_block } = parse(BlockStart, event);
        const streamed = {
          text: new TextBuilder(),
          thinking: new TextBuilder(),
          json: new TextBuilder(),
        };
        streamed.text.add(content_block.text ?? "");
        streamed.thinking.add(content_block.thinking ?? "");
        this.blocks.set(index, { ...content_block, streamed });
        return [];
      }
      case "content_block_delta":
        return this.delta(parse(BlockDelta, event));
      case "content_block_stop":
        return this.stop(parse(BlockStop, event).index);
      case "message_delta": {
        const delta = parse(MessageDelta, event);
        this.stopReason = delta.delta.stop_reason ?? this.stopReason;
        this.takeUsage(delta.usage);
        return [];
      }
      case "message_stop":
        this.stopped = true;
        return [];
      default:
        return [];
    }
  }

  private delta({ index, delta }: z.infer<typeof BlockDelta>): StreamEvent[] {
    const block = this.blocks.get(index);
    if (!block) throw failure("invalid_response");
    switch (delta.type) {
      case "text_delta":
        block.streamed.text.add(need(delta.text));
        return [{ type: "text_delta", text: delta.text as string }];
      case "input_json_delta":
        block.streamed.json.add(need(delta.partial_json));
        return [];
      case "thinking_delta":
        block.streamed.thinking.add(need(delta.thinking));
        return [{ type: "reasoning_delta", text: delta.thinking as string }];
      case "signature_delta":
        block.signature = need(delta.signature);
        return [];
      default:
        return [];
    }
  }

  private stop(index: number): StreamEvent[] {
    const block = this.blocks.get(index);
    if (!block) throw failure("invalid_response");
    this.blocks.delete(index);
    switch (block.type) {
      case "text": {
        const text = block.streamed.text.toString();
        if (text) this.content.push({ type: "text", text });
        return [];
      }
      case "thinking":
        // An unsigned block could not be replayed: the API checks the signature.
        if (!block.signature) return [];
        return this.keepThinking({
          type: "thinking",
          thinking: block.streamed.thinking.toString(),
          signature: block.signature,
        });
      case "redacted_thinking":
        return this.keepThinking({ type: "redacted_thinking", data: need(block.data) });
      case "tool_use": {
        const json = block.streamed.json.toString();
        const args = json.trim() === "" ? "{}" : json;
        this.content.push({
          type: "tool_use",
          id: need(block.id),
          name: need(block.name),
          input: parseObject(args),
        });
        this.sawToolCall = true;
        return [
          { type: "tool_call", call_id: need(block.id), name: need(block.name), arguments: args },
        ];
      }
      default: {
        // A server-side block (a pause can follow one): kept as it came, for the continuation.
        const { streamed, ...rest } = block;
        const json = streamed.json.toString();
        this.content.push(
          (json ? { ...rest, input: parseObject(json) } : rest) as ContentBlockParam,
        );
        return [];
      }
    }
  }

  private keepThinking(block: ThinkingBlock): StreamEvent[] {
    this.thinking.push(block);
    this.content.push(block);
    return [];
  }

  private takeUsage(usage: z.infer<typeof InputUsage> | null | undefined): void {
    if (!usage) return;
    if (usage.input_tokens != null) {
      const cacheRead = usage.cache_read_input_tokens ?? 0;
      this.usage.input = usage.input_tokens + cacheRead + (usage.cache_creation_input_tokens ?? 0);
      this.usage.cached = cacheRead;
    }
    if (usage.output_tokens != null) this.usage.output = usage.output_tokens;
    const thinking = usage.output_tokens_details?.thinking_tokens;
    if (thinking != null) this.usage.reasoning = thinking;
  }

  /** This segment's usage on top of earlier ones: input is the latest (the context's size). */
  mergedUsage(previous: Usage | null): Usage {
    return {
      input_tokens: this.usage.input,
      cached_input_tokens: this.usage.cached,
      output_tokens: (previous?.output_tokens ?? 0) + this.usage.output,
      reasoning_tokens: (previous?.reasoning_tokens ?? 0) + this.usage.reasoning,
    };
  }

  contentSoFar(): ContentBlockParam[] {
    return [...this.content];
  }

  state(): ProviderState | undefined {
    return this.thinking.length > 0
      ? { provider: this.providerType, thinking: this.thinking }
      : undefined;
  }
}

function need<T>(value: T | undefined): T {
  if (value === undefined) throw failure("invalid_response");
  return value;
}

function parseObject(json: string): Record<string, unknown> {
  try {
    const value: unknown = parseJson(json);
    if (typeof value === "object" && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // The engine reports bad arguments to the model; the replayed block just stays an object.
  }
  return {};
}

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw failure("invalid_response");
  return parsed.data;
}

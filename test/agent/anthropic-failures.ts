import { anthropicReply } from "../fixtures/anthropic-server.js";
import type { Reply } from "../fixtures/scripted-sse.js";

/** Scripted Messages answers and the failure code each must give. */
export interface FailureCase {
  name: string;
  reply: Reply;
  code: string;
  retryAfterMs?: number;
}

export const ANTHROPIC_FAILURES: FailureCase[] = [
  {
    name: "in-stream overloaded_error",
    reply: anthropicReply({ text: ["a"], errorAfter: { events: 2, type: "overloaded_error" } }),
    code: "remote_unavailable",
  },
  {
    name: "in-stream error after output",
    reply: anthropicReply({
      text: ["a", "b"],
      errorAfter: { events: 5, type: "invalid_request_error" },
    }),
    code: "provider_error",
  },
  {
    name: "400 prompt is too long",
    reply: {
      kind: "status",
      status: 400,
      body: {
        type: "error",
        error: {
          type: "invalid_request_error",
          message: "prompt is too long: 210000 tokens > 200000 maximum",
        },
      },
    },
    code: "context_exceeded",
  },
  {
    name: "400 other",
    reply: {
      kind: "status",
      status: 400,
      body: {
        type: "error",
        error: { type: "invalid_request_error", message: "messages: field required" },
      },
    },
    code: "provider_error",
  },
  {
    name: "401",
    reply: {
      kind: "status",
      status: 401,
      body: {
        type: "error",
        error: { type: "authentication_error", message: "invalid x-api-key" },
      },
    },
    code: "authentication_rejected",
  },
  {
    name: "403",
    reply: {
      kind: "status",
      status: 403,
      body: { type: "error", error: { type: "permission_error", message: "no" } },
    },
    code: "authentication_rejected",
  },
  {
    name: "429",
    reply: {
      kind: "status",
      status: 429,
      body: { type: "error", error: { type: "rate_limit_error", message: "slow" } },
      headers: { "retry-after": "12" },
    },
    code: "rate_limited",
    retryAfterMs: 12_000,
  },
  {
    name: "529 overloaded",
    reply: {
      kind: "status",
      status: 529,
      body: { type: "error", error: { type: "overloaded_error", message: "busy" } },
    },
    code: "remote_unavailable",
  },
  {
    name: "500",
    reply: {
      kind: "status",
      status: 500,
      body: { type: "error", error: { type: "api_error", message: "oops" } },
    },
    code: "remote_unavailable",
  },
  { name: "reset before any answer", reply: { kind: "reset" }, code: "remote_unavailable" },
  {
    name: "EOF before message_stop",
    reply: anthropicReply({ text: ["a", "b"], cutAfter: 5 }),
    code: "invalid_response",
  },
  {
    name: "garbage data",
    reply: { kind: "sse", events: [{ event: "message_start", data: "{oops" }] },
    code: "invalid_response",
  },
  {
    name: "a delta for no block",
    reply: {
      kind: "sse",
      events: [
        {
          event: "content_block_delta",
          data: {
            type: "content_block_delta",
            index: 3,
            delta: { type: "text_delta", text: "x" },
          },
        },
      ],
    },
    code: "invalid_response",
  },
];

import { responsesReply } from "../fixtures/responses-server.js";
import type { Reply } from "../fixtures/scripted-sse.js";

/** Scripted Responses answers and the failure code each must give. */
export interface FailureCase {
  name: string;
  reply: Reply;
  code: string;
  retryAfterMs?: number;
}

export const RESPONSES_FAILURES: FailureCase[] = [
  {
    name: "401",
    reply: {
      kind: "status",
      status: 401,
      body: {
        error: { message: "bad key", type: "invalid_request_error", code: "invalid_api_key" },
      },
    },
    code: "authentication_rejected",
  },
  {
    name: "403",
    reply: { kind: "status", status: 403, body: { error: { message: "no" } } },
    code: "authentication_rejected",
  },
  {
    name: "429 Retry-After seconds",
    reply: {
      kind: "status",
      status: 429,
      body: { error: { message: "slow" } },
      headers: { "retry-after": "7" },
    },
    code: "rate_limited",
    retryAfterMs: 7000,
  },
  {
    name: "429 retry-after-ms",
    reply: {
      kind: "status",
      status: 429,
      body: { error: { message: "slow" } },
      headers: { "retry-after-ms": "1500", "retry-after": "9" },
    },
    code: "rate_limited",
    retryAfterMs: 1500,
  },
  {
    name: "500",
    reply: { kind: "status", status: 500, body: { error: { message: "oops" } } },
    code: "remote_unavailable",
  },
  {
    name: "503",
    reply: { kind: "status", status: 503, body: "upstream down" },
    code: "remote_unavailable",
  },
  {
    name: "400 context_length_exceeded",
    reply: {
      kind: "status",
      status: 400,
      body: {
        error: {
          message: "too long",
          type: "invalid_request_error",
          code: "context_length_exceeded",
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
      body: { error: { message: "bad", code: "invalid_value" } },
    },
    code: "provider_error",
  },
  {
    name: "404",
    reply: { kind: "status", status: 404, body: { error: { message: "no model" } } },
    code: "provider_error",
  },
  {
    name: "in-stream error: context",
    reply: {
      kind: "sse",
      events: [
        {
          event: "error",
          data: {
            type: "error",
            code: "context_length_exceeded",
            message: "too long",
            param: null,
            sequence_number: 0,
          },
        },
      ],
    },
    code: "context_exceeded",
  },
  {
    name: "in-stream error: other",
    reply: {
      kind: "sse",
      events: [
        {
          event: "error",
          data: {
            type: "error",
            code: "invalid_prompt",
            message: "no",
            param: null,
            sequence_number: 0,
          },
        },
      ],
    },
    code: "provider_error",
  },
  {
    name: "response.failed server_error",
    reply: responsesReply({
      text: ["par"],
      end: { failed: { code: "server_error", message: "boom" } },
    }),
    code: "remote_unavailable",
  },
  {
    name: "response.failed rate limit",
    reply: responsesReply({ end: { failed: { code: "rate_limit_exceeded", message: "slow" } } }),
    code: "rate_limited",
  },
  { name: "reset before any answer", reply: { kind: "reset" }, code: "remote_unavailable" },
  {
    name: "reset mid-stream",
    reply: responsesReply({ text: ["a", "b"], cutAfter: 5, ending: "reset" }),
    code: "remote_unavailable",
  },
  {
    name: "EOF before response.completed",
    reply: responsesReply({ text: ["a", "b"], cutAfter: 6 }),
    code: "invalid_response",
  },
  {
    name: "garbage data",
    reply: { kind: "sse", events: [{ event: "response.created", data: "{not json" }] },
    code: "invalid_response",
  },
  {
    name: "a delta without its text",
    reply: {
      kind: "sse",
      events: [
        {
          event: "response.output_text.delta",
          data: { type: "response.output_text.delta", delta: 7 },
        },
      ],
    },
    code: "invalid_response",
  },
  {
    name: "not a stream",
    reply: { kind: "raw", contentType: "text/html", text: "<html>hello</html>" },
    code: "invalid_response",
  },
];

import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";
import type { ErrorCode } from "../protocol/codes.js";

/** Our code for a JSON-RPC error the SDK produced itself (a bad frame, params off its schema). */
const OURS: Record<number, ErrorCode> = {
  [-32700]: "invalid_request",
  [-32600]: "invalid_request",
  [-32601]: "method_not_found",
  [-32602]: "invalid_params",
  [-32603]: "internal_error",
};

/**
 * Every error the agent writes carries our code in `data`, and nothing else there: the SDK's
 * own errors put the offending frame or its schema issues in `data`, which may hold whatever the
 * client sent (paths, text), and our errors never echo input (docs/acp.md, "Errors").
 */
export function withOurErrorData(message: AnyMessage): AnyMessage {
  if (!("error" in message) || !message.error) return message;
  const data = message.error.data as { code?: unknown } | undefined;
  if (data && typeof data.code === "string" && Object.keys(data).length === 1) return message;
  const code = OURS[message.error.code] ?? "internal_error";
  return { ...message, error: { ...message.error, data: { code } } };
}

/** The stream with `withOurErrorData` applied to what the agent writes. */
export function normalisedErrors(stream: Stream): Stream {
  const outbound = new TransformStream<AnyMessage, AnyMessage>({
    transform: (message, controller) => controller.enqueue(withOurErrorData(message)),
  });
  void outbound.readable.pipeTo(stream.writable).catch(() => {});
  return { readable: stream.readable, writable: outbound.writable };
}

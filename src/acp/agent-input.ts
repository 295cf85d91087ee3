import type { AcpHandover } from "./starter.js";

/**
 * The agent's stdin as the SDK's byte stream, from where the starter (starter.ts) stopped: the
 * bytes it read first, then the pipe. When the starter answered the first line (an
 * `initialize`), only that line is given at once, and the rest waits for `held`: the sink drops
 * the first line the SDK writes as its own answer to that initialize (stdout-sink.ts), so no
 * other line may be answered before it (initialize-gate.ts orders the requests that wait for
 * it, but not, say, an unknown method's error). A full queue
 * pauses stdin until the SDK reads again, so a fast editor is held in the pipe, not in memory.
 */
export function agentInput(
  handover: AcpHandover | undefined,
  held: Promise<void> | null,
): ReadableStream<Uint8Array> {
  const stdin = process.stdin;
  let listening = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const read = Buffer.concat(handover?.read ?? []);
        const first = handover?.answered ? handover.answered.lineBytes : read.length;
        if (first > 0) controller.enqueue(read.subarray(0, first));
        const rest = () => {
          if (read.length > first) controller.enqueue(read.subarray(first));
          if (handover?.ended) return controller.close();
          stdin.on("data", (chunk: Buffer) => {
            controller.enqueue(chunk);
            if ((controller.desiredSize ?? 1) <= 0) stdin.pause();
          });
          stdin.once("end", () => controller.close());
          stdin.once("error", (error) => controller.error(error));
          listening = true;
          stdin.resume();
        };
        if (held) void held.then(rest);
        else rest();
      },
      pull() {
        // Never before the listeners are on: a flowing stdin without them drops its data.
        if (listening) stdin.resume();
      },
      cancel() {
        stdin.pause();
      },
    },
    { highWaterMark: 16 },
  );
}

import { once } from "node:events";
import type { AnyMessage } from "@agentclientprotocol/sdk";
import { log } from "../process/log.js";
import { normaliseLine } from "./wire-errors.js";

/**
 * The starter's answer to the first initialize (starter.ts): the SDK reads that initialize too
 * and answers it first of all it writes; that answer is not written again, and `answered`
 * releases the editor's next lines to the SDK (agent-input.ts).
 */
export interface Replayed {
  line: string;
  answered: () => void;
}

/**
 * stdout as the writable end of the SDK's stream: each message the connection writes becomes
 * one line, as the SDK's `ndJsonStream` encodes it, written straight to the pipe (no web stream
 * in between: agent-input.ts says what they cost; this is also the first chunk's path,
 * docs/benchmarks.md), errors normalised (wire-errors.ts), in order, each after the one before
 * has been taken, and a full pipe holds the writer until it drains, so a slow editor slows the
 * turn instead of growing a buffer. `send` is the same write for what the input answers itself
 * (a line that is no JSON). `onGone`: stdout closed under us.
 */
export function stdoutSink(onGone: () => void, replayed?: Replayed): MessageSink {
  const out = process.stdout;
  const encoder = new TextEncoder();
  let gone = false;
  let pending = replayed;
  out.on("error", () => {
    if (gone) return;
    gone = true;
    onGone();
  });
  const writeLine = async (line: Uint8Array) => {
    if (pending) {
      const { line: sent, answered } = pending;
      pending = undefined;
      // The same function built both (initialize-answer.ts); a difference would be a bug,
      // and the editor already has its one answer to that ID.
      if (!Buffer.from(sent).equals(line))
        log("error", "the SDK's initialize answer differs from the starter's");
      answered();
      return;
    }
    if (gone) return;
    if (!out.write(normaliseLine(line)))
      await Promise.race([once(out, "drain"), once(out, "close")]);
  };
  let written: Promise<unknown> = Promise.resolve();
  const send = (message: AnyMessage): Promise<void> => {
    const content = `${JSON.stringify(message)}\n`;
    const write = written.then(() => writeLine(encoder.encode(content)));
    written = write.catch(() => {});
    return write;
  };
  const writer: MessageWriter = { write: send, releaseLock: () => {} };
  return { send, getWriter: () => writer };
}

/** The writable end of the SDK's stream as its connection (2.4, `sendMessage`) uses it. */
export interface MessageSink {
  getWriter(): MessageWriter;
  /** Writes one message after those before it; resolves once stdout has taken it. */
  send(message: AnyMessage): Promise<void>;
}

interface MessageWriter {
  write(message: AnyMessage): Promise<void>;
  releaseLock(): void;
}

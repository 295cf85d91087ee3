import type { ClientCapabilities } from "@agentclientprotocol/sdk";
import { z } from "zod";
import { isPlainObject } from "../protocol/envelope.js";
import { acpError } from "./errors.js";

/**
 * ACP's `initialize` params, parsed by us: registering `initialize` with a parser of our own
 * keeps the SDK's gate off (it refuses every request read before `initialize` is answered, so
 * an editor that pipelines `session/new` behind it got `-32600`); InitializeGate stands in for
 * it. What we read is the protocol version (ACP's uint16, else `-32602` as the SDK's parser
 * answers) and four client capabilities, each true only when sent as `true` (the SDK's parser
 * turns a malformed one into its default, false); everything else is ignored, as there.
 */
const InitializeSchema = z.object({
  protocolVersion: z.int().gte(0).lte(65535),
  clientCapabilities: z.unknown().optional().transform(readCapabilities),
});

/**
 * The parser the SDK's `onRequest` takes: each check without zod's compiled fast path, whose
 * compile (a `new Function`, which V8's code cache cannot keep) cost more than the one or two
 * initializes a connection parses (src/protocol/first-parse.ts); the same checks either way.
 */
export const InitializeParams = {
  parse: (params: unknown) => InitializeSchema.parse(params, { jitless: true }),
};

function readCapabilities(raw: unknown): ClientCapabilities {
  const flag = (value: unknown, key: string) => isPlainObject(value) && value[key] === true;
  const offered = isPlainObject(raw) ? raw : {};
  return {
    fs: {
      readTextFile: flag(offered.fs, "readTextFile"),
      writeTextFile: flag(offered.fs, "writeTextFile"),
    },
    terminal: offered.terminal === true,
    auth: { terminal: flag(offered.auth, "terminal") },
  };
}

/**
 * `initialize` first, as ACP requires, without refusing what an editor pipelines behind it: a
 * request read while an `initialize` is being answered waits for that answer and then runs (so
 * both are answered in order); one read before any `initialize`, or after the only one failed,
 * is refused `-32600` with the SDK's own words. Once an `initialize` succeeded, everything runs.
 */
export class InitializeGate {
  private initialized = false;
  /** Settles once the latest `initialize` is answered (and its answer written). */
  private answered: Promise<void> | null = null;

  /**
   * Runs one `initialize`'s handler. It counts, and requests waiting for it go on, only after
   * its answer is written: the SDK writes it in the microtasks after the handler returns, before
   * the next macrotask.
   */
  async initialize<T>(answer: () => Promise<T>): Promise<T> {
    let release = () => {};
    this.answered = new Promise((resolve) => {
      release = resolve;
    });
    let ok = false;
    try {
      const result = await answer();
      ok = true;
      return result;
    } finally {
      setImmediate(() => {
        if (ok) this.initialized = true;
        release();
      });
    }
  }

  /** Resolves once `method` may run; refuses it when no `initialize` succeeded before it. */
  async admit(method: string): Promise<void> {
    if (!this.initialized && this.answered) await this.answered;
    if (!this.initialized)
      throw acpError("invalid_request", `ACP connection must be initialized before '${method}'`);
  }
}

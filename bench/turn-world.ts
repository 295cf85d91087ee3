import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type { Frame } from "../src/conformance/frame.js";
import { nextId, type Sandbox, sandbox, TestChild } from "../src/conformance/harness.js";
import { startReady } from "../test/helpers/child.js";
import {
  type CacheModelFixture,
  cacheDoc,
  writeCache,
  writeConfig,
} from "../test/models/fixtures.js";
import { TURN_CAPS } from "../test/turns/turn-harness.js";
import type { WireFormat } from "./turn-formats.js";
import type { BenchServer } from "./turn-server.js";

/**
 * Who reads a stream in the turn benchmarks, behind one face: the real child (a turn per reply,
 * its `message_delta` events), the bare relay (a request per reply, its relayed payloads) or
 * the peer, Codex app-server (bench/turn-peer-codex: a turn per reply, its message deltas).
 * Both run as their own processes spoken to over real pipes by the same TestChild reader, so the
 * bench process's own reading costs both alike. The harness gives every process spawned this way
 * only PATH and the store variables: no NODE_EXTRA_CA_CERTS (it adds ~90 ms to a Node start).
 */
export interface Streamer {
  readonly label: "child" | "relay" | "codex";
  readonly proc: TestChild;
  /** The reply text a frame carries, or "" when it carries none. */
  deltaOf(frame: Frame): string;
  /** Starts one reply; resolves when the reader is done with it (turn result, or body end). */
  begin(): Promise<void>;
  /** Forgets the frames read so far (a long run would keep them all). */
  forget(): void;
  close(): Promise<void>;
}

const here = dirname(fileURLToPath(import.meta.url));

export interface ChildWorld {
  /** The model's catalog context_window (none: the engine never compacts). */
  contextWindow?: number;
  /** The turn's permissions (default: the child's). */
  permissions?: string;
  /** How long one turn may take. */
  timeoutMs?: number;
  /** Another command line for the child (e.g. with `--cpu-prof`). */
  command?: string[];
  /** More environment for the child (e.g. MC_AGENT_GIT_SPAWN=direct). */
  env?: Record<string, string>;
  /** A sandbox used before (a warm home), kept at close; default: a fresh one, removed. */
  box?: Sandbox;
}

/** A sandbox whose selected model is `format`'s, served by `server`; a child on a fresh session. */
export async function childStreamer(
  format: WireFormat,
  server: Pick<BenchServer, "url">,
  options: ChildWorld = {},
): Promise<
  Streamer & {
    box: Sandbox;
    lastResult: () => Record<string, unknown> | undefined;
    /** Spawn to the session.create result (initialize in between). */
    startupMs: number;
  }
> {
  const box = options.box ?? sandbox("mc-bench-turn-");
  prepareBox(format, server, box, options.contextWindow);
  const spawnedAt = performance.now();
  const proc = await startReady(box, TURN_CAPS, {
    env: { ...format.keyEnv, ...options.env },
    ...(options.command ? { command: options.command } : {}),
  });
  await proc.call("session.create", {});
  const startupMs = performance.now() - spawnedAt;
  let lastResult: Record<string, unknown> | undefined;
  return {
    label: "child",
    proc,
    box,
    startupMs,
    lastResult: () => lastResult,
    deltaOf: turnEventDelta,
    begin: async () => {
      const id = nextId("turn");
      const response = proc.waitFor((f) => f.id === id, options.timeoutMs ?? 120_000);
      proc.send({
        id,
        method: "turn.start",
        params: {
          input: "Go on.",
          ...(options.permissions ? { permissions: options.permissions } : {}),
        },
      });
      const frame = await response;
      lastResult = frame.result;
      if (frame.result?.status !== "completed")
        throw new Error(
          `the turn did not complete: ${JSON.stringify(frame.result ?? frame.error)}`,
        );
    },
    forget: () => forget(proc),
    close: async () => {
      await proc.close();
      if (!options.box) box.cleanup();
    },
  };
}

/** The text of a `turn.event` frame's `message_delta`, or "" for any other frame. */
export function turnEventDelta(frame: Frame): string {
  const f = frame as unknown as {
    method?: string;
    params?: { event: { type: string; text?: string } };
  };
  return f.method === "turn.event" && f.params?.event.type === "message_delta"
    ? (f.params.event.text ?? "")
    : "";
}

/**
 * Writes `box`'s settings and catalog cache so that its selected model is `format`'s, served by
 * `server` (with `contextWindow` in the catalog when given: the engine compacts against it).
 */
export function prepareBox(
  format: WireFormat,
  server: Pick<BenchServer, "url">,
  box: Sandbox,
  contextWindow?: number,
): void {
  const base_url = format.baseUrl(server.url);
  const provider =
    format.type === "openai-compatible"
      ? { type: format.type, base_url, api_key_env: Object.keys(format.keyEnv)[0] }
      : { base_url };
  writeConfig(box, {
    providers: { [format.provider]: provider },
    enabled_models: [`${format.provider}/${format.model}`],
    model: `${format.provider}/${format.model}`,
  });
  const model: CacheModelFixture = {
    id: format.model,
    name: format.name,
    ...(contextWindow ? { context_window: contextWindow } : {}),
  };
  writeCache(
    box,
    format.provider,
    cacheDoc(format.provider, { type: format.type, base_url }, [model]),
  );
}

/** The bare SSE relay (bench/turn-relay) reading `format`'s stream from `server`. */
export function relayStreamer(format: WireFormat, server: BenchServer): Streamer {
  const box = sandbox("mc-bench-relay-");
  const proc = new TestChild({
    cwd: box.workspace,
    home: box.home,
    command: [process.execPath, join(here, "turn-relay.js")],
  });
  const url = `${server.url}${format.path}`;
  return {
    label: "relay",
    proc,
    deltaOf: (frame) => format.deltaText(frame),
    begin: async () => {
      const end = proc.waitFor((f) => (f as { end?: boolean }).end === true, 120_000);
      proc.send({ url });
      await end;
    },
    forget: () => forget(proc),
    close: async () => {
      proc.kill();
      await proc.exited;
      box.cleanup();
    },
  };
}

function forget(proc: TestChild): void {
  proc.frames.length = 0;
  proc.rawLines.length = 0;
  proc.transcript.length = 0;
  proc.sent.length = 0;
}

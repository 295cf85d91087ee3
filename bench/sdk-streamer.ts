import { join } from "node:path";
import { AgentClient } from "../src/client/index.js";
import type { Frame } from "../src/conformance/frame.js";
import type { Sandbox } from "../src/conformance/harness.js";
import type { Capability } from "../src/protocol/capabilities.js";
import type { TurnEventParams } from "../src/protocol/schemas/turns.js";
import { TURN_CAPS } from "../test/turns/turn-harness.js";
import type { WireFormat } from "./turn-formats.js";
import { turnEventDelta } from "./turn-world.js";

/**
 * The turn events the SDK hands its `onEvent`, each as the `turn.event` frame it came in, to
 * whoever waits for one: the SDK streamer's stand-in for the TestChild reader, so that the soak
 * (bench/soak.ts) times the SDK's delivery to the application, not the raw line.
 */
export class EventTap {
  private waiters: { match: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];

  constructor(private readonly client: () => AgentClient | undefined) {}

  /** The child's process ID (its RSS is what the soak samples). */
  get pid(): number | undefined {
    return this.client()?.pid;
  }

  push(event: TurnEventParams): void {
    const frame = { method: "turn.event", params: event } as unknown as Frame;
    const matched = this.waiters.filter((w) => w.match(frame));
    if (matched.length === 0) return;
    this.waiters = this.waiters.filter((w) => !matched.includes(w));
    for (const w of matched) w.resolve(frame);
  }

  /** The next event (as its frame) matching `match`, read after this call. */
  waitFor(match: (f: Frame) => boolean, timeoutMs = 10_000): Promise<Frame> {
    return new Promise<Frame>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.resolve !== done);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for a turn event`));
      }, timeoutMs);
      const done = (f: Frame) => {
        clearTimeout(timer);
        resolve(f);
      };
      this.waiters.push({ match, resolve: done });
    });
  }
}

/**
 * The client SDK (`AgentClient`, src/client) as a streamer of the soak: it spawns this package's
 * real child on `box` (set up by bench/turn-world's prepareBox: same store, same model), with
 * the capabilities a turn-driving frontend negotiates, creates a session, and runs each reply as
 * one `client.turn()`. Its provider key goes over the child's fd 3, as the SDK does for any
 * frontend. Frames are the events the SDK delivered, so the figures include its validation.
 */
export async function sdkStreamer(
  format: WireFormat,
  box: Sandbox,
  options: {
    permissions?: "full_access";
    timeoutMs?: number;
    /**
     * Also time, per turn, the SDK's own share: from the raw line of `turn_started` read off the
     * pipe (the SDK's trace hook, before it parses) to the event handed to the application.
     */
    lag?: boolean;
  } = {},
) {
  let client: AgentClient | undefined;
  const proc = new EventTap(() => client);
  /**
   * Per turn, ms from the raw line read to the event handed over (with `lag`): of its
   * `turn_started`, and of its first `message_delta`.
   */
  const lagMs = { admission: [] as number[], firstDelta: [] as number[] };
  const rawAt = new Map<string, bigint>();
  const trace = (direction: "in" | "out", line: string) => {
    if (direction !== "in") return;
    for (const type of ["turn_started", "message_delta"])
      if (!rawAt.has(type) && line.includes(`"type":"${type}"`))
        rawAt.set(type, process.hrtime.bigint());
  };
  const lagOf = (type: string, into: number[]) => {
    const at = rawAt.get(type);
    if (at === undefined || at === 0n) return;
    into.push(Number(process.hrtime.bigint() - at) / 1e6);
    rawAt.set(type, 0n); // the turn's first one only, until the next turn
  };
  const onEvent = (event: TurnEventParams) => {
    if (event.event.type === "turn_started") lagOf("turn_started", lagMs.admission);
    if (event.event.type === "message_delta") lagOf("message_delta", lagMs.firstDelta);
    proc.push(event);
  };
  client = await AgentClient.spawn({
    ...(options.lag ? { trace } : {}),
    cwd: box.workspace,
    env: {
      PATH: process.env.PATH,
      HOME: box.home,
      MC_HOME: box.home,
      CODEX_HOME: join(box.home, "no-codex"),
      CLAUDE_CONFIG_DIR: join(box.home, "no-claude"),
      ...format.keyEnv,
    },
    capabilities: TURN_CAPS as Capability[],
    client: { name: "mc-bench-soak", version: "1" },
  });
  const sdk = client;
  await sdk.call("session.create", {});
  return {
    label: "sdk" as const,
    proc,
    client: sdk,
    lagMs,
    deltaOf: turnEventDelta,
    begin: async () => {
      rawAt.clear();
      const signal = AbortSignal.timeout(options.timeoutMs ?? 120_000);
      const result = await sdk.turn("Go on.", {
        ...(options.permissions ? { permissions: options.permissions } : {}),
        onEvent,
        signal,
      });
      if (result.status !== "completed")
        throw new Error(`the turn did not complete: ${JSON.stringify(result)}`);
    },
    // The tap keeps no frames: nothing to forget.
    forget: () => {},
    close: () => sdk.close(),
  };
}

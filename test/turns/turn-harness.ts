import * as driver from "../../src/conformance/turn-driver.js";
import { type ChatServer, startChatServer } from "../fixtures/chat-completions-server.js";
import type { ChildOptions, Frame, Sandbox, TestChild } from "../helpers/child.js";
import { sandbox, startReady } from "../helpers/child.js";
import { type CacheModelFixture, cacheDoc, writeCache, writeConfig } from "../models/fixtures.js";

/** Every capability a turn-driving frontend negotiates. */
export const TURN_CAPS = [
  "session.list",
  "session.create",
  "session.open",
  "session.history",
  "session.record",
  "session.discover",
  "model.catalog",
  "model.select",
  "model.refresh",
  "operation.cancel",
  "turn",
];

/** TURN_CAPS and `turn.revert`: what the revert tests negotiate. */
export const REVERT_CAPS = [...TURN_CAPS, "turn.revert"];

export interface TurnWorld {
  box: Sandbox;
  server: ChatServer;
  child: TestChild;
  close(): Promise<void>;
}

export interface WorldOptions {
  models?: CacheModelFixture[];
  /** The selected model (default `demo/demo-1`), or null for none. */
  model?: string | null;
  effort?: string;
  /** Extra env for the child (DEMO_KEY is set unless `keyless`). */
  env?: Record<string, string>;
  keyless?: boolean;
  box?: Sandbox;
  child?: Partial<ChildOptions>;
  /** More of MC_HOME/config.json (e.g. `sandbox`). */
  config?: Record<string, unknown>;
  /** Capabilities to negotiate instead of TURN_CAPS. */
  capabilities?: string[];
}

/**
 * A sandbox, a loopback Chat Completions server as the `demo` provider, its valid cache, the
 * model preselected in settings, and a child negotiated for turns (test build).
 */
export async function turnWorld(options: WorldOptions = {}): Promise<TurnWorld> {
  const box = options.box ?? sandbox("mc-turn-");
  const server = await startChatServer();
  const models = options.models ?? [
    { id: "demo-1", name: "Demo 1", efforts: ["low", "medium", "high"], default_effort: "medium" },
  ];
  const provider = options.keyless
    ? { type: "openai-compatible", base_url: server.baseUrl }
    : { type: "openai-compatible", base_url: server.baseUrl, api_key_env: "DEMO_KEY" };
  writeConfig(box, {
    providers: { demo: provider },
    enabled_models: models.map((m) => `demo/${m.id}`),
    ...(options.model === null ? {} : { model: options.model ?? "demo/demo-1" }),
    ...(options.effort ? { effort: options.effort } : {}),
    ...options.config,
  });
  writeCache(
    box,
    "demo",
    cacheDoc("demo", { type: "openai-compatible", base_url: server.baseUrl }, models),
  );
  const child = await startReady(box, options.capabilities ?? TURN_CAPS, {
    testMethods: true,
    ...options.child,
    env: {
      ...(options.keyless ? {} : { DEMO_KEY: "sk-test-secret-key" }),
      MC_AGENT_TEST_BACKOFF_PERCENT: "1",
      ...options.env,
      ...options.child?.env,
    },
  });
  const world: TurnWorld = {
    box,
    server,
    child,
    // The world's current child: a test may replace it with a new one on the same store.
    close: async () => {
      await world.child.close();
      await server.close();
      box.cleanup();
    },
  };
  return world;
}

/**
 * The turn driving itself is the conformance kit's (src/conformance/turn-driver.ts), so that the
 * tests and `mc-agent conformance` check turns one way. The tests read event bodies freely, so
 * here an event's body is loose: any field by name.
 */
export type TurnEvent = Omit<driver.TurnEvent, "event"> & {
  event: { type: string; [key: string]: unknown };
};
export type TurnResultShape = driver.TurnResultShape;

export interface StartedTurn {
  id: string;
  /** The turn's terminal response frame. */
  response: Promise<Frame>;
  /** Resolves with the first event of this type (and predicate) the turn sends. */
  event(type: string, match?: (e: TurnEvent) => boolean, timeoutMs?: number): Promise<TurnEvent>;
  events(): TurnEvent[];
}

type Finished = Promise<{ result: TurnResultShape; events: TurnEvent[] }>;

/** The events the child sent so far for one turn request, in arrival order. */
export const eventsOf: (child: TestChild, requestId: string) => TurnEvent[] = driver.eventsOf;

export const startTurn: (
  child: TestChild,
  input: string,
  permissions?: string,
  id?: string,
) => StartedTurn = driver.startTurn;

/** Waits for a started turn's result and checks the invariants; fails on an error response. */
export function finishTurn(child: TestChild, turn: StartedTurn): Finished {
  return driver.finishTurn(child, turn as driver.StartedTurn);
}

/** Runs a turn to its result and checks the invariants every turn holds. */
export const runTurn: (child: TestChild, input: string, permissions?: string) => Finished =
  driver.runTurn;

/** The driver's invariants (turns.md sections 3-4) over the events the driver collected. */
export function assertTurnInvariants(
  child: TestChild,
  requestId: string,
  events: TurnEvent[],
  result: TurnResultShape,
): void {
  driver.assertTurnInvariants(child, requestId, events as driver.TurnEvent[], result);
}

/** The types of a turn's events, in order (for compact assertions). */
export function typesOf(events: TurnEvent[]): string[] {
  return events.map((e) => e.event.type);
}

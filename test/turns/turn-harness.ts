import assert from "node:assert/strict";
import { type ChatServer, startChatServer } from "../fixtures/chat-completions-server.js";
import type { ChildOptions, Frame, Sandbox, TestChild } from "../helpers/child.js";
import { nextId, sandbox, startReady } from "../helpers/child.js";
import { type CacheModelFixture, cacheDoc, writeCache, writeConfig } from "../models/fixtures.js";

/** Every capability a turn-driving frontend negotiates. */
export const TURN_CAPS = [
  "session.list",
  "session.create",
  "session.open",
  "session.history",
  "session.discover",
  "model.catalog",
  "model.select",
  "model.refresh",
  "operation.cancel",
  "turn",
];

export interface TurnEvent {
  request_id: string;
  turn_id: string;
  seq: number;
  event: { type: string; [key: string]: unknown };
}

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
  });
  writeCache(
    box,
    "demo",
    cacheDoc("demo", { type: "openai-compatible", base_url: server.baseUrl }, models),
  );
  const child = await startReady(box, TURN_CAPS, {
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

/** The events the child sent so far for one turn request, in arrival order. */
export function eventsOf(child: TestChild, requestId: string): TurnEvent[] {
  return (child.frames as unknown as { method?: string; params?: TurnEvent }[])
    .filter((f) => f.method === "turn.event" && f.params?.request_id === requestId)
    .map((f) => f.params as TurnEvent);
}

export interface StartedTurn {
  id: string;
  /** The turn's terminal response frame. */
  response: Promise<Frame>;
  /** Resolves with the first event of this type (and predicate) the turn sends. */
  event(type: string, match?: (e: TurnEvent) => boolean, timeoutMs?: number): Promise<TurnEvent>;
  events(): TurnEvent[];
}

export function startTurn(
  child: TestChild,
  input: string,
  permissions?: string,
  id = nextId("turn"),
): StartedTurn {
  const response = child.waitFor((f) => f.id === id, 60_000);
  child.send({
    id,
    method: "turn.start",
    params: { input, ...(permissions ? { permissions } : {}) },
  });
  return {
    id,
    response,
    events: () => eventsOf(child, id),
    event: async (type, match = () => true, timeoutMs = 30_000) => {
      const isIt = (p: TurnEvent | undefined) =>
        p?.request_id === id && p.event.type === type && match(p);
      const seen = eventsOf(child, id).find(isIt);
      if (seen) return seen;
      const frame = await child.waitFor(
        (f) => isIt((f as unknown as { params?: TurnEvent }).params),
        timeoutMs,
      );
      return (frame as unknown as { params: TurnEvent }).params;
    },
  };
}

/** Runs a turn to its result and checks the invariants every turn holds. */
export async function runTurn(
  child: TestChild,
  input: string,
  permissions?: string,
): Promise<{ result: TurnResultShape; events: TurnEvent[] }> {
  const turn = startTurn(child, input, permissions);
  const frame = await turn.response;
  assert.ok(frame.result, `turn.start failed: ${JSON.stringify(frame.error)}`);
  const events = turn.events();
  assertTurnInvariants(events, frame.result as unknown as TurnResultShape);
  return { result: frame.result as unknown as TurnResultShape, events };
}

export interface TurnResultShape {
  turn_id: string;
  session_id: string;
  status: string;
  stop_reason: string | null;
  error: { code: string; message: string } | null;
  usage: Record<string, number>;
  steps: number;
}

/** Gapless seq from 0, turn_started first, one turn_id, message_done equal to its deltas. */
export function assertTurnInvariants(events: TurnEvent[], result: TurnResultShape): void {
  assert.ok(events.length > 0, "a turn sends at least turn_started");
  events.forEach((e, i) => {
    assert.equal(e.seq, i, "seq is gapless from 0 in arrival order");
    assert.equal(e.turn_id, result.turn_id);
  });
  assert.equal(events[0]?.event.type, "turn_started");
  const deltas = new Map<string, string>();
  for (const { event } of events) {
    if (event.type === "message_delta")
      deltas.set(event.item_id as string, (deltas.get(event.item_id as string) ?? "") + event.text);
    if (event.type === "message_done")
      assert.equal(event.text, deltas.get(event.item_id as string) ?? "", "message_done = deltas");
  }
}

/** The types of a turn's events, in order (for compact assertions). */
export function typesOf(events: TurnEvent[]): string[] {
  return events.map((e) => e.event.type);
}

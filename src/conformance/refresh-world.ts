import assert from "node:assert/strict";
import type { CaseContext } from "./case.js";
import type { Frame } from "./frame.js";
import { nextId, type TestChild } from "./harness.js";
import { type Loopback, type Route, startLoopback } from "./loopback.js";
import { PROVIDER_ENV, REFRESH_CAPABILITIES, writeProviderHome } from "./provider-home.js";
import { readyOrSkip } from "./skip.js";

/**
 * A case's provider world: a loopback server answering with the case's route, an MC_HOME wired
 * to it, and a ready child that negotiated the model capabilities. The server is closed when the
 * case's body ends, whatever happened.
 */
interface RefreshWorld {
  ctx: CaseContext;
  server: Loopback;
  child: TestChild;
  /** A fresh ready child in the same home (after a kill, say). */
  respawn(): Promise<TestChild>;
}

export async function withRefreshWorld(
  ctx: CaseContext,
  route: Route,
  body: (world: RefreshWorld) => Promise<void>,
  prepare: (origin: string) => void = () => {},
): Promise<void> {
  const server = await startLoopback(route);
  try {
    writeProviderHome(ctx.box, server.origin);
    prepare(server.origin);
    const respawn = () => readyOrSkip(ctx, REFRESH_CAPABILITIES, { env: PROVIDER_ENV });
    const child = await respawn();
    await body({ ctx, server, child, respawn });
  } finally {
    await server.close();
  }
}

/** Sends model.refresh and returns its ID and terminal response. */
export function startRefresh(
  child: TestChild,
  provider = "demo",
  timeoutMs = 30_000,
): { id: string; done: Promise<Frame> } {
  const id = nextId("refresh");
  return { id, done: child.request("model.refresh", { provider }, id, timeoutMs) };
}

/** A refresh that must succeed. */
export async function refreshOk(child: TestChild, provider = "demo"): Promise<void> {
  const frame = await startRefresh(child, provider).done;
  assert.equal(
    frame.result?.outcome,
    "refreshed",
    `refresh of ${provider} should succeed: ${JSON.stringify(frame)}`,
  );
}

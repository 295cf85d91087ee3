import { realpathSync } from "node:fs";
import { McpManager } from "../agent/mcp/manager.js";
import { StartReach } from "../boot/code-cache-hook.js";
import { refreshCodeCacheAfterStart } from "../boot/code-cache-refresh.js";
import { tuneHeapForChild } from "../boot/heap-flags.js";
import type { Handover } from "../boot/starter.js";
import { exitBy } from "../process/exit.js";
import { log, logEnabled } from "../process/log.js";
import { childEnvironment } from "../process/secret-env.js";
import { onStopSignal, type StopSignal, stopExitCode } from "../process/stop-signals.js";
import { LIMITS } from "../protocol/constants.js";
import { type FrameEvent, FrameSplitter } from "../protocol/framing.js";
import { resolveHome } from "../store/home.js";
import type { LoadedSettings } from "../store/settings.js";
import { serversToStart } from "../trust/project-servers.js";
import type { ProjectTrust } from "../trust/workspace-trust.js";
import { Dispatcher } from "./dispatcher.js";
import type { HandlerTable } from "./handler.js";
import { buildHandlers } from "./handlers/index.js";
import { createState, type ServerState } from "./state.js";
import { testSeamFor } from "./test-seam.js";
import { isTurnFacts } from "./turn-facts.js";
import { FrameWriter } from "./writer.js";

/**
 * `mc-agent stdio`: the backend child. stdin carries requests, stdout only frames.
 * `handedOver`: what the process entry (src/entry.ts) read from the launcher's fd 3 (credentials),
 * if anything.
 * `handover`: what the starter read (and answered) before this bundle loaded (starter.ts).
 */
export function runStdio(handedOver: string | null = null, handover?: Handover): void {
  // Now that the child's modules have loaded, not before: held at its first size, the young
  // generation took ten scavenges to load them; it keeps the size the load grew it to.
  tuneHeapForChild();
  const env = childEnvironment(handedOver);
  const state = createState(realpathSync(process.cwd()), resolveHome(env), env);
  // The one place a child's test behaviour comes from: none unless this is a test build.
  const seam = testSeamFor(env);
  const mcp = (settings: LoadedSettings, trust: ProjectTrust) =>
    startMcpServers(state, settings, trust);
  // An initialize the starter answered negotiated no `turn`: nothing waits for the sandbox.
  const probeSandboxFirst = !handover?.initialized;
  const handlers = buildHandlers(state, {
    seam,
    mcp,
    probeSandboxFirst,
    ...(handover?.turnFacts && isTurnFacts(handover.turnFacts)
      ? { turnFacts: handover.turnFacts }
      : {}),
  });
  const dispatcher = serveStdio({ state, handlers }, handover);
  refreshCodeCacheAfterStart(
    env,
    () => !dispatcher.quietFor(REFRESH_QUIET_MS),
    () => (state.attachment === null ? StartReach.served : StartReach.session),
  );
}

/**
 * The configured MCP servers, started in the background in the event loop's second check phase:
 * Node reads stdin from the loop's second poll phase on, so the initialize already waiting there
 * is read and answered first (docs/mcp.md). Not the first check phase: that worked only while
 * loading the MCP SDK took a few turns of the loop (a chunk of its own, read from disk); loaded
 * from the child's one CommonJS script on Node 20 (src/boot/code-cache.ts) it is there at once,
 * and a server that failed at once was failed before the initialize, its `mcp.changed` dropped.
 */
function startMcpServers(
  state: ServerState,
  settings: LoadedSettings,
  trust: ProjectTrust,
): McpManager {
  // The project's servers only in a trusted workspace (docs/trust.md).
  const { servers, dropped } = serversToStart(settings, trust);
  if (dropped.length > 0) log("warn", `${dropped.length} project MCP servers past the 32 left out`);
  const manager = new McpManager({
    servers,
    env: state.env,
    workspace: state.cwd,
    debug: logEnabled("debug") ? (line) => log("debug", line) : null,
  });
  if (manager.configured) setImmediate(() => setImmediate(() => manager.begin()));
  return manager;
}

/**
 * The code cache's refresh (boot/code-cache-refresh.ts) waits until no request has run for this
 * long: between a listing's steps a frontend takes a few milliseconds, not this.
 */
const REFRESH_QUIET_MS = 100;

interface StdioServer {
  state: ServerState;
  handlers: HandlerTable;
  /** The lifetime bound on admitted requests (default `limits.child_requests`). */
  childRequests?: number;
}

/**
 * How long before the exit deadline the child stops waiting for a client to read what is left:
 * the rest of the bound is for threadpool work to end (exit.ts).
 */
const FLUSH_MARGIN_MS = 100;

/**
 * Serves the protocol on this process's stdin and stdout with the given handlers, until
 * shutdown, EOF, or the client gone (stdout closed); then exits once stdout has been flushed,
 * and at the latest `cleanup_ms` after the shutdown began: what a client that stopped reading
 * has not taken by then is dropped (issue 17). With a `handover`, from where the starter stopped:
 * its initialize adopted, the frames it read handled first, its splitter's partial frame kept.
 */
export function serveStdio(server: StdioServer, handover?: Handover): Dispatcher {
  const input = process.stdin;
  const writer = new FrameWriter(process.stdout, (paused) =>
    paused ? input.pause() : input.resume(),
  );
  let stoppedBy: StopSignal | null = null;
  const dispatcher = new Dispatcher({
    ...server,
    write: (line, kind) => writer.write(line, kind),
    onStopped: (deadline, finished) => {
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, deadline - FLUSH_MARGIN_MS - Date.now()));
      });
      void Promise.race([writer.flush(), bound]).then(() => {
        clearTimeout(timer);
        exitBy(deadline, stopExitCode(stoppedBy, finished));
      });
    },
  });
  // SIGTERM, SIGINT, SIGHUP: a shutdown without an answer, as at EOF (stop-signals.ts).
  onStopSignal((signal) => {
    stoppedBy = signal;
    dispatcher.endOfInput();
  });
  // The starter's initialize first: it came before anything this dispatcher sees.
  if (handover?.initialized) {
    const { id, capabilities } = handover.initialized;
    dispatcher.adoptInitialize(id, capabilities);
  }
  // Then its session.create: the lazy handle it answered is this child's attachment.
  if (handover?.created) {
    dispatcher.adoptAnswered(handover.created.id);
    server.state.attachment = { session_id: handover.created.sessionId, saved: false };
  }
  // A client that closed its end of stdout can never be answered: it is gone, as at EOF, and
  // the turn it started stops (a streaming command as an interrupt) instead of running on.
  writer.whenGone(() => dispatcher.endOfInput());
  if (handover?.outputGone) writer.gone();
  const splitter = handover?.splitter ?? new FrameSplitter(LIMITS.frame_bytes);
  const handle = (event: FrameEvent) => dispatcher.handle(event);
  input.on("data", (chunk: Buffer) => splitter.each(chunk, handle));
  input.on("end", () => {
    for (const event of splitter.end()) dispatcher.handle(event);
    dispatcher.endOfInput();
  });
  if (!handover) return dispatcher;
  for (const event of handover.events) dispatcher.handle(event);
  // Its end was the starter's: it is not emitted again.
  if (handover.ended) dispatcher.endOfInput();
  else input.resume();
  return dispatcher;
}

import { realpathSync } from "node:fs";
import { LIMITS } from "../protocol/constants.js";
import { FrameSplitter } from "../protocol/framing.js";
import { resolveHome } from "../store/home.js";
import { Dispatcher } from "./dispatcher.js";
import type { HandlerTable } from "./handler.js";
import { buildHandlers } from "./handlers/index.js";
import { childEnvironment } from "./secret-env.js";
import { createState, type ServerState } from "./state.js";
import { FrameWriter } from "./writer.js";

/**
 * `mc-agent stdio`: the backend child. stdin carries requests, stdout only frames.
 * `handedOver`: what bin/mc-agent.js read from the launcher's fd 3 (credentials), if anything.
 */
export function runStdio(handedOver: string | null = null): void {
  const env = childEnvironment(handedOver);
  const state = createState(realpathSync(process.cwd()), resolveHome(env), env);
  const testMethods = env.MC_AGENT_TEST_METHODS === "1";
  serveStdio({ state, handlers: buildHandlers(state, { testMethods }), testMethods });
}

export interface StdioServer {
  state: ServerState;
  handlers: HandlerTable;
  testMethods: boolean;
  /** The lifetime bound (default `limits.child_requests`); test fakes lower it. */
  childRequests?: number;
}

/**
 * Serves the protocol on this process's stdin and stdout with the given handlers, until
 * shutdown or EOF; then exits 0 once stdout has been flushed.
 */
export function serveStdio(server: StdioServer): void {
  const input = process.stdin;
  const writer = new FrameWriter(process.stdout, (paused) =>
    paused ? input.pause() : input.resume(),
  );
  const dispatcher = new Dispatcher({
    ...server,
    write: (line, kind) => writer.write(line, kind),
    onStopped: () => {
      void writer.flush().then(() => process.exit(0));
    },
  });
  const splitter = new FrameSplitter(LIMITS.frame_bytes);
  input.on("data", (chunk: Buffer) => {
    for (const event of splitter.push(chunk)) dispatcher.handle(event);
  });
  input.on("end", () => {
    for (const event of splitter.end()) dispatcher.handle(event);
    dispatcher.endOfInput();
  });
}

import { realpathSync } from "node:fs";
import { Readable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { exitBy } from "../process/exit.js";
import { childEnvironment } from "../process/secret-env.js";
import { onStopSignal, type StopSignal, stopExitCode } from "../process/stop-signals.js";
import { LIMITS } from "../protocol/constants.js";
import { resolveHome } from "../store/home.js";
import { acpAgent } from "./agent.js";
import { clientToolHostFactory } from "./client-tools.js";
import { boundedLines, SDK_LINE_BYTES } from "./line-bound.js";
import { stdoutSink } from "./stdout-sink.js";

/** The part of cleanup_ms left for the exit after the sessions' close (as the child's drain). */
const CLOSE_MARGIN_MS = 150;

/**
 * `mc-agent acp`: an Agent Client Protocol agent on stdin/stdout (docs/acp.md), our engine
 * in-process. `handedOver`: the credentials bin/mc-agent.js read from the launcher's fd 3.
 * stdout carries only ACP messages; logs go to stderr (MC_LOG).
 */
export function runAcp(handedOver: string | null = null): void {
  const env = childEnvironment(handedOver);
  const cwd = realpathSync(process.cwd());
  const { app, sessions } = acpAgent({
    cwd,
    home: resolveHome(env),
    env,
    toolHost: clientToolHostFactory,
  });
  let stopping = false;
  let stoppedBy: StopSignal | null = null;
  // EOF (the editor gone or closing us), stdout closed, or a stop signal: every running prompt
  // is interrupted and saved, every lock released, every MCP server stopped, then the process
  // exits, within cleanup_ms as a child does (after a signal, 128 + its number if the cleanup
  // overran: stop-signals.ts).
  const stop = () => {
    if (stopping) return;
    stopping = true;
    const deadline = Date.now() + LIMITS.cleanup_ms;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), LIMITS.cleanup_ms - CLOSE_MARGIN_MS);
    });
    const closed = sessions.closeAll().then(() => true);
    void Promise.race([closed, bound]).then((finished) => {
      clearTimeout(timer);
      exitBy(deadline, stopExitCode(stoppedBy, finished));
    });
  };
  onStopSignal((signal) => {
    stoppedBy = signal;
    stop();
  });
  const input = (Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>).pipeThrough(
    boundedLines(),
  );
  const stream = ndJsonStream(stdoutSink(stop), input, { maxMessageBytes: SDK_LINE_BYTES });
  const connection = app.connect(stream);
  void connection.closed.then(stop);
}

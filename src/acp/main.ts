import { realpathSync } from "node:fs";
import { Readable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { LIMITS } from "../protocol/constants.js";
import { exitBy } from "../server/exit.js";
import { childEnvironment } from "../server/secret-env.js";
import { resolveHome } from "../store/home.js";
import { acpAgent } from "./agent.js";
import { clientToolHostFactory } from "./client-tools.js";
import { boundedLines, SDK_LINE_BYTES } from "./line-bound.js";
import { stdoutSink } from "./stdout-sink.js";

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
  // EOF (the editor gone or closing us), or stdout closed: every running prompt is interrupted
  // and saved, every lock released, then the process exits, within cleanup_ms as a child does.
  const stop = () => {
    if (stopping) return;
    stopping = true;
    const deadline = Date.now() + LIMITS.cleanup_ms;
    void sessions.closeAll().then(() => exitBy(deadline));
  };
  const input = (Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>).pipeThrough(
    boundedLines(),
  );
  const stream = ndJsonStream(stdoutSink(stop), input, { maxMessageBytes: SDK_LINE_BYTES });
  const connection = app.connect(stream);
  void connection.closed.then(stop);
}

import { realpathSync } from "node:fs";
import type { Stream } from "@agentclientprotocol/sdk";
import { exitBy } from "../process/exit.js";
import { childEnvironment } from "../process/secret-env.js";
import { onStopSignal, type StopSignal, stopExitCode } from "../process/stop-signals.js";
import { LIMITS } from "../protocol/constants.js";
import { childInputs, turnFactsOf } from "../server/engine-face.js";
import { resolveHome } from "../store/home.js";
import { acpAgent } from "./agent.js";
import { agentInput } from "./agent-input.js";
import { clientToolHostFactory } from "./client-tools.js";
import { type EngineFacts, findEngineFacts } from "./engine-facts.js";
import type { AcpHandover } from "./starter.js";
import { stdoutSink } from "./stdout-sink.js";

/**
 * The facts the first engine adopts: the starter's, or found here with this bundle's code when
 * the starter left them to the agent (the probe memo likely answers: starter.ts).
 */
function firstEngineFacts(
  handover: AcpHandover | undefined,
  env: NodeJS.ProcessEnv,
): { engineFacts?: EngineFacts } {
  const found =
    handover?.engineFacts ??
    (handover?.engineFactsLater ? findEngineFacts({ childInputs, turnFactsOf }, env) : undefined);
  return found ? { engineFacts: found } : {};
}

/** The part of cleanup_ms left for the exit after the sessions' close (as the child's drain). */
const CLOSE_MARGIN_MS = 150;

/**
 * `mc-agent acp`: an Agent Client Protocol agent on stdin/stdout (docs/acp.md), our engine
 * in-process. `handedOver`: the credentials src/entry.ts read from the launcher's fd 3.
 * `handover`: what the starter read (and answered) before this bundle loaded (starter.ts).
 * stdout carries only ACP messages; logs go to stderr (MC_LOG).
 */
export function runAcp(handedOver: string | null = null, handover?: AcpHandover): void {
  const env = handover?.env ?? childEnvironment(handedOver);
  const cwd = realpathSync(process.cwd());
  const { app, sessions } = acpAgent({
    cwd,
    home: resolveHome(env),
    env,
    toolHost: clientToolHostFactory,
    ...firstEngineFacts(handover, env),
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
  // The starter's answer to the first initialize: the SDK's own answer to it is not written
  // again, and the lines behind it wait for that answer (agent-input.ts, stdout-sink.ts).
  let release = () => {};
  const held = handover?.answered
    ? new Promise<void>((resolve) => {
        release = resolve;
      })
    : null;
  const replayed = handover?.answered
    ? { line: handover.answered.line, answered: () => release() }
    : undefined;
  const output = stdoutSink(stop, replayed);
  handover?.stopWatching?.();
  const input = agentInput(handover, held, output.send);
  // The SDK's connection reads its stream through `getReader()` and writes it through
  // `getWriter()`, nothing else (2.4: `receive`, `sendMessage`, `close`), and takes any object
  // with both ends as one: these two are ndJsonStream's work without web streams (agent-input.ts).
  const stream = { readable: input, writable: output } as unknown as Stream;
  const connection = app.connect(stream);
  void connection.closed.then(stop);
  if (handover?.outputGone) stop();
}

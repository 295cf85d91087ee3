import { ChildSandbox } from "../../agent/sandbox/index.js";
import { sandboxNetworkHint } from "../../agent/sandbox/network-hint.js";
import type { ServerState } from "../state.js";
import type { TurnFacts } from "../turn-facts.js";

/**
 * The child's sandbox (docs/tools.md, "Found out once per child"), made before anything else
 * of the handlers, on the network setting the global settings file most likely holds, and
 * with `probeNow` its probe started at once: an `initialize` negotiating `turn` waits for that
 * probe, which runs in a process of its own (10-20 ms of bwrap) while the child reads and
 * validates its settings and builds its handlers, instead of after them. Call `confirmNetwork`
 * with the validated setting before serving (a guess that was wrong is probed again).
 * `adopted`: what the starter probed, or is probing (src/server/turn-facts.ts): not probed again,
 * and waited for by the shutdown. `later`: its probes have not started (the probe memo answered
 * the engine's initialize: `mc-agent acp`, turns.ts): they start when this sandbox first starts.
 */
export function childSandbox(
  state: ServerState,
  probeNow: boolean,
  adopted?: TurnFacts,
  later = false,
): ChildSandbox {
  const sandbox = new ChildSandbox({
    workspace: state.cwd,
    home: state.home,
    env: state.env,
    network: sandboxNetworkHint(state.home),
  });
  if (adopted) {
    sandbox.adopt(later ? () => adopted.sandbox : (adopted.probed ?? adopted.sandbox));
    // The starter's probe rewrites the probe memo once it ends (turn-facts.ts): a shutdown waits
    // for it within its cleanup bound, so that a child stopped before its probe ended still
    // corrects a memo found wrong, instead of leaving it to mislead the next start (and one
    // whose probes never started runs them then).
    state.closers.push(() => adopted.sandbox.then(() => {}));
  }
  if (probeNow) void sandbox.start();
  return sandbox;
}

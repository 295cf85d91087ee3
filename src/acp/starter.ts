import { realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { memoMayName } from "../agent/sandbox/probe-memo.js";
import { privateCacheRoot } from "../boot/compile-cache.js";
import { readEarly } from "../boot/early-input.js";
import { type OutputWatch, writeAnswer } from "../boot/output-watch.js";
import { log } from "../process/log.js";
import { childEnvironment } from "../process/secret-env.js";
import { resolveHome } from "../store/home.js";
import { glanceCredentials } from "./credentials-glance.js";
import { type EngineFacts, type EngineFactsSource, findEngineFacts } from "./engine-facts.js";
import { authMethodsOf, initializeResult, resultLine } from "./initialize-answer.js";
import { plainInitialize } from "./initialize-check.js";
import type { AcpStarterFacts } from "./starter-facts.js";

/**
 * The first thing `mc-agent acp` runs: a few kilobytes, neither the ACP SDK nor zod, built into
 * dist/child/acp-starter.cjs with its facts inlined (scripts/bundle.js). It reads the editor's
 * first line and, when it is an `initialize` the hand check takes (initialize-check.ts) and its
 * auth methods are settled without zod (`auth.terminal` offered, or the credential glance of
 * credentials-glance.ts settles it), writes the answer initialize-answer.ts builds, the SDK's
 * handler's own. Then it loads the agent and hands it every byte it read: the SDK reads that
 * initialize too (its connection refuses everything before one) and answers it again, and that
 * answer, the same bytes, is not written (agent-input.ts, stdout-sink.ts). An editor sees its
 * initialize result about a bare Node start after its spawn instead of after the SDK, its
 * schemas and the engine have loaded (docs/acp.md, "Start-up"; docs/benchmarks.md).
 * The first line is read from fd 0 and the answer written to fd 1 directly (boot/early-input.ts,
 * boot/output-watch.ts `writeAnswer`): Node's stdin and stdout streams are made by the agent.
 * Anything else (another first line, an initialize left to the SDK, a stdin not readable that
 * way) is the agent's alone, as if it had started without this.
 * `MC_AGENT_FAST_START=0` hands over before reading anything, as the stdio child's starter.
 */

/** What the agent takes over from the starter (main.ts `runAcp`). */
export interface AcpHandover extends OutputWatch {
  /** The agent's environment, the handed-over credentials in it (secret-env.ts), made once. */
  env: NodeJS.ProcessEnv;
  /** Every byte read from stdin, in order. */
  read: Buffer[];
  /** Whether stdin ended behind them. */
  ended: boolean;
  /** The answer written to the first line, and that line's length with its LF; or null. */
  answered: { line: string; lineBytes: number } | null;
  /**
   * What the first engine's initialize finds out (its sandbox's probe, git), started once the
   * first line was answered or left to the SDK: adopted by the first engine of this cwd.
   */
  engineFacts?: EngineFacts;
  /**
   * Set instead when the probe memo likely answers for this workspace: nothing would run early,
   * so the agent finds them with its own bundle's code, from the code cache (main.ts).
   */
  engineFactsLater?: boolean;
}

/** Loads the agent; what it returns serves stdin and stdout from the handover on. */
type AgentLoader = () => Promise<(handover: AcpHandover) => void>;

/** Inlined by scripts/bundle.js; undefined where this module runs unbundled (then no fast path). */
declare const MC_ACP_STARTER_FACTS: AcpStarterFacts | undefined;

/** The longest first line the starter looks at; a longer one is the SDK's (line-bound.ts). */
const FIRST_LINE_BYTES = 64 * 1024;
const LF = 0x0a;

export function startAcpAgent(
  handedOver: string | null,
  load: AgentLoader,
  env: NodeJS.ProcessEnv = process.env,
): void {
  const facts = typeof MC_ACP_STARTER_FACTS === "undefined" ? undefined : MC_ACP_STARTER_FACTS;
  const fast = facts !== undefined && env.MC_AGENT_FAST_START !== "0";
  const handover: AcpHandover = {
    env: childEnvironment(handedOver),
    read: [],
    ended: false,
    answered: null,
    outputGone: false,
  };
  if (!fast) {
    void handOver(load, handover);
    return;
  }
  // Read before anything makes process.stdin (boot/early-input.ts): until a whole first line
  // (or as much as the starter looks at), the end, or a stdin not readable that way.
  let size = 0;
  const read = readEarly((chunk) => {
    handover.read.push(chunk);
    size += chunk.length;
    return chunk.includes(LF) || size >= FIRST_LINE_BYTES;
  });
  handover.ended = read === "end";
  if (read === "unreadable") return void handOver(load, handover);
  // A failed answer leaves the initialize to the SDK, as any line the starter does not answer.
  void decide(facts, handover)
    .catch(() => {})
    .then(() => handOver(load, handover));
}

/**
 * Answers the first line when it can; then starts the first engine's facts: after the answer,
 * which a spawn would hold back, and before the agent's load, which holds the loop for longer
 * than the probe's process takes on another core.
 */
async function decide(facts: AcpStarterFacts, handover: AcpHandover): Promise<void> {
  const bytes = Buffer.concat(handover.read);
  const lf = bytes.subarray(0, FIRST_LINE_BYTES).indexOf(LF);
  if (lf !== -1) await answer(bytes.subarray(0, lf), facts, handover);
  if (memoLikely()) handover.engineFactsLater = true;
  else handover.engineFacts = engineFactsAhead(handover.env);
}

/**
 * Whether the probe memo names this workspace (agent/sandbox/probe-memo.ts `memoMayName`): then
 * the first engine answers from it and its probe runs after the session's answer, so finding
 * its facts here would start nothing early, only compile dist/child/turn-facts.cjs (34 KB, its
 * functions on first call) on the path to that answer, which the agent's cached code does not.
 */
function memoLikely(): boolean {
  try {
    const root = privateCacheRoot();
    return root !== null && memoMayName(root, realpathSync(process.cwd()));
  } catch {
    return false;
  }
}

/** Answers the first line when it is an initialize the starter can answer as the SDK would. */
async function answer(line: Buffer, facts: AcpStarterFacts, handover: AcpHandover) {
  const initialize = plainInitialize(line);
  if (initialize === null) return;
  const where = { cwd: process.cwd(), home: resolveHome(handover.env), env: handover.env };
  const glanced = initialize.terminal ? false : glanceCredentials(where, facts.defaults);
  if (glanced === undefined) return;
  const methods = await authMethodsOf(initialize.terminal, () => glanced, where.home);
  const text = resultLine(initialize.id, initializeResult(facts.protocolVersion, methods));
  // A reader already gone (EPIPE) is the agent's to handle once it has loaded.
  writeAnswer(handover, text);
  handover.answered = { line: text, lineBytes: line.length + 1 };
  log("debug", "acp: the starter answered initialize");
}

/**
 * Starts finding out what the first engine's initialize would (engine-facts.ts), with the
 * agent's inputs, from dist/child/turn-facts.cjs; undefined where that fails (the engine then
 * finds out itself, as before). When the probe memo answers for these inputs (`remembered`),
 * the probes wait: the engine answers from the memo and they run after the session's answer
 * (sessions.ts, agent.ts).
 */
function engineFactsAhead(env: NodeJS.ProcessEnv): EngineFacts | undefined {
  try {
    // Its own file beside this one (scripts/bundle.js), with the sandbox's and git's code.
    const found: EngineFactsSource = createRequire(__filename)("./turn-facts.cjs");
    return findEngineFacts(found, env);
  } catch {
    return undefined;
  }
}

/** Loads the agent and gives it the handover; a failed load fails the process as before. */
async function handOver(load: AgentLoader, handover: AcpHandover) {
  const serve = await load();
  serve(handover);
  handover.stopWatching?.();
}

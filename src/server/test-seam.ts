/**
 * The one seam through which tests change what a child does: built once, where the stdio child
 * starts serving (stdio.ts `runStdio`), from its environment, and handed to the handlers, which
 * pass each part to where it is used as a production option (bounds, the history's positional
 * write, the cache's commit steps, read_file's opener, a credential's write-back). Switches let
 * the tests reach paths a real provider or disk would take minutes, or luck, to reach.
 *
 * Each switch is honoured only by a test build (MC_AGENT_TEST_METHODS=1); a normal child builds
 * `PRODUCTION_SEAM`, with the contract's bounds and real writes, whatever its environment says.
 * The in-process ACP engine is never a test build: it gets `PRODUCTION_SEAM` (handlers/index.ts).
 */
import { DEFAULT_BOUNDS, type TransportBounds } from "../agent/providers/provider.js";
import type { FileOpener } from "../agent/tools/tool.js";
import { CONTRACT_HTTP_BOUNDS, type HttpBounds } from "../models/refresh/http.js";
import {
  VERDICT_MARGIN_NS,
  VERDICT_MIN_BYTES,
  type VerdictOptions,
} from "../sessions/verdicts/verdict-cache.js";
import type { PositionalWrite } from "../sessions/writing/writer.js";
import type { CommitSteps } from "../store/atomic-write.js";
import type { CredentialUpdateOptions } from "../store/credentials.js";
import {
  blockingOpener,
  faultyCommit,
  faultyPositionalWrite,
  parseAppendFault,
  pausedCredentialWrite,
} from "./test-faults.js";

export interface TestSeam {
  /** Whether the `test.*` methods are served (handlers/testing.ts). */
  testMethods: boolean;
  /** model.refresh's HTTP bounds. */
  httpBounds: HttpBounds;
  /** A model call's transport bounds. */
  turnBounds: TransportBounds;
  /** The factor on the turn engine's retry backoff (`Retry-After` is always honoured as sent). */
  retryBackoffScale: number;
  /** The verdict cache's ctime margin, minimum history size, and whether a listing waits for its writes. */
  verdictTiming: Pick<VerdictOptions, "marginNs" | "minBytes" | "sync">;
  /** Whether each turn is held after its history was closed until its signal fires. */
  holdTurnEnd: boolean;
  /** The positional write of history appends; absent: the writer's own (fs.write). */
  historyWrite?: PositionalWrite;
  /** The catalog cache's commit steps; absent: the file system's. */
  cacheCommit?: CommitSteps;
  /** How read_file opens a file; absent: checked first, never blocking. */
  readFileOpener?: FileOpener;
  /** A credential write-back per model.refresh; absent: the atomic write. */
  credentialWrite?: () => CredentialUpdateOptions;
  /** Called at each step of a session.manage mutation (delete, archive); absent: nothing. */
  manageStep?: (operation: string, step: string) => void;
}

/** What a normal child runs with: the contract's bounds, real writes, no test methods. */
export const PRODUCTION_SEAM: TestSeam = {
  testMethods: false,
  httpBounds: CONTRACT_HTTP_BOUNDS,
  turnBounds: DEFAULT_BOUNDS,
  retryBackoffScale: 1,
  verdictTiming: { marginNs: VERDICT_MARGIN_NS, minBytes: VERDICT_MIN_BYTES, sync: false },
  holdTurnEnd: false,
};

/** The child's seam: `PRODUCTION_SEAM` unless MC_AGENT_TEST_METHODS=1 makes it a test build. */
export function testSeamFor(env: NodeJS.ProcessEnv): TestSeam {
  if (env.MC_AGENT_TEST_METHODS !== "1") return PRODUCTION_SEAM;
  const appendFault = parseAppendFault(env.MC_AGENT_TEST_APPEND_FAULT);
  const commitFault = env.MC_AGENT_TEST_COMMIT_FAULT;
  const credentialPause = env.MC_AGENT_TEST_CREDENTIAL_PAUSE;
  return {
    testMethods: true,
    httpBounds: httpBounds(env),
    turnBounds: turnBounds(env),
    retryBackoffScale: (positiveInteger(env.MC_AGENT_TEST_BACKOFF_PERCENT) ?? 100) / 100,
    verdictTiming: verdictTiming(env),
    // MC_AGENT_TEST_HOLD_TURN_END=1: the window between a turn's last record and its result is
    // otherwise a few microtasks, which a test cannot aim at: held, an interrupt sent once the
    // lock is gone lands in it for certain.
    holdTurnEnd: env.MC_AGENT_TEST_HOLD_TURN_END === "1",
    ...(appendFault ? { historyWrite: faultyPositionalWrite(appendFault) } : {}),
    ...(commitFault === "folder_sync_fails" || commitFault === "rename_outcome_unknown"
      ? { cacheCommit: faultyCommit(commitFault) }
      : {}),
    ...(env.MC_AGENT_TEST_BLOCKING_OPEN === "1" ? { readFileOpener: blockingOpener } : {}),
    ...(credentialPause ? { credentialWrite: () => pausedCredentialWrite(credentialPause) } : {}),
    ...manageKill(env.MC_AGENT_TEST_MANAGE_KILL),
  };
}

/**
 * MC_AGENT_TEST_MANAGE_KILL=<method>:<step> (e.g. `session.delete:committed`): the child sends
 * itself SIGKILL at that step of that session.manage mutation, a kill -9 at an exact moment
 * (src/sessions/manage/, the steps each mutation names), which a timer could only hit by luck.
 */
function manageKill(raw: string | undefined): Pick<TestSeam, "manageStep"> {
  if (raw === undefined || !/^session\.[a-z]+:[a-z]+$/.test(raw)) return {};
  return {
    manageStep: (operation, step) => {
      if (`${operation}:${step}` === raw) process.kill(process.pid, "SIGKILL");
    },
  };
}

/**
 * The contract's 300 s / 30 s wall clocks and 10 s connect bound, shortened by
 * MC_AGENT_TEST_HTTP_WALL_MS (both wall clocks), MC_AGENT_TEST_ENRICHMENT_WALL_MS (the
 * enrichment one alone; it wins, so that a test of a slow models.dev need not also put the
 * provider's answer under a bound a loaded machine can miss) and MC_AGENT_TEST_CONNECT_MS
 * (positive integers, milliseconds).
 */
function httpBounds(env: NodeJS.ProcessEnv): HttpBounds {
  const wall = positiveInteger(env.MC_AGENT_TEST_HTTP_WALL_MS);
  const enrichment = positiveInteger(env.MC_AGENT_TEST_ENRICHMENT_WALL_MS) ?? wall;
  const connect = positiveInteger(env.MC_AGENT_TEST_CONNECT_MS);
  return {
    providerMs: wall ?? CONTRACT_HTTP_BOUNDS.providerMs,
    enrichmentMs: enrichment ?? CONTRACT_HTTP_BOUNDS.enrichmentMs,
    connectMs: connect ?? CONTRACT_HTTP_BOUNDS.connectMs,
  };
}

/**
 * A model call's 10 s connect and 300 s idle bounds, shortened by MC_AGENT_TEST_CONNECT_MS (the
 * same switch as refresh's) and MC_AGENT_TEST_IDLE_MS (positive integers, milliseconds).
 */
function turnBounds(env: NodeJS.ProcessEnv): TransportBounds {
  return {
    connectMs: positiveInteger(env.MC_AGENT_TEST_CONNECT_MS) ?? DEFAULT_BOUNDS.connectMs,
    idleMs: positiveInteger(env.MC_AGENT_TEST_IDLE_MS) ?? DEFAULT_BOUNDS.idleMs,
  };
}

/**
 * MC_AGENT_TEST_VERDICT_MARGIN_MS (a nonnegative integer; 0 lets a case's fresh histories be
 * cached at once, so that the kit's cases can run against a cache their own first listing
 * wrote) sets the 2 s ctime margin, and with it set, histories of any size use the cache (the
 * kit's small ones too), not only those of at least 8 KiB. MC_AGENT_TEST_VERDICT_SYNC=1 makes
 * each listing step wait for its cache writes (so that the next request finds them).
 * MC_AGENT_VERDICTS=off, which disables the cache in any build, is no test switch
 * (handlers/sessions.ts).
 */
function verdictTiming(env: NodeJS.ProcessEnv): TestSeam["verdictTiming"] {
  const raw = env.MC_AGENT_TEST_VERDICT_MARGIN_MS;
  const margin = raw !== undefined && /^[0-9]{1,7}$/.test(raw) ? Number(raw) : null;
  return {
    marginNs: margin === null ? VERDICT_MARGIN_NS : BigInt(margin) * 1_000_000n,
    minBytes: margin === null ? VERDICT_MIN_BYTES : 0n,
    sync: env.MC_AGENT_TEST_VERDICT_SYNC === "1",
  };
}

function positiveInteger(raw: string | undefined): number | null {
  const value = Number(raw);
  return raw !== undefined && Number.isInteger(value) && value > 0 ? value : null;
}

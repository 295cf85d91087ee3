import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_BOUNDS, type TransportBounds } from "../agent/providers/provider.js";
import { CONTRACT_HTTP_BOUNDS, type HttpBounds } from "../models/refresh/http.js";
import {
  VERDICT_MARGIN_NS,
  VERDICT_MIN_BYTES,
  type VerdictOptions,
} from "../sessions/verdicts/verdict-cache.js";
import { type AppendFault, parseAppendFault } from "../sessions/writing/append-fault.js";
import type { CommitFault } from "../store/atomic-write.js";
import type { CredentialUpdateOptions } from "../store/credentials.js";

/**
 * Switches that let the tests reach paths a real provider or disk would take minutes, or luck, to
 * reach. Each is honoured only by a test build (MC_AGENT_TEST_METHODS=1); a normal child always
 * runs with the contract's bounds and real commits, whatever its environment says.
 */

/**
 * The contract's HTTP bounds: 300 s / 30 s wall clocks and a 10 s connect bound. A test build may
 * shorten both wall clocks with MC_AGENT_TEST_HTTP_WALL_MS, the enrichment one alone with
 * MC_AGENT_TEST_ENRICHMENT_WALL_MS (it wins; a test of a slow models.dev must not also put the
 * provider's answer under a bound a loaded machine can miss), and the connect bound with
 * MC_AGENT_TEST_CONNECT_MS (positive integers, milliseconds).
 */
export function httpBounds(env: NodeJS.ProcessEnv, testMethods: boolean): HttpBounds {
  if (!testMethods) return CONTRACT_HTTP_BOUNDS;
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
 * A model call's transport bounds: 10 s connect, 300 s without a byte. A test build may shorten
 * the idle bound with MC_AGENT_TEST_IDLE_MS and the connect bound with MC_AGENT_TEST_CONNECT_MS
 * (the same switch as refresh's; positive integers, milliseconds).
 */
export function turnBounds(env: NodeJS.ProcessEnv, testMethods: boolean): TransportBounds {
  if (!testMethods) return DEFAULT_BOUNDS;
  return {
    connectMs: positiveInteger(env.MC_AGENT_TEST_CONNECT_MS) ?? DEFAULT_BOUNDS.connectMs,
    idleMs: positiveInteger(env.MC_AGENT_TEST_IDLE_MS) ?? DEFAULT_BOUNDS.idleMs,
  };
}

/**
 * The turn engine's retry backoff (500 ms, doubling) as a factor: a test build may scale it with
 * MC_AGENT_TEST_BACKOFF_PERCENT (a positive integer, percent), so that retry tests need not wait
 * seconds; `Retry-After` values are always honoured as sent.
 */
export function retryBackoffScale(env: NodeJS.ProcessEnv, testMethods: boolean): number {
  const percent = testMethods ? positiveInteger(env.MC_AGENT_TEST_BACKOFF_PERCENT) : null;
  return percent === null ? 1 : percent / 100;
}

/** A failure a test build injects at the cache commit (MC_AGENT_TEST_COMMIT_FAULT). */
export function commitFault(env: NodeJS.ProcessEnv, testMethods: boolean): CommitFault | null {
  const value = env.MC_AGENT_TEST_COMMIT_FAULT;
  if (!testMethods) return null;
  return value === "folder_sync_fails" || value === "rename_outcome_unknown" ? value : null;
}

/**
 * A write fault a test build injects into session history appends (MC_AGENT_TEST_APPEND_FAULT,
 * `<enospc|eio|short>:<record type>`, e.g. `enospc:assistant_message`), for machines where a
 * full tmpfs cannot be mounted. Pass it to `SessionWriter.acquire({ fault })`.
 */
export function appendFault(env: NodeJS.ProcessEnv, testMethods: boolean): AppendFault | null {
  if (!testMethods) return null;
  return parseAppendFault(env.MC_AGENT_TEST_APPEND_FAULT);
}

/**
 * MC_AGENT_TEST_HOLD_TURN_END=1: a test build holds every turn after its history was closed (its
 * lock removed) and before its result, until its signal fires (turn.interrupt, shutdown, EOF).
 * The window between a turn's last record and its result is otherwise a few microtasks, which a
 * test cannot aim at: held, an interrupt sent once the lock is gone lands in it for certain.
 */
export function holdTurnEnd(env: NodeJS.ProcessEnv, testMethods: boolean): boolean {
  return testMethods && env.MC_AGENT_TEST_HOLD_TURN_END === "1";
}

/**
 * MC_AGENT_TEST_BLOCKING_OPEN=1: read_file opens its file blocking and unchecked, as before
 * issue 17 (regular-file.ts), so that a FIFO nobody writes holds a threadpool thread in the kernel
 * for good: the tests check with it that interrupt, shutdown and EOF still end the turn and the
 * child within `cleanup_ms`, whatever a tool is stuck in.
 */
export function blockingOpen(env: NodeJS.ProcessEnv, testMethods: boolean): boolean {
  return testMethods && env.MC_AGENT_TEST_BLOCKING_OPEN === "1";
}

/**
 * A pause in a credential file's write-back (MC_AGENT_TEST_CREDENTIAL_PAUSE, a folder): after
 * the first read and merge, the child creates `<folder>/paused` and waits for `<folder>/go`,
 * so that a test can have another process write the file right there (compare-and-retry).
 */
export function credentialWritePause(
  env: NodeJS.ProcessEnv,
  testMethods: boolean,
): CredentialUpdateOptions | undefined {
  const folder = env.MC_AGENT_TEST_CREDENTIAL_PAUSE;
  if (!testMethods || !folder) return undefined;
  return {
    beforeWrite: async (attempt) => {
      if (attempt !== 1) return;
      writeFileSync(join(folder, "paused"), "");
      while (!existsSync(join(folder, "go"))) await new Promise((r) => setTimeout(r, 10));
    },
  };
}

/**
 * The verdict cache's ctime margin (2 s) and whether a listing waits for its cache writes. A test
 * build may set the margin with MC_AGENT_TEST_VERDICT_MARGIN_MS (a nonnegative integer; 0 lets a
 * case's fresh histories be cached at once, so that the kit's cases can run against a cache
 * their own first listing wrote) and make each listing step wait for its writes with
 * MC_AGENT_TEST_VERDICT_SYNC=1 (so that the next request finds them); and with
 * MC_AGENT_TEST_VERDICT_MARGIN_MS set, histories of any size use the cache (the kit's small
 * ones too), not only those of at least 8 KiB. MC_AGENT_VERDICTS=off
 * disables the cache in any build (a bench's "no cache" side, and a way out).
 */
export function verdictOptions(env: NodeJS.ProcessEnv, testMethods: boolean): VerdictOptions {
  const raw = env.MC_AGENT_TEST_VERDICT_MARGIN_MS;
  const margin = testMethods && raw !== undefined && /^[0-9]{1,7}$/.test(raw) ? Number(raw) : null;
  return {
    enabled: env.MC_AGENT_VERDICTS !== "off",
    marginNs: margin === null ? VERDICT_MARGIN_NS : BigInt(margin) * 1_000_000n,
    sync: testMethods && env.MC_AGENT_TEST_VERDICT_SYNC === "1",
    minBytes: margin === null ? VERDICT_MIN_BYTES : 0n,
  };
}

function positiveInteger(raw: string | undefined): number | null {
  const value = Number(raw);
  return raw !== undefined && Number.isInteger(value) && value > 0 ? value : null;
}

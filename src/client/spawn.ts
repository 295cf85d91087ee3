import { spawn as spawnProcess } from "node:child_process";
import type { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import type { Capability } from "../protocol/capabilities.js";
import { LIMITS, SERVER_INFO } from "../protocol/constants.js";
import type { McpServerStatus } from "../protocol/schemas/mcp.js";
import { splitSecrets } from "./child-secrets.js";
import { Connection, type Tracer } from "./connection.js";
import { ClientError, isRemote, RemoteError } from "./errors.js";
import { decodeNegotiation, type Negotiated } from "./negotiate.js";
import { negotiate, optionalOf } from "./optional.js";

export interface SpawnOptions {
  /** The workspace: the child's cwd. */
  cwd: string;
  /**
   * The child's whole environment (default: this process's). Set MC_HOME here. For this
   * package's own child the provider keys in it travel over the child's fd 3 instead
   * (child-secrets.ts), so that its start-up environment never holds them.
   */
  env?: Record<string, string | undefined>;
  /** Any command that speaks the protocol (default: this package's `mc-agent stdio`). */
  command?: readonly string[];
  /** Exactly the capabilities to negotiate; nothing more is asked. */
  capabilities: readonly Capability[];
  /**
   * Asked for too, each on its own: the child keeps every one it offers (optional.ts). At most
   * MAX_OPTIONAL; the client sees which with `has`.
   */
  optional?: readonly Capability[];
  /** Sent as `initialize.client`. */
  client?: { name: string; version: string };
  /** The child's stderr (its logs), as text; discarded when absent. */
  stderr?: (text: string) => void;
  trace?: Tracer;
  /**
   * Receives `mcp.changed` (with `mcp` negotiated): an MCP server's new status (docs/mcp.md).
   * It must not throw.
   */
  onMcpChanged?: (status: McpServerStatus) => void;
}

/** This package's own child, from dist/src/client. */
export const DEFAULT_COMMAND: readonly string[] = [
  process.execPath,
  fileURLToPath(new URL("../../../bin/mc-agent.js", import.meta.url)),
  "stdio",
];

const NONE: ReadonlySet<Capability> = new Set();

/** Extra time past the child's cleanup bound before close() kills it. */
const KILL_GRACE_MS = 1000;

/** Starts one child and negotiates; on any failure the child is stopped before rejecting. */
export async function startChild(
  options: SpawnOptions,
): Promise<{ connection: Connection; negotiated: Negotiated }> {
  const optional = optionalOf(options);
  const [command, ...args] = options.command ?? DEFAULT_COMMAND;
  if (!command) throw new ClientError("spawn_failed", "The child command is empty.");
  // Our own child takes its credentials over fd 3, not in its environment; another command
  // gets the environment as given.
  const own = options.command === undefined;
  const { env, handedOver } = own
    ? await splitSecrets(options.env ?? process.env, options.cwd)
    : { env: options.env ?? process.env, handedOver: null };
  const proc = spawnProcess(command, args, {
    cwd: options.cwd,
    env,
    stdio: [
      "pipe",
      "pipe",
      options.stderr ? "pipe" : "ignore",
      ...(handedOver === null ? [] : ["pipe" as const]),
    ],
    // Its own process group: a terminal's Ctrl-C reaches the frontend, which cancels through
    // the protocol, instead of killing the child under it.
    detached: true,
  });
  const secrets = handedOver === null ? null : (proc.stdio[3] as Writable | null);
  if (secrets) {
    // A child that died at once has nobody reading: its exit is the failure reported.
    secrets.on("error", () => {});
    secrets.end(handedOver);
  }
  if (options.stderr) {
    const sink = options.stderr;
    proc.stderr?.setEncoding("utf8");
    proc.stderr?.on("data", (text: string) => sink(text));
  }
  let negotiated: Negotiated | null = null;
  // From an initialize answer on, the capabilities are exactly those that initialize asked for
  // (anything else fails decodeNegotiation and stops the child): an `mcp.changed` that follows
  // the answer in the same chunk is read before `negotiated` is set, and must not count as a
  // violation. A refused initialize leaves the child uninitialized (base-protocol §4).
  let answered: ReadonlySet<Capability> = NONE;
  const connection = new Connection(proc, {
    capabilities: () => negotiated?.capabilities ?? answered,
    ...(options.trace ? { trace: options.trace } : {}),
    onChildNotification: (notification) => {
      if (notification.method === "mcp.changed") options.onMcpChanged?.(notification.params.server);
    },
  });
  const initialize = async (capabilities: readonly Capability[]) => {
    const asked: ReadonlySet<Capability> = new Set(capabilities);
    const result = await connection.call(
      "initialize",
      {
        protocol_version: 1,
        client: options.client ?? { name: "mc-agent-client", version: SERVER_INFO.version },
        required_capabilities: [...capabilities],
      },
      {
        onAnswered: (ok) => {
          if (ok) answered = asked;
        },
      },
    );
    negotiated = decodeNegotiation(capabilities, result);
    return negotiated;
  };
  try {
    return { connection, negotiated: await negotiate(options.capabilities, optional, initialize) };
  } catch (error) {
    await stopChild(connection, LIMITS.cleanup_ms);
    if (isRemote(error, "unsupported_capability"))
      throw new RemoteError(
        "unsupported_capability",
        `The child does not offer every capability asked for (${options.capabilities.join(", ")}).`,
        "initialize",
      );
    throw error;
  }
}

/**
 * Polite stop: `shutdown`, then EOF; kills when the child has not exited within its cleanup
 * bound plus a grace. Every call still pending afterwards rejects as `closed`; later frames are
 * ignored.
 */
export async function stopChild(connection: Connection, cleanupMs: number): Promise<void> {
  connection.expectExit();
  if (!connection.alive) return connection.exited;
  const timer = setTimeout(() => connection.kill(), cleanupMs + KILL_GRACE_MS);
  // The connection stops reading by itself once shutdown is answered.
  const answered = connection.call("shutdown", {}).then(
    () => {},
    () => connection.kill(),
  );
  await Promise.race([answered.then(() => connection.exited), connection.exited]);
  connection.end(new ClientError("closed", "The client was closed."));
  await connection.exited;
  clearTimeout(timer);
}

import { AgentClient, type Capability, type SpawnOptions } from "../client/index.js";
import { SERVER_INFO } from "../protocol/constants.js";
import { UsageError } from "./args.js";
import { checkSettings } from "./config-check.js";
import type { Terminal } from "./terminal.js";

/**
 * Starts the backend child for the current folder, negotiating exactly what a command needs.
 * MC_AGENT_CHILD (a JSON array: command and arguments) points the CLI at another backend that
 * speaks the protocol; the default is this package's own `mc-agent stdio`.
 */
export async function connect(
  term: Terminal,
  capabilities: Capability[],
  overrides: {
    cwd?: string;
    env?: NodeJS.ProcessEnv;
    onMcpChanged?: SpawnOptions["onMcpChanged"];
    /** Asked for each on its own; the command does without those the child lacks. */
    optional?: Capability[];
  } = {},
): Promise<AgentClient> {
  const env = overrides.env ?? term.io.env;
  const command = childCommand(env.MC_AGENT_CHILD);
  const cwd = overrides.cwd ?? process.cwd();
  const client = await AgentClient.spawn({
    cwd,
    env,
    // Every command checks the settings before anything else (docs/cli.md).
    capabilities: [...new Set<Capability>([...capabilities, "settings.check"])],
    ...(overrides.optional ? { optional: overrides.optional } : {}),
    client: { name: "mc-agent-cli", version: SERVER_INFO.version },
    ...(command ? { command } : {}),
    ...(overrides.onMcpChanged ? { onMcpChanged: overrides.onMcpChanged } : {}),
    // The child's log goes to our stderr only when asked for (MC_LOG).
    ...(env.MC_LOG ? { stderr: (text: string) => term.io.err.write(text) } : {}),
  });
  try {
    await checkSettings(client, term, cwd);
  } catch (error) {
    await client.close();
    throw error;
  }
  return client;
}

/**
 * `connect` asking for `optional` too, each on its own (SpawnOptions.optional): a child that
 * offers only some of them (another backend, an older one) grants those, and the command does
 * without the rest (`session.manage`: the COST column, /status's cost, /rename).
 */
export function connectWith(
  term: Terminal,
  capabilities: Capability[],
  optional: Capability[],
  overrides: Parameters<typeof connect>[2] = {},
): Promise<AgentClient> {
  return connect(term, capabilities, { ...overrides, optional });
}

function childCommand(raw: string | undefined): string[] | null {
  if (raw === undefined || raw === "") return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (Array.isArray(parsed) && parsed.length > 0 && parsed.every((p) => typeof p === "string"))
      return parsed;
  } catch {}
  throw new UsageError('MC_AGENT_CHILD must be a JSON array of strings, e.g. ["mc-agent","stdio"]');
}

/** Runs `work` with a signal that Ctrl-C aborts; a second Ctrl-C exits at once. */
export async function interruptible<T>(
  term: Terminal,
  work: (signal: AbortSignal) => Promise<T>,
  onInterrupt?: () => void,
): Promise<T> {
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) {
      term.note("mc-agent: interrupted twice; exiting without waiting (aborted).");
      process.exit(1);
    }
    onInterrupt?.();
    controller.abort();
  };
  process.on("SIGINT", onSigint);
  try {
    return await work(controller.signal);
  } finally {
    process.off("SIGINT", onSigint);
  }
}

import { realpathSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { AgentContext, ClientCapabilities, McpServer } from "@agentclientprotocol/sdk";
import type { ToolHost } from "../agent/tools/tool-host.js";
import { EngineLink } from "./engine-link.js";
import { acpError } from "./errors.js";
import type { AcpSession } from "./session.js";

/**
 * The seam for the client's own file and terminal I/O (src/acp/client-tools.ts): given the
 * connection, what the client offered at initialize and the ACP session's ID, the host our tools
 * use for that session's turns, or undefined (our own tools do the I/O).
 */
export type ClientToolHostFactory = (
  client: AgentContext,
  capabilities: ClientCapabilities | undefined,
  sessionId: string,
  /** A command's terminal exists: the session shows it in the command's tool call. */
  onTerminal: (itemId: string | null, terminalId: string) => Promise<void>,
) => ToolHost | undefined;

export interface SessionsOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  toolHost?: ClientToolHostFactory;
}

/** Open sessions per connection; a client opening more gets `busy` until it closes some. */
export const MAX_SESSIONS = 64;
const LISTERS = 4;

/**
 * The connection's open ACP sessions, each with its own engine (our server for its cwd), and
 * what the client offered at initialize.
 */
export class Sessions {
  clientCapabilities: ClientCapabilities | undefined;
  private readonly open = new Map<string, AcpSession>();
  /** Engines that only list (session/list), by cwd: their cursors live there. */
  private readonly listers = new Map<string, Promise<EngineLink>>();

  constructor(private readonly options: SessionsOptions) {}

  /**
   * An engine for a cwd (canonical), started; the caller attaches it or closes it. A session's
   * engine gets its `mcpServers` (with config.json's); a listing engine passes none.
   */
  async engine(
    cwd: string,
    client: AgentContext,
    mcpServers?: readonly McpServer[],
  ): Promise<EngineLink> {
    if (this.open.size >= MAX_SESSIONS)
      throw acpError("busy", `At most ${MAX_SESSIONS} sessions can be open; close one first.`);
    const factory = this.options.toolHost;
    const link = new EngineLink({
      cwd,
      home: this.options.home,
      env: this.options.env,
      ...(mcpServers ? { mcpServers } : {}),
      // The client's own I/O when offered, and always the moment a call starts running.
      toolHost: (turn) => ({
        ...factory?.(client, this.clientCapabilities, turn.sessionId, async (item, terminal) =>
          this.open.get(turn.sessionId)?.showTerminal(item, terminal),
        ),
        callStarted: async (itemId) => this.open.get(turn.sessionId)?.showRunning(itemId),
      }),
    });
    await link.start();
    return link;
  }

  /** The listing engine of a cwd, kept for its cursors; the oldest of more than a few is closed. */
  lister(cwd: string, client: AgentContext): Promise<EngineLink> {
    let link = this.listers.get(cwd);
    if (!link) {
      link = this.engine(cwd, client);
      this.listers.set(cwd, link);
      link.catch(() => this.listers.delete(cwd));
      if (this.listers.size > LISTERS) {
        const [oldest, dropped] = this.listers.entries().next().value as [
          string,
          Promise<EngineLink>,
        ];
        this.listers.delete(oldest);
        void dropped.then(
          (engine) => engine.close(),
          () => {},
        );
      }
    }
    return link;
  }

  /** Registers a session; one already open under that ID is closed first (a second load). */
  async add(session: AcpSession): Promise<void> {
    await this.close(session.id);
    this.open.set(session.id, session);
  }

  get(id: string): AcpSession {
    const session = this.open.get(id);
    if (!session) throw acpError("session_missing", "No open session has that ID.");
    return session;
  }

  /** Interrupts its prompt, saves, releases its lock; nothing when it is not open. */
  async close(id: string): Promise<void> {
    const session = this.open.get(id);
    if (!session) return;
    this.open.delete(id);
    session.cancel();
    await session.engine.close();
  }

  /** Every session, as at EOF. */
  async closeAll(): Promise<void> {
    const listers = [...this.listers.values()].map((p) =>
      p.then(
        (e) => e.close(),
        () => {},
      ),
    );
    this.listers.clear();
    await Promise.all([...[...this.open.keys()].map((id) => this.close(id)), ...listers]);
  }
}

/**
 * The cwd as our child takes its own: absolute, resolved through symlinks, an existing folder.
 * Refused otherwise, without saying the path back.
 */
export function canonicalCwd(cwd: string): string {
  if (!isAbsolute(cwd) || cwd.includes("\u0000"))
    throw acpError("invalid_params", "The cwd must be an absolute path.");
  try {
    const real = realpathSync.native(cwd);
    if (statSync(real).isDirectory()) return real;
  } catch {}
  throw acpError("invalid_params", "The cwd is not an existing folder.");
}

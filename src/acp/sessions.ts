/**
 * The connection's ACP sessions: their engines, the bound on live ones, listing engines, the cwd rule.
 */
import { realpathSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { AgentContext, ClientCapabilities, McpServer } from "@agentclientprotocol/sdk";
import { SessionRules } from "../agent/rules/rule-book.js";
import type { ToolHost } from "../agent/tools/tool-host.js";
import type { MethodName, ParamsOf, ResultOf } from "../protocol/methods.js";
import type { EngineFacts } from "./engine-facts.js";
import { EngineLink } from "./engine-link.js";
import { acpError } from "./errors.js";
import type { AcpSession } from "./session.js";
import { SharedMcpServers } from "./shared-mcp.js";

/**
 * The seam for the client's own file and terminal I/O (src/acp/client-tools.ts): given the
 * connection, what the client offered at initialize and the ACP session's ID, the host our tools
 * use for that session's turns, or undefined (our own tools do the I/O).
 */
export type ClientToolHostFactory = (
  client: Pick<AgentContext, "request">,
  capabilities: ClientCapabilities | undefined,
  sessionId: string,
  /** A command's terminal exists: the session shows it in the command's tool call. */
  onTerminal: (itemId: string | null, terminalId: string) => Promise<void>,
) => ToolHost | undefined;

/** Where a session's engine serves: its cwd (canonical), client, servers and kept rules. */
interface SessionTarget {
  cwd: string;
  client: AgentContext;
  mcpServers: readonly McpServer[];
  sessionRules?: SessionRules;
}

export interface SessionsOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  toolHost?: ClientToolHostFactory;
  /** What the starter found out for the first engine of its cwd (engine-facts.ts). */
  engineFacts?: EngineFacts;
}

/**
 * Live engines of sessions per connection. Past it, the least recently used idle, saved session
 * is evicted (its engine closed, reopened on its next use); a client whose sessions are all
 * running, in use or unsaved gets `busy` until it closes one (docs/acp.md, "Many sessions").
 */
const MAX_SESSIONS = 64;
/** Sessions remembered per connection, evicted ones included; past it the oldest evicted is forgotten. */
const MAX_KNOWN_SESSIONS = 1024;
const LISTERS = 4;

/**
 * The connection's ACP sessions, each with its own engine (our server for its cwd) while live,
 * in the order of their last use, and what the client offered at initialize.
 */
export class Sessions {
  clientCapabilities: ClientCapabilities | undefined;
  /** Every known session, least recently used first (a use moves it to the end). */
  private readonly open = new Map<string, AcpSession>();
  /** Engines being started for sessions, not yet attached: they count against the bound. */
  private starting = 0;
  /** config.json's MCP servers, one set per workspace for all its sessions' engines. */
  private readonly sharedMcp = new SharedMcpServers();
  /** Engines that only list (session/list), by cwd: their cursors live there. */
  private readonly listers = new Map<string, Promise<EngineLink>>();

  /** The starter's findings until an engine of their cwd adopts them. */
  private engineFacts: EngineFacts | undefined;

  constructor(private readonly options: SessionsOptions) {
    this.engineFacts = options.engineFacts;
  }

  /**
   * An engine for a session of a cwd (canonical), started, and the answer to its first request
   * (the session's create, open or fork). It gets the session's `mcpServers` (with config.json's)
   * and its kept session rules. Makes room first: at the bound, the least recently used idle,
   * saved session is evicted. When the first request fails, or `vet` (asked once it answered)
   * gives a refusal, the engine is closed and that thrown: no engine outlives a session that did
   * not open.
   */
  async opened<M extends MethodName>(
    target: SessionTarget,
    method: M,
    params: ParamsOf<M>,
    vet: (engine: EngineLink) => Promise<Error | null> = async () => null,
  ): Promise<{ engine: EngineLink; answer: ResultOf<M> }> {
    const { cwd, client, mcpServers, sessionRules = new SessionRules() } = target;
    // Counted from its room made until it answered: a history's open may take a while.
    this.starting += 1;
    try {
      await this.makeRoom();
      const engine = await this.startEngine(cwd, client, { mcpServers, sessionRules });
      try {
        const answer = await engine.request(method, params);
        const refusal = await vet(engine);
        if (refusal) throw refusal;
        return { engine, answer };
      } catch (error) {
        await engine.close();
        throw error;
      }
    } finally {
      this.starting -= 1;
    }
  }

  private async startEngine(
    cwd: string,
    client: AgentContext,
    session?: { mcpServers: readonly McpServer[]; sessionRules: SessionRules },
  ): Promise<EngineLink> {
    const factory = this.options.toolHost;
    const turnFacts = this.adoptFacts(cwd);
    const link = new EngineLink({
      cwd,
      home: this.options.home,
      env: this.options.env,
      // Probes the memo answered for have not started (starter.ts): the engine answers from it.
      ...(turnFacts ? { turnFacts, memoAnswers: turnFacts.remembered !== null } : {}),
      ...(session ? { ...session, sharedMcp: this.sharedMcp } : {}),
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

  /**
   * The starter's findings for the first engine of the cwd they were found for, with the
   * agent's own home and environment; once (a later engine finds out for itself).
   */
  private adoptFacts(cwd: string) {
    const found = this.engineFacts;
    if (found === undefined) return undefined;
    const { workspace, home, env } = found.inputs;
    if (workspace !== cwd || home !== this.options.home || env !== this.options.env)
      return undefined;
    this.engineFacts = undefined;
    return found.facts;
  }

  /**
   * Evicts least recently used idle, saved sessions (never one a request holds: `using`) until
   * the engines being started fit, or refuses `busy` evicting none. The victims are chosen and
   * their slots taken at once, before any await: a request that evicted one keeps its slot, and
   * another one arriving meanwhile must find its own (before, both could end `busy`). At the
   * bound the choice waits for the event loop's turn first: the SDK reaches a handler after one
   * step per handler registered before it, so a prompt read in the same chunk as this request
   * may not hold its session yet; every line already read has reached its handler by then, and
   * a session with a request in flight is not idle.
   */
  private async makeRoom(): Promise<void> {
    if (this.excess() <= 0) return;
    await new Promise((resolve) => setImmediate(resolve));
    const excess = this.excess();
    if (excess <= 0) return;
    const victims = [...this.open.values()].filter((s) => s.evictable).slice(0, excess);
    if (victims.length < excess)
      throw acpError(
        "busy",
        `At most ${MAX_SESSIONS} sessions can be open while each runs, is in use or is unsaved; close one first.`,
      );
    await Promise.all(victims.map((victim) => victim.evict()));
  }

  /** Engines past the bound: the live ones plus those being started, less MAX_SESSIONS. */
  private excess(): number {
    const live = [...this.open.values()].filter((s) => s.live).length;
    return live + this.starting - MAX_SESSIONS;
  }

  /** The listing engine of a cwd, kept for its cursors; the oldest of more than a few is closed. */
  lister(cwd: string, client: AgentContext): Promise<EngineLink> {
    let link = this.listers.get(cwd);
    if (!link) {
      link = this.startEngine(cwd, client);
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

  /**
   * Registers a session; one already open under that ID is closed first (a second load). Past
   * the bound of known sessions the least recently used evicted one is forgotten.
   */
  async add(session: AcpSession): Promise<void> {
    await this.close(session.id);
    this.open.set(session.id, session);
    while (this.open.size > MAX_KNOWN_SESSIONS) {
      const forgotten = [...this.open.values()].find((s) => !s.live);
      if (!forgotten) break;
      this.open.delete(forgotten.id);
    }
  }

  /** A known session or undefined; not a use (session/delete). */
  find(id: string): AcpSession | undefined {
    return this.open.get(id);
  }

  /** A known session, evicted or not; not a use (session/cancel, session/close). */
  get(id: string): AcpSession {
    const session = this.open.get(id);
    if (!session) throw acpError("session_missing", "No open session has that ID.");
    return session;
  }

  /**
   * Holds a known session from the moment a request about it is read, before the handler's
   * first await: a request read after it cannot evict it meanwhile (first come, first served).
   * Nothing for an unknown ID (the handler answers that). Returns the release.
   */
  hold(id: string): () => void {
    return this.open.get(id)?.hold() ?? (() => {});
  }

  /**
   * `work` on a session: it becomes the most recently used, an evicted one gets its engine again
   * (session.open of its history, then its model and effort restored), and it is held from
   * this call until `work` ends, so no other request's room is made by evicting it meanwhile
   * (its prompt would find no engine).
   */
  async using<T>(id: string, work: (session: AcpSession) => Promise<T>): Promise<T> {
    const session = this.get(id);
    this.open.delete(id);
    this.open.set(id, session);
    const release = session.hold();
    try {
      await session.reopened(async () => {
        const { engine } = await this.opened(session, "session.open", { id });
        return engine;
      });
      return await work(session);
    } finally {
      release();
    }
  }

  /** Interrupts its prompt, saves, releases its lock; nothing when it is not open. */
  async close(id: string): Promise<void> {
    const session = this.open.get(id);
    if (!session) return;
    this.open.delete(id);
    session.cancel();
    await session.closeEngine();
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

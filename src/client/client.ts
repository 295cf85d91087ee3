import type { Capability } from "../protocol/capabilities.js";
import { METHODS, type MethodName, type ParamsOf, type ResultOf } from "../protocol/methods.js";
import type { McpServerStatus } from "../protocol/schemas/mcp.js";
import type { SessionEntry, SessionEvent } from "../protocol/schemas/sessions.js";
import type { TurnResult } from "../protocol/schemas/turns.js";
import {
  type CatalogRead,
  type CatalogStatusRead,
  readCatalog,
  readCatalogStatus,
} from "./catalog.js";
import type { CallOptions, Connection } from "./connection.js";
import { type DiscoveryOptions, type DiscoveryResult, discoverSessions } from "./discovery.js";
import { ClientError } from "./errors.js";
import { readHistory, readSubagentHistory } from "./history.js";
import { archivedSessions } from "./manage.js";
import type { Negotiated } from "./negotiate.js";
import { readRecord, readSubagentRecord } from "./record.js";
import { type CatalogGuard, type RefreshReport, refreshProvider, selectModel } from "./refresh.js";
import { previewRevert, type RevertOptions, revertTurn } from "./revert.js";
import { type SearchHit, type SearchOptions, searchSessions } from "./search.js";
import { type SpawnOptions, startChild, stopChild } from "./spawn.js";
import {
  runTurn,
  type StartTurnOptions,
  startTurn,
  type TurnHandle,
  type TurnOptions,
} from "./turn.js";

/**
 * A typed handle on one backend child. Every method of the protocol is reachable through
 * `call` (typed from the method table); the client-flow helpers below get the hard parts right.
 * `restart()` replaces the child with a fresh one negotiated the same way (discovery does this
 * by itself on `child_exhausted`); guards from an earlier child are then stale.
 */
export class AgentClient {
  /** Bumped by every refresh sent and every restart: guards from before are stale. */
  private guardEpoch = 0;
  private closing: Promise<void> | null = null;
  /** How many times this client replaced its child. */
  restarts = 0;

  private constructor(
    private readonly options: SpawnOptions,
    private connection: Connection,
    private negotiated: Negotiated,
  ) {}

  /** Starts a child (default: this package's) and negotiates exactly `capabilities`. */
  static async spawn(options: SpawnOptions): Promise<AgentClient> {
    const { connection, negotiated } = await startChild(options);
    return new AgentClient(options, connection, negotiated);
  }

  get limits(): Negotiated["limits"] {
    return this.negotiated.limits;
  }
  get extensions(): Negotiated["extensions"] {
    return this.negotiated.extensions;
  }
  get capabilities(): ReadonlySet<Capability> {
    return this.negotiated.capabilities;
  }
  get server(): Negotiated["server"] {
    return this.negotiated.server;
  }
  /** Requests this child has been sent (the child admits at most `limits.child_requests`). */
  get requestsSent(): number {
    return this.connection.sent;
  }
  get pid(): number | undefined {
    return this.connection.pid;
  }

  has(capability: Capability): boolean {
    return this.negotiated.capabilities.has(capability);
  }

  /** One request, typed by the method table. Rejects with RemoteError or ClientError. */
  call<M extends MethodName>(
    method: M,
    params: ParamsOf<M>,
    options: CallOptions = {},
  ): Promise<ResultOf<M>> {
    const capability = METHODS[method].capability;
    if (capability && !this.has(capability))
      return Promise.reject(
        new ClientError("not_negotiated", `${method} needs the ${capability} capability.`),
      );
    return this.connection.call(method, params, options);
  }

  /** Stops the current child and starts a fresh one with the same options. */
  async restart(): Promise<void> {
    if (this.closing) throw new ClientError("closed", "The client was closed.");
    await stopChild(this.connection, this.limits.cleanup_ms);
    const { connection, negotiated } = await startChild(this.options);
    this.connection = connection;
    this.negotiated = negotiated;
    this.restarts += 1;
    this.guardEpoch += 1;
  }

  /** Shutdown, then kill after the cleanup bound; pending calls reject as `closed`. */
  close(): Promise<void> {
    this.closing ??= stopChild(this.connection, this.limits.cleanup_ms);
    return this.closing;
  }

  /** Client flow step 2: browse with session.discover until validated completion. */
  discoverSessions(options: DiscoveryOptions = {}): Promise<DiscoveryResult> {
    return discoverSessions(this, options);
  }

  /** Exact open of a chosen ID: attaches it in this child. */
  async open(id: string, options: CallOptions = {}): Promise<SessionEntry> {
    return (await this.call("session.open", { id }, options)).session;
  }

  /** Every configured MCP server's status (`mcp.status`, docs/mcp.md). */
  async mcpStatus(options: CallOptions = {}): Promise<McpServerStatus[]> {
    return (await this.call("mcp.status", {}, options)).servers;
  }

  /**
   * session.fork: a new saved session holding `id`'s history up to and including `turnId`
   * (whole without it), attached in this child instead of the current session.
   */
  fork(
    id: string,
    options: CallOptions & { turnId?: string } = {},
  ): Promise<ResultOf<"session.fork">> {
    const { turnId, ...call } = options;
    return this.call("session.fork", { id, ...(turnId ? { turn_id: turnId } : {}) }, call);
  }

  /** session.rename (`session.manage`): a `title` record appended; the session as now listed. */
  async rename(id: string, title: string, options: CallOptions = {}): Promise<SessionEntry> {
    return (await this.call("session.rename", { id, title }, options)).session;
  }

  /** session.archive: moved to the archive (never listed; detached if attached here). */
  async archive(id: string, options: CallOptions = {}): Promise<void> {
    await this.call("session.archive", { id }, options);
  }

  /** session.unarchive: back among the listed sessions. */
  async unarchive(id: string, options: CallOptions = {}): Promise<void> {
    await this.call("session.unarchive", { id }, options);
  }

  /** Every archived session of this workspace (session.archived, all pages, validated). */
  archivedSessions(options: CallOptions = {}): Promise<SessionEntry[]> {
    return archivedSessions(this, options);
  }

  /** session.delete: the session and everything only it used, for good. */
  async deleteSession(id: string, options: CallOptions = {}): Promise<void> {
    await this.call("session.delete", { id }, options);
  }

  /** session.usage: a session's tokens and known cost (`partial` when some turn's is unknown). */
  usage(id: string, options: CallOptions = {}): Promise<ResultOf<"session.usage">> {
    return this.call("session.usage", { id }, options);
  }

  /**
   * session.search: one page of hits for `query` (1..256 characters) in this workspace's
   * sessions (`archived`: the archived ones); pass the page's `cursor` back for the next.
   */
  searchPage(
    query: string,
    options: CallOptions & { cursor?: string; archived?: boolean } = {},
  ): Promise<ResultOf<"session.search">> {
    const { cursor, archived, ...call } = options;
    const params = { query, ...(cursor ? { cursor } : {}), ...(archived ? { archived } : {}) };
    return this.call("session.search", params, call);
  }

  /**
   * Every hit of session.search for `query`, page by page as they come; a search the store
   * changed under starts again, never handing out a hit twice (search.ts).
   */
  search(query: string, options: SearchOptions = {}): AsyncGenerator<SearchHit[]> {
    return searchSessions(this, query, options);
  }

  /** A session's events, page by page. */
  history(id: string, options: CallOptions = {}): AsyncGenerator<SessionEvent[]> {
    return readHistory(this, id, options);
  }

  /** A subagent's events (its `subagent_id`, of session `id`), page by page. */
  subagentHistory(
    id: string,
    subagentId: string,
    options: CallOptions = {},
  ): AsyncGenerator<SessionEvent[]> {
    return readSubagentHistory(this, id, subagentId, options);
  }

  /**
   * One history record whole, through `session.record` (for the stub `session.history` sends in
   * place of a record over a page; `isRecordStub` tells one).
   */
  record(id: string, index: number, options: CallOptions = {}): Promise<SessionEvent> {
    return readRecord(this, id, index, options);
  }

  /**
   * One record of a subagent's history whole (`session.record` with `subagent_id`, capability
   * `subagents`), for the stub `subagentHistory` yields in place of a record over a page.
   */
  subagentRecord(
    id: string,
    subagentId: string,
    index: number,
    options: CallOptions = {},
  ): Promise<SessionEvent> {
    // session.record's own capability is checked by `call`; its `subagent_id` needs this one.
    if (!this.has("subagents"))
      return Promise.reject(
        new ClientError("not_negotiated", "A subagent's record needs the subagents capability."),
      );
    return readSubagentRecord(this, id, subagentId, index, options);
  }

  /** Client flow step 3: the cached catalog, every page, with a selection guard. */
  catalog(options: CallOptions = {}): Promise<CatalogRead> {
    return readCatalog(this, this.guardEpoch, options);
  }

  /** The cached catalog with per-provider status, every page, with a selection guard. */
  catalogStatus(options: CallOptions = {}): Promise<CatalogStatusRead> {
    return readCatalogStatus(this, this.guardEpoch, options);
  }

  /** Client flow step 4: deliberate refresh, then reloaded catalog and status. */
  refresh(provider: string, options: CallOptions = {}): Promise<RefreshReport> {
    // Every admitted refresh, even failed or cancelled, kills earlier guards.
    this.guardEpoch += 1;
    return refreshProvider(this, provider, () => this.guardEpoch, options);
  }

  /**
   * One turn on the attached session: events to `onEvent`, approvals through `onApproval`,
   * `signal` as turn.interrupt; resolves with the turn's result (the truth, not the deltas).
   */
  turn(input: string, options: TurnOptions = {}): Promise<TurnResult> {
    return runTurn(this, input, options);
  }

  /**
   * A turn as a handle: sent at once; `steer(text)` while it runs (`turn.steer`), `interrupt()`,
   * and its `result`. `queue: true` (`turn.queue`) waits behind the running turn, not `busy`.
   */
  startTurn(options: StartTurnOptions): TurnHandle {
    return startTurn(this, options);
  }

  /**
   * turn.revert: the files back to their state before `turnId` (that turn and every later one
   * undone), or with `dryRun` what would change, one page with its `cursor` (pass it back).
   */
  revert(
    sessionId: string,
    turnId: string,
    options: RevertOptions & { cursor?: string } = {},
  ): Promise<ResultOf<"turn.revert">> {
    return revertTurn(this, sessionId, turnId, options);
  }

  /** A whole dry run of turn.revert: every page's files in one result. */
  previewRevert(
    sessionId: string,
    turnId: string,
    options: Omit<RevertOptions, "dryRun"> & { maxFiles?: number } = {},
  ): Promise<ResultOf<"turn.revert">> {
    return previewRevert(this, sessionId, turnId, options);
  }

  /** The approval rules in force: this attachment's, then the workspace's (approval.rules). */
  rules(options: CallOptions = {}): Promise<ResultOf<"approval.rules">> {
    return this.call("approval.rules", { action: "list" }, options);
  }

  /** Removes one rule by its ID (`s-…` this attachment's, `w-…` the workspace's). */
  removeRule(ruleId: string, options: CallOptions = {}): Promise<ResultOf<"approval.rules">> {
    return this.call("approval.rules", { action: "remove", rule_id: ruleId }, options);
  }

  /** Removes every workspace rule, replacing a damaged rules file too. */
  clearRules(options: CallOptions = {}): Promise<ResultOf<"approval.rules">> {
    return this.call("approval.rules", { action: "clear" }, options);
  }

  /** Explicit selection; needs a guard from a catalog read after the latest refresh. */
  select(
    model: string,
    effort: string | null,
    guard: CatalogGuard,
    options: CallOptions = {},
  ): Promise<ResultOf<"model.select">> {
    return selectModel(this, { model, effort, guard, epoch: this.guardEpoch }, options);
  }
}

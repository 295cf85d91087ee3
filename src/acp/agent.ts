/**
 * The ACP method handlers (docs/acp.md, "Mapping"): each maps one ACP request onto our engine's.
 */
import {
  type AgentApp,
  type AgentContext,
  agent,
  type McpServer,
  PROTOCOL_VERSION,
} from "@agentclientprotocol/sdk";
import { authenticate, authMethods, nothingUsable, setupWords, unreadySelection } from "./auth.js";
import { type CatalogStatus, confirmSandbox, currentOptions, setOption } from "./config-options.js";
import { acpError, answering } from "./errors.js";
import { forkParamsParser } from "./fork-params.js";
import { initializeResult } from "./initialize-answer.js";
import { InitializeGate, InitializeParams } from "./initialize-gate.js";
import { NextSteps } from "./next-steps.js";
import { promptInput } from "./prompt-input.js";
import { loadPromptPartSoon } from "./prompt-part-load.js";
import { AcpSession } from "./session.js";
import { checkedMode, modeState } from "./session-config.js";
import { canonicalCwd, Sessions, type SessionsOptions } from "./sessions.js";
import { SettingsReport } from "./settings-report.js";
import { STEER_METHOD, SteerParams } from "./steer-method.js";

/**
 * A session's answer, its available commands sent just after it (the editor knows the session
 * once it has the answer: session.ts, `advertiseCommands`), and then the real sandbox probe
 * when the memo answered for it (config-options.ts `confirmSandbox`), and the prompt's part of
 * the agent loaded behind them (prompt-part-load.ts), after the probe's spawn.
 */
function advertised<T>(session: AcpSession, answer: T): T {
  session.advertiseCommands();
  confirmSandbox(session);
  loadPromptPartSoon();
  return answer;
}

interface AcpAgentOptions extends SessionsOptions {
  /** This process's canonical cwd: where credentials are looked for at initialize. */
  cwd: string;
}

/**
 * `mc-agent acp`'s handlers: ACP v1's stable methods on our engine (docs/acp.md). Each handler is
 * a thin mapping; the work is the engine's, reached through the same requests a frontend sends.
 */
export function acpAgent(options: AcpAgentOptions): { app: AgentApp; sessions: Sessions } {
  const sessions = new Sessions(options);
  const { home, env } = options;
  const steps = new NextSteps(home);
  const settingsReport = new SettingsReport(home, steps);

  /**
   * Before a session's engine opens in `cwd`: an invalid settings file is an error naming where
   * it is wrong; for a new session, nothing usable at all is ACP's `auth_required` (-32000).
   */
  const ready = async (cwd: string, fresh: boolean) => {
    const invalid = await settingsReport.check(cwd);
    if (invalid) throw invalid;
    if (fresh && (await nothingUsable({ cwd, home, env })))
      throw acpError("authentication_unavailable", setupWords(home));
  };

  /**
   * The session's answer to new/load/resume: its modes and config options (from `status` when
   * the handler has just read it: config-options.ts `readCatalog`).
   */
  const described = async (session: AcpSession, status?: CatalogStatus) => ({
    modes: modeState(session.mode, session.engine.sandbox !== null),
    configOptions: await currentOptions(session, status),
  });

  /** Opens one of our saved sessions in a new engine for its cwd (no replay yet). */
  const openSaved = async (
    id: string,
    cwd: string,
    client: AgentContext,
    mcpServers: readonly McpServer[] | undefined,
  ) => {
    const target = { cwd: canonicalCwd(cwd), client, mcpServers: mcpServers ?? [] };
    await ready(target.cwd, false);
    const { engine } = await sessions.opened(target, "session.open", { id });
    const session = new AcpSession(id, engine.cwd, engine, client, {
      saved: true,
      mcpServers: mcpServers ?? [],
    });
    await sessions.add(session);
    return session;
  };

  const gate = new InitializeGate();
  /** A request's handler, run once `initialize` has been answered (initialize-gate.ts). */
  const afterInitialize = <T>(method: string, work: () => Promise<T>) =>
    answering(async () => {
      await gate.admit(method);
      return work();
    });

  /**
   * A request's work on one session: the session is held from the moment the request is read
   * (sessions.ts `hold`), then used (`using`) once `initialize` has been answered.
   */
  const onSession = <T>(
    method: string,
    id: string,
    work: (session: AcpSession) => Promise<T>,
  ): Promise<T> => {
    const release = sessions.hold(id);
    return afterInitialize(method, () => sessions.using(id, work)).finally(release);
  };

  const app = agent({ name: "mc-agent" })
    // With our own params parser: the SDK's gate stays off, and `gate` orders (initialize-gate.ts).
    .onRequest("initialize", InitializeParams, ({ params }) =>
      gate.initialize(() =>
        answering(async () => {
          sessions.clientCapabilities = params.clientCapabilities;
          // The same answer the starter gives when it answers first (initialize-answer.ts).
          const where = { cwd: options.cwd, home, env };
          return initializeResult(
            PROTOCOL_VERSION,
            await authMethods(where, params.clientCapabilities),
          );
        }),
      ),
    )
    .onRequest("authenticate", ({ params }) =>
      afterInitialize("authenticate", () =>
        authenticate(params.methodId, { cwd: options.cwd, home, env }),
      ),
    )
    .onRequest("session/new", ({ params, client }) =>
      afterInitialize("session/new", async () => {
        const target = { cwd: canonicalCwd(params.cwd), client, mcpServers: params.mcpServers };
        await ready(target.cwd, true);
        // A model whose provider has no credentials is refused now, not at the first prompt;
        // the status read for that gives the config options too (one scan of the caches).
        let status: CatalogStatus | undefined;
        const { engine, answer } = await sessions.opened(
          target,
          "session.create",
          {},
          async (opened) => {
            status = await opened.request("model.catalog.status", {});
            return unreadySelection(opened, status);
          },
        );
        const session = new AcpSession(answer.session.id, engine.cwd, engine, client, {
          saved: false,
          mcpServers: params.mcpServers,
        });
        await sessions.add(session);
        return advertised(session, {
          sessionId: session.id,
          ...(await described(session, status)),
        });
      }),
    )
    .onRequest("session/fork", forkParamsParser, ({ params, client }) =>
      afterInitialize("session/fork", async () => {
        // ACP's unstable fork: our session.fork of the whole history, in an engine of its own.
        const mcpServers = params.mcpServers ?? [];
        const target = { cwd: canonicalCwd(params.cwd), client, mcpServers };
        await ready(target.cwd, false);
        const { engine, answer } = await sessions.opened(target, "session.fork", {
          id: params.sessionId,
        });
        const session = new AcpSession(answer.session.id, engine.cwd, engine, client, {
          saved: true,
          mcpServers,
        });
        await sessions.add(session);
        return advertised(session, { sessionId: session.id, ...(await described(session)) });
      }),
    )
    .onRequest("session/load", ({ params, client }) =>
      afterInitialize("session/load", async () => {
        const session = await openSaved(params.sessionId, params.cwd, client, params.mcpServers);
        // Only a session/load replays a history: loaded then, not at every start.
        const { replayHistory } = await import("./load-replay.js");
        await replayHistory(session);
        return advertised(session, await described(session));
      }),
    )
    .onRequest("session/resume", ({ params, client }) =>
      afterInitialize("session/resume", async () => {
        const session = await openSaved(params.sessionId, params.cwd, client, params.mcpServers);
        return advertised(session, await described(session));
      }),
    )
    .onRequest("session/list", ({ params, client }) =>
      afterInitialize("session/list", async () => {
        const cwd = canonicalCwd(params.cwd ?? options.cwd);
        const engine = await sessions.lister(cwd, client);
        const page = await engine.request(
          "session.list",
          params.cursor ? { cursor: params.cursor } : {},
        );
        return {
          sessions: page.sessions.map((entry) => ({
            sessionId: entry.id,
            cwd,
            title: entry.title,
            updatedAt: entry.updated_at,
          })),
          nextCursor: page.cursor,
        };
      }),
    )
    .onRequest("session/delete", ({ params, client }) =>
      afterInitialize("session/delete", async () => {
        // Our session.delete: a session open here is closed first (never one mid-prompt), and
        // the delete runs in the lister of its cwd (else this process's).
        const open = sessions.find(params.sessionId);
        if (open?.busy) throw acpError("busy", "A prompt is running in that session.");
        const cwd = open ? open.cwd : canonicalCwd(options.cwd);
        if (open) await sessions.close(params.sessionId);
        const engine = await sessions.lister(cwd, client);
        await engine.request("session.delete", { id: params.sessionId });
        return {};
      }),
    )
    .onRequest("session/close", ({ params }) =>
      afterInitialize("session/close", async () => {
        sessions.get(params.sessionId);
        await sessions.close(params.sessionId);
        return {};
      }),
    )
    .onRequest("session/set_mode", ({ params }) =>
      onSession("session/set_mode", params.sessionId, async (session) => {
        await session.setMode(checkedMode(params.modeId, session.engine.sandbox !== null));
        return {};
      }),
    )
    .onRequest("session/set_config_option", ({ params }) =>
      onSession("session/set_config_option", params.sessionId, async (session) => ({
        configOptions: await setOption(session, params.configId, params.value),
      })),
    )
    .onRequest("session/prompt", ({ params, signal }) =>
      onSession("session/prompt", params.sessionId, (session) => {
        // `signal`: the SDK aborts it on `$/cancel_request` of this request (or the
        // connection's end), which is taken as session/cancel (docs/acp.md).
        const { text, attachments } = promptInput(params.prompt);
        return session.prompt(text, signal, attachments);
      }),
    )
    .onRequest(STEER_METHOD, SteerParams, ({ params }) =>
      onSession(STEER_METHOD, params.sessionId, (session) => session.steer(params.text)),
    )
    .onNotification("session/cancel", ({ params }) => {
      try {
        sessions.get(params.sessionId).cancel();
      } catch {
        // A cancel for a session that is not open has nothing to stop.
      }
    });
  return { app, sessions };
}

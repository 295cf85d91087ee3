import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import {
  type ClientCapabilities,
  type ClientConnection,
  client,
  ndJsonStream,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from "@agentclientprotocol/sdk";
import { type ChatServer, startChatServer } from "../../src/conformance/chat-server.js";
import { KIT_KEY, writeTurnHome } from "../../src/conformance/turn-world.js";
import { CHILD_BIN, type Sandbox, sandbox } from "../helpers/child.js";
import type { TestEditor } from "./test-editor.js";

/** What the test client saw, in arrival order: updates, permission requests, prompt answers. */
export type Seen =
  | { kind: "update"; notification: SessionNotification }
  | { kind: "permission"; request: RequestPermissionRequest }
  | { kind: "response"; what: string };

export type PermissionAnswer = (request: RequestPermissionRequest) => RequestPermissionResponse;

/**
 * `mc-agent acp` spawned as an editor spawns it (the launcher script, so the credential
 * hand-off runs), driven by the ACP SDK's own client side, on a real temp store and a loopback
 * Chat Completions server (the turn kit's world: provider `kit`, model `kit/kit-1`).
 */
export class AcpWorld {
  readonly seen: Seen[] = [];
  stderr = "";
  permission: PermissionAnswer = () => ({ outcome: { outcome: "cancelled" } });
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private constructor(
    readonly box: Sandbox,
    readonly server: ChatServer,
    readonly proc: ChildProcessWithoutNullStreams,
    readonly connection: ClientConnection,
    /** The client's fs/terminal side, when the test offers one (test-editor.ts). */
    readonly editor: TestEditor | null,
  ) {
    proc.stderr.setEncoding("utf8");
    proc.stderr.on("data", (chunk: string) => {
      this.stderr += chunk;
    });
    this.exited = new Promise((resolve) =>
      proc.on("exit", (code, signal) => resolve({ code, signal })),
    );
  }

  static async start(
    options: {
      contextWindow?: number;
      box?: Sandbox;
      server?: ChatServer;
      editor?: TestEditor;
      /**
       * The child's PATH (ours by default): a PATH without bwrap has no sandbox. It must hold
       * `node`, which the launcher (bin/mc-agent.js, a sh script) execs.
       */
      path?: string;
      /** More of the child's environment (a provider key, say). */
      env?: Record<string, string>;
    } = {},
  ) {
    const box = options.box ?? sandbox("mc-acp-");
    const server = options.server ?? (await startChatServer());
    if (!options.box)
      writeTurnHome(box, server.baseUrl, { contextWindow: options.contextWindow ?? 1000 });
    const proc = spawn(CHILD_BIN, ["acp"], {
      cwd: box.workspace,
      env: {
        PATH: options.path ?? process.env.PATH,
        HOME: box.home,
        MC_HOME: box.home,
        CODEX_HOME: join(box.home, "no-codex"),
        CLAUDE_CONFIG_DIR: join(box.home, "no-claude"),
        MC_KIT_KEY: KIT_KEY,
        ...options.env,
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    proc.stdin.on("error", () => {});
    let world: AcpWorld | undefined;
    const app = (options.editor?.app() ?? client({ name: "acp-test" }))
      .onNotification("session/update", ({ params }) => {
        world?.seen.push({ kind: "update", notification: params });
      })
      .onRequest("session/request_permission", ({ params }) => {
        world?.seen.push({ kind: "permission", request: params });
        return world ? world.permission(params) : { outcome: { outcome: "cancelled" } };
      });
    const connection = app.connect(
      ndJsonStream(
        Writable.toWeb(proc.stdin) as WritableStream<Uint8Array>,
        Readable.toWeb(proc.stdout) as ReadableStream<Uint8Array>,
      ),
    );
    world = new AcpWorld(box, server, proc, connection, options.editor ?? null);
    return world;
  }

  get agent() {
    return this.connection.agent;
  }

  async initialize(capabilities?: ClientCapabilities) {
    return this.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: capabilities ??
        this.editor?.capabilities() ?? {
          fs: { readTextFile: false, writeTextFile: false },
          terminal: false,
        },
      clientInfo: { name: "acp-test", version: "1" },
    });
  }

  async newSession() {
    return this.agent.request("session/new", { cwd: this.box.workspace, mcpServers: [] });
  }

  /** A prompt; its answer is marked in `seen` when it arrives, after the updates before it. */
  async prompt(sessionId: string, text: string) {
    const response = await this.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text }],
    });
    this.seen.push({ kind: "response", what: `prompt:${response.stopReason}` });
    return response;
  }

  /**
   * What was seen, less the `available_commands_update`s: those are sent just after a session's
   * answer (docs/acp.md, "Undo"), so they may land before or after what a test awaits next.
   */
  seenWithoutCommands(): Seen[] {
    return this.seen.filter(
      (s) =>
        s.kind !== "update" || s.notification.update.sessionUpdate !== "available_commands_update",
    );
  }

  updates(kind?: string) {
    return this.seen.flatMap((s) =>
      s.kind === "update" && (kind === undefined || s.notification.update.sessionUpdate === kind)
        ? [s.notification.update]
        : [],
    );
  }

  /** The text of every agent_message_chunk, joined. */
  agentText(): string {
    return this.updates("agent_message_chunk")
      .map((u) =>
        u.sessionUpdate === "agent_message_chunk" && u.content.type === "text"
          ? u.content.text
          : "",
      )
      .join("");
  }

  /** Resolves once `check` holds (checked as things arrive); fails after a generous bound. */
  async until(check: () => boolean, what: string, boundMs = 20_000): Promise<void> {
    const end = Date.now() + boundMs;
    while (!check()) {
      if (Date.now() > end)
        throw new Error(`never saw ${what}; stderr: ${this.stderr.slice(-500)}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  async close(): Promise<void> {
    this.proc.stdin.end();
    await this.exited;
    await this.server.close();
    this.box.cleanup();
  }
}

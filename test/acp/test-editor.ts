/**
 * An ACP client as an editor is one, on the SDK's own client side: `fs/*` on a real folder with
 * unsaved buffers over it (what the editor shows may differ from the file on disk), and
 * `terminal/*` running real processes. It records every call, so a test can tell that the
 * agent's tools went through it. `connectInProcess` joins it to an agent app over the SDK's
 * `ndJsonStream` on web streams, as two processes would be joined over stdio.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import * as acp from "@agentclientprotocol/sdk";

export interface Offer {
  read?: boolean;
  write?: boolean;
  terminal?: boolean;
}

interface Terminal {
  child: ChildProcess;
  request: acp.CreateTerminalRequest;
  output: Buffer;
  truncated: boolean;
  exit: Promise<acp.TerminalExitStatus>;
  exited: acp.TerminalExitStatus | null;
}

export class TestEditor {
  /** Unsaved buffers by absolute path: what the editor shows instead of the file on disk. */
  readonly buffers = new Map<string, string>();
  readonly reads: acp.ReadTextFileRequest[] = [];
  readonly writes: acp.WriteTextFileRequest[] = [];
  readonly created: acp.CreateTerminalRequest[] = [];
  readonly killed: string[] = [];
  readonly released: string[] = [];
  /** Paths whose read, or write, the editor refuses (with a message naming the path). */
  readonly refuse = new Set<string>();
  readonly refuseWrites = new Set<string>();
  private readonly terminals = new Map<string, Terminal>();
  private nextId = 1;

  /**
   * `environment`: the editor's own, which its terminals start from (the test's by default): an
   * editor that started the agent with a key in its environment has that key too.
   */
  constructor(
    readonly offer: Offer,
    private readonly environment: NodeJS.ProcessEnv = process.env,
  ) {}

  capabilities(): acp.ClientCapabilities {
    return {
      fs: { readTextFile: this.offer.read === true, writeTextFile: this.offer.write === true },
      terminal: this.offer.terminal === true,
    };
  }

  /** The SDK client app, with a handler for each offered method and nothing else. */
  app(extra: (app: acp.ClientApp) => void = () => {}): acp.ClientApp {
    const app = acp.client({ name: "test-editor" });
    if (this.offer.read) app.onRequest("fs/read_text_file", ({ params }) => this.read(params));
    if (this.offer.write)
      app.onRequest("fs/write_text_file", ({ params }) => {
        this.write(params);
        return {};
      });
    if (this.offer.terminal) {
      app.onRequest("terminal/create", ({ params }) => this.create(params));
      app.onRequest("terminal/output", ({ params }) => this.output(params.terminalId));
      app.onRequest("terminal/wait_for_exit", async ({ params }) => {
        const status = await this.terminal(params.terminalId).exit;
        return { exitCode: status.exitCode ?? null, signal: status.signal ?? null };
      });
      app.onRequest("terminal/kill", ({ params }) => {
        this.killed.push(params.terminalId);
        this.kill(this.terminal(params.terminalId));
        return {};
      });
      app.onRequest("terminal/release", ({ params }) => {
        this.released.push(params.terminalId);
        this.kill(this.terminal(params.terminalId));
        this.terminals.delete(params.terminalId);
        return {};
      });
    }
    extra(app);
    return app;
  }

  /** Every terminal released, none still running. */
  get openTerminals(): number {
    return this.terminals.size;
  }

  private read(params: acp.ReadTextFileRequest): acp.ReadTextFileResponse {
    this.reads.push(params);
    if (this.refuse.has(params.path))
      throw acp.RequestError.resourceNotFound(`cannot read ${params.path}`);
    const text = this.buffers.get(params.path) ?? readFileSync(params.path, "utf8");
    if (params.line == null && params.limit == null) return { content: text };
    // 1-based, as the spec says; each line keeps its newline.
    const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
    const start = (params.line ?? 1) - 1;
    const end = params.limit == null ? undefined : start + params.limit;
    return { content: lines.slice(start, end).join("") };
  }

  private write(params: acp.WriteTextFileRequest): void {
    this.writes.push(params);
    if (this.refuseWrites.has(params.path))
      throw acp.RequestError.internalError(undefined, `cannot write ${params.path}`);
    // The editor saves: the buffer and the file now hold the new text.
    writeFileSync(params.path, params.content);
    this.buffers.delete(params.path);
  }

  private create(params: acp.CreateTerminalRequest): acp.CreateTerminalResponse {
    this.created.push(params);
    const env = { ...this.environment };
    for (const { name, value } of params.env ?? []) env[name] = value;
    const child = spawn(params.command, params.args ?? [], {
      cwd: params.cwd ?? undefined,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const id = `term-${this.nextId++}`;
    const limit = params.outputByteLimit ?? Number.POSITIVE_INFINITY;
    const terminal: Terminal = {
      child,
      request: params,
      output: Buffer.alloc(0),
      truncated: false,
      exited: null,
      exit: new Promise((resolve) => {
        child.on("close", (code, signal) => {
          terminal.exited = { exitCode: code, signal };
          resolve(terminal.exited);
        });
      }),
    };
    const take = (bytes: Buffer) => {
      let output = Buffer.concat([terminal.output, bytes]);
      if (output.length > limit) {
        // The tail is kept, cut at a character boundary, as the spec asks.
        let start = output.length - limit;
        while (start < output.length && ((output[start] as number) & 0xc0) === 0x80) start++;
        output = output.subarray(start);
        terminal.truncated = true;
      }
      terminal.output = output;
    };
    child.stdout?.on("data", take);
    child.stderr?.on("data", take);
    this.terminals.set(id, terminal);
    return { terminalId: id };
  }

  /** The environment a terminal's command was given. */
  envOf(index: number): Map<string, string> {
    return new Map((this.created[index]?.env ?? []).map(({ name, value }) => [name, value]));
  }

  private output(id: string): acp.TerminalOutputResponse {
    const terminal = this.terminal(id);
    return {
      output: terminal.output.toString("utf8"),
      truncated: terminal.truncated,
      exitStatus: terminal.exited,
    };
  }

  private terminal(id: string): Terminal {
    const terminal = this.terminals.get(id);
    if (!terminal) throw acp.RequestError.resourceNotFound(id);
    return terminal;
  }

  private kill(terminal: Terminal): void {
    if (terminal.exited || terminal.child.pid === undefined) return;
    try {
      process.kill(-terminal.child.pid, "SIGKILL");
    } catch {
      // gone already
    }
  }

  /** Ends every terminal a failed test left behind. */
  close(): void {
    for (const terminal of this.terminals.values()) this.kill(terminal);
  }
}

/** An agent app and a client app joined over ndJsonStream on in-memory byte pipes. */
export function connectInProcess(
  agent: acp.AgentApp,
  client: acp.ClientApp,
): { agent: acp.AgentConnection; client: acp.ClientConnection } {
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const agentConnection = agent.connect(acp.ndJsonStream(toClient.writable, toAgent.readable));
  const clientConnection = client.connect(acp.ndJsonStream(toAgent.writable, toClient.readable));
  return { agent: agentConnection, client: clientConnection };
}

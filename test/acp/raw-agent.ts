import { spawn } from "node:child_process";
import { CHILD_BIN, type Sandbox } from "../helpers/child.js";

/** `mc-agent acp` spoken to in raw lines, for what no well-behaved client would send. */
export class RawAgent {
  readonly lines: Record<string, unknown>[] = [];
  private buffer = "";
  readonly proc;
  constructor(box: Sandbox, env: Record<string, string> = {}) {
    this.proc = spawn(CHILD_BIN, ["acp"], {
      cwd: box.workspace,
      env: { PATH: process.env.PATH, HOME: box.home, MC_HOME: box.home, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.proc.stdout.setEncoding("utf8");
    this.proc.stdout.on("data", (chunk: string) => {
      this.buffer += chunk;
      let lf = this.buffer.indexOf("\n");
      while (lf !== -1) {
        this.lines.push(JSON.parse(this.buffer.slice(0, lf)));
        this.buffer = this.buffer.slice(lf + 1);
        lf = this.buffer.indexOf("\n");
      }
    });
  }

  send(line: string): void {
    this.proc.stdin.write(`${line}\n`);
  }

  /** Sends a well-formed JSON-RPC request line. */
  request(id: number, method: string, params: unknown): void {
    this.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
  }

  async until(check: () => boolean): Promise<void> {
    while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  async answer(id: number): Promise<Record<string, unknown>> {
    for (;;) {
      const found = this.lines.find((l) => l.id === id);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.proc.on("exit", resolve));
    this.proc.stdin.end();
    await exited;
  }
}

import assert from "node:assert/strict";
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SEED_CAPABILITIES } from "../protocol/capabilities.js";
import { ERROR_CODES } from "../protocol/codes.js";
import type { MethodName, ParamsOf, ResultOf } from "../protocol/methods.js";
import { clipChars, tailChars } from "../protocol/text-cut.js";
import type { Frame } from "./frame.js";
import { LineSplitter } from "./line-splitter.js";
import { unsafeMessage } from "./message-leaks.js";
import { requestsIn, type SentRequest } from "./wire-audit.js";

/**
 * The black-box harness shared by the project's tests and `mc-agent conformance`: it spawns a
 * child command over real pipes and speaks frames to it, as a frontend would.
 */
const here = dirname(fileURLToPath(import.meta.url));
/** The package root, from dist/src/conformance. */
export const PACKAGE_ROOT = resolve(here, "../../..");
export const CHILD_BIN = join(PACKAGE_ROOT, "bin", "mc-agent.js");

export interface ChildOptions {
  /** The child's working directory (the workspace). */
  cwd: string;
  /** MC_HOME. */
  home: string;
  env?: Record<string, string | undefined>;
  testMethods?: boolean;
  /** Another command that speaks the protocol (default: this package's child). */
  command?: string[];
}

let counter = 0;
export function nextId(prefix = "r"): string {
  counter += 1;
  return `${prefix}${counter}`;
}

/** A spawned child spoken to over real pipes, one JSON frame a line, as a frontend would. */
export class TestChild {
  readonly frames: Frame[] = [];
  readonly rawLines: string[] = [];
  /** The line each frame was parsed from (to check what the child wrote, byte for byte). */
  private readonly lines = new WeakMap<Frame, string>();
  /** stdout lines that were not JSON. */
  readonly garbage: string[] = [];
  /** Every line in (">> ") and out ("<< "), in order, for failure reports. */
  readonly transcript: string[] = [];
  /** Every request line sent with a valid ID, untruncated (for the wire audit). */
  readonly sent: SentRequest[] = [];
  stderr = "";
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** stdout cut into lines, each chunk searched once (line-splitter.ts). */
  private readonly splitter = new LineSplitter();
  private waiters: {
    match: (f: Frame) => boolean;
    resolve: (f: Frame) => void;
    reject: (e: Error) => void;
  }[] = [];
  /** Set once stdout is closed: no frame can come any more. */
  private outputClosed = false;
  private readonly proc: ChildProcessWithoutNullStreams;

  constructor(readonly options: ChildOptions) {
    const [cmd, ...args] = options.command ?? [process.execPath, CHILD_BIN, "stdio"];
    this.proc = spawn(cmd as string, args, {
      cwd: options.cwd,
      env: {
        PATH: process.env.PATH,
        HOME: options.home,
        MC_HOME: options.home,
        CODEX_HOME: join(options.home, "no-codex"),
        CLAUDE_CONFIG_DIR: join(options.home, "no-claude"),
        ...(options.testMethods ? { MC_AGENT_TEST_METHODS: "1" } : {}),
        ...options.env,
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.proc.stdout.setEncoding("utf8");
    this.proc.stdout.on("data", (chunk: string) => this.onData(chunk));
    this.proc.stderr.setEncoding("utf8");
    this.proc.stderr.on("data", (chunk: string) => {
      this.stderr += chunk;
    });
    this.proc.stdin.on("error", () => {});
    this.exited = new Promise((res) =>
      this.proc.on("exit", (code, signal) => res({ code, signal })),
    );
    // A child that dies fails its pending waits at once instead of at their timeouts.
    this.proc.on("close", (code, signal) => {
      this.outputClosed = true;
      const pending = this.waiters;
      this.waiters = [];
      for (const w of pending) w.reject(new Error(this.goneMessage(code, signal)));
    });
  }

  private goneMessage(code: number | null, signal: NodeJS.Signals | null): string {
    return `the child exited (${signal ?? `code ${code}`}) before answering; stderr: ${tailChars(this.stderr, 500)}`;
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  private onData(chunk: string): void {
    for (const line of this.splitter.push(chunk)) this.onLine(line);
  }

  private onLine(line: string): void {
    this.rawLines.push(line);
    this.transcript.push(`<< ${clipChars(line, 2000)}`);
    let frame: Frame;
    try {
      frame = JSON.parse(line) as Frame;
    } catch {
      // A child that writes non-frames to stdout breaks the protocol; keep it for the report.
      this.garbage.push(line);
      return;
    }
    this.frames.push(frame);
    if (typeof frame === "object" && frame !== null) this.lines.set(frame, line);
    // Newest waiter first: a duplicate ID's immediate error belongs to the latest request.
    const waiter = this.waiters.findLast((w) => w.match(frame));
    if (waiter) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve(frame);
    }
  }

  /** The exact line (without its LF) that a received frame was parsed from. */
  lineOf(frame: Frame): string {
    const line = this.lines.get(frame);
    if (line === undefined) throw new Error("not a frame this child wrote");
    return line;
  }

  /** Writes raw text (add the LF yourself) or one frame object. */
  send(frame: string | object): void {
    const text = typeof frame === "string" ? frame : `${JSON.stringify(frame)}\n`;
    this.sent.push(...requestsIn(text));
    this.transcript.push(`>> ${text.length > 2000 ? clipChars(text, 2000) : text.trimEnd()}`);
    this.proc.stdin.write(text);
  }

  closeStdin(): void {
    this.proc.stdin.end();
  }

  /**
   * Writes raw bytes (frames that are not valid UTF-8, or many frames at once); resolves when
   * the pipe took them, so a caller can respect back-pressure.
   */
  sendBytes(bytes: Uint8Array): Promise<void> {
    const text = Buffer.from(bytes).toString("utf8").trimEnd();
    this.sent.push(...requestsIn(text));
    this.transcript.push(
      `>> ${text.length > 2000 && !text.includes("\n") ? clipChars(text, 2000) : text}`,
    );
    return new Promise((res) => {
      if (this.proc.stdin.write(bytes)) res();
      else this.proc.stdin.once("drain", () => res());
    });
  }

  /** Stops reading the child's stdout, as a frontend that hangs would (the pipe fills up). */
  pauseOutput(): void {
    this.proc.stdout.pause();
  }

  resumeOutput(): void {
    this.proc.stdout.resume();
  }

  /** Closes the client's end of the child's stdout, as a frontend that went away would. */
  closeOutput(): void {
    this.proc.stdout.destroy();
  }

  kill(signal: NodeJS.Signals = "SIGKILL"): void {
    this.proc.kill(signal);
  }

  /** The next frame (not yet consumed by a waiter) matching the predicate. */
  waitFor(match: (f: Frame) => boolean, timeoutMs = 10_000): Promise<Frame> {
    const waiting = new Promise<Frame>((res, rej) => {
      if (this.outputClosed) {
        return rej(new Error(this.goneMessage(this.proc.exitCode, this.proc.signalCode)));
      }
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.resolve !== done);
        rej(
          new Error(
            `timed out after ${timeoutMs} ms waiting for a frame; stderr: ${tailChars(this.stderr, 500)}`,
          ),
        );
      }, timeoutMs);
      const done = (f: Frame) => {
        clearTimeout(timer);
        res(f);
      };
      const fail = (e: Error) => {
        clearTimeout(timer);
        rej(e);
      };
      this.waiters.push({ match, resolve: done, reject: fail });
    });
    // A wait nobody awaits any more (its case already failed) must not crash the process.
    waiting.catch(() => {});
    return waiting;
  }

  /** Sends a request and resolves with its response frame (result or error). */
  request(method: string, params: unknown = {}, id = nextId(), timeoutMs = 15_000): Promise<Frame> {
    const response = this.waitFor((f) => f.id === id, timeoutMs);
    this.send({ id, method, params });
    return response;
  }

  /** Typed call: resolves with the result, or fails the test with the error code. */
  async call<M extends MethodName>(
    method: M,
    params: ParamsOf<M>,
    timeoutMs?: number,
  ): Promise<ResultOf<M>> {
    const frame = await this.request(method, params, nextId(), timeoutMs);
    if (frame.error)
      throw new Error(`${method} failed: ${frame.error.code}: ${frame.error.message}`);
    return frame.result as ResultOf<M>;
  }

  /** Sends a request expected to fail and returns its error code. */
  async errorCode(method: string, params: unknown = {}, id?: string): Promise<string> {
    const frame = await this.request(method, params, id);
    assert.ok(
      frame.error,
      `${method} was expected to fail but answered ${JSON.stringify(frame.result)}`,
    );
    return frame.error.code;
  }

  initialize(capabilities: string[] = [...SEED_CAPABILITIES]): Promise<Frame> {
    return this.request("initialize", {
      protocol_version: 1,
      client: { name: "mc-agent-tests", version: "1.0.0" },
      required_capabilities: capabilities,
    });
  }

  /** Shuts down politely; kills after a bound; returns the exit. */
  async close(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.proc.exitCode === null && this.proc.signalCode === null) {
      try {
        this.send({ id: nextId("shutdown"), method: "shutdown", params: {} });
      } catch {}
      const timer = setTimeout(() => this.proc.kill("SIGKILL"), 5000);
      const exit = await this.exited;
      clearTimeout(timer);
      this.assertSafeErrors();
      return exit;
    }
    this.assertSafeErrors();
    return this.exited;
  }

  /**
   * Every error this child sent has a known code and a message that names no path or file
   * (message-leaks.ts), nor the workspace or home.
   */
  assertSafeErrors(extraForbidden: string[] = []): void {
    const forbidden = [this.options.home, this.options.cwd, ...extraForbidden];
    for (const frame of this.frames) {
      if (!frame.error) continue;
      assert.ok(
        (ERROR_CODES as readonly string[]).includes(frame.error.code),
        `unknown code ${frame.error.code}`,
      );
      const leak = unsafeMessage(frame.error.message, forbidden);
      assert.equal(leak, null, `error message carries ${leak}: ${frame.error.message}`);
    }
  }
}

export interface Sandbox {
  root: string;
  home: string;
  workspace: string;
  cleanup(): void;
}

/** A fresh temp folder with an MC_HOME and a workspace; removed by cleanup(). */
export function sandbox(prefix = "mc-test-"): Sandbox {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const home = join(root, "home");
  const workspace = join(root, "workspace");
  mkdirSync(home, { recursive: true, mode: 0o700 });
  mkdirSync(workspace, { recursive: true });
  return {
    root,
    home,
    workspace,
    // Retries: a child that is still exiting may write its last file while the tree is removed.
    cleanup: () => rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }),
  };
}

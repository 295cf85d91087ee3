import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { closeSync, openSync, readdirSync, readFileSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { type Sandbox, sandbox } from "../src/conformance/harness.js";
import { responsesEvents } from "../test/fixtures/responses-server.js";
import { peakRssMb } from "./bench-support.js";
import { RESPONSES } from "./turn-formats.js";
import { CODEX_KEY_ENV, codexStreamer } from "./turn-peer-codex.js";
import type { BenchServer, PlannedStream, SeenCall } from "./turn-server.js";

/**
 * Codex app-server's side of issue 44's big-history open: a real Codex thread grown to a size,
 * then a fresh app-server's `thread/resume` of it and the first `turn/start` admitted.
 *
 * The thread is one Codex really ran against the bench server, as the soak's turns are
 * (bench/soak.ts): each turn the model says a few words and calls `exec_command` (twenty lines
 * of printf), then answers 2 KB; `model_auto_compact_token_limit` is set so that Codex compacts
 * within the first turns (its own summary request and `compacted` record). Its rollout is then
 * grown as bench/big-history.ts grows ours: its turns after the first (the compaction among
 * them) written again and again, each copy's IDs fresh (turn, item, message and call IDs; the
 * thread's own kept) and every record's `ordinal` in sequence, until the file has its size. So
 * the file is what Codex would have written for a session that long.
 */
const TEMPLATE_TURNS = 8;
const COMMAND = "printf 'a line of tool output %03d\\n' $(seq 1 20)";
const REPLY = Array.from({ length: 121 }, () => "reply text piece ");
const KEY = "sk-bench";

const sse = (events: { event: string; data: unknown }[]) =>
  events.map((e) => `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`);

/**
 * The model's side of a Codex turn, read off its request: a user message asks for the tool
 * call, a tool's output for the 2 KB answer, anything else (its compaction prompt, or the turn
 * resumed after it) for a short summary. Usage: the request's bytes / 4, as the soak's.
 */
export function codexTurnPlanner(seen: SeenCall): PlannedStream {
  const input = (seen.body?.input ?? []) as { type?: string; role?: string }[];
  const last = input[input.length - 1];
  const usage = { input: Math.ceil(seen.bytes / 4), output: 600 };
  const asksTool = last?.role === "user" && JSON.stringify(last).includes("Go on.");
  const events =
    last?.type === "function_call_output"
      ? responsesEvents({ text: REPLY, usage })
      : asksTool
        ? responsesEvents({
            text: ["Let me ", "look."],
            calls: [
              {
                call_id: `call_${randomUUID().slice(0, 8)}`,
                name: "exec_command",
                arguments: JSON.stringify({ cmd: COMMAND }),
              },
            ],
            usage,
          })
        : responsesEvents({ text: ["The work so far: ", "many turns of shell output."], usage });
  return { head: sse(events), rest: [] };
}

export interface CodexBigThread {
  box: Sandbox;
  codexHome: string;
  threadId: string;
  /** The rollout file, and its size once grown (a resume's turn appends: truncate back). */
  path: string;
  bytes: number;
  cleanup(): void;
}

function findRollout(folder: string, threadId: string): string | undefined {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      const found = findRollout(path, threadId);
      if (found) return found;
    } else if (entry.name.endsWith(`${threadId}.jsonl`)) return path;
  }
  return undefined;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const CALL_ID = /call_[0-9a-f]{8}\b/g;

/** Appends copies of `template` (whole turns) to `path` until it holds `bytes`; its size. */
function grow(path: string, template: string[], threadId: string, bytes: number): number {
  let ordinal = readFileSync(path, "utf8").trimEnd().split("\n").length;
  let size = statSync(path).size;
  const fd = openSync(path, "a");
  try {
    while (size < bytes) {
      const fresh = new Map<string, string>([[threadId, threadId]]);
      const renew = (id: string, make: () => string) => {
        if (!fresh.has(id)) fresh.set(id, make());
        return fresh.get(id) as string;
      };
      const chunk = template
        .map((line) =>
          line
            .replace(UUID, (id) => renew(id, randomUUID))
            .replace(CALL_ID, (id) => renew(id, () => `call_${randomUUID().slice(0, 8)}`))
            .replace(/"ordinal":\d+/, () => `"ordinal":${ordinal++}`),
        )
        .join("\n");
      size += writeSync(fd, `${chunk}\n`);
    }
    return size;
  } finally {
    closeSync(fd);
  }
}

/** A real Codex thread on `server` (its planner set here), its rollout grown to `bytes`. */
export async function codexBigThread(
  binary: string,
  server: BenchServer,
  bytes: number,
): Promise<CodexBigThread> {
  server.plan(codexTurnPlanner);
  const box = sandbox("mc-bench-codex-big-");
  try {
    const codex = await codexStreamer(
      binary,
      RESPONSES,
      server,
      box,
      "model_auto_compact_token_limit = 12500\n",
    );
    try {
      for (let turn = 0; turn < TEMPLATE_TURNS; turn += 1) {
        await codex.begin();
        codex.forget();
      }
    } finally {
      await codex.close();
    }
    const path = findRollout(join(codex.codexHome, "sessions"), codex.threadId);
    if (!path) throw new Error("Codex wrote no rollout for its thread");
    const lines = readFileSync(path, "utf8").trimEnd().split("\n");
    const starts = lines.flatMap((line, i) => (line.includes('"type":"task_started"') ? [i] : []));
    const text = lines.slice(starts[1]).join("\n");
    if (starts.length < TEMPLATE_TURNS || !text.includes('"type":"compacted"'))
      throw new Error("the Codex thread has not the turns and compaction a template needs");
    const size = grow(path, lines.slice(starts[1]), codex.threadId, bytes);
    const { codexHome, threadId } = codex;
    return { box, codexHome, threadId, path, bytes: size, cleanup: () => box.cleanup() };
  } catch (error) {
    box.cleanup();
    throw error;
  }
}

/**
 * A minimal JSON-RPC line client for Codex's resume: `thread/resume` answers with the whole
 * thread, every turn and item of the rollout in one line (over 100 MB for a 100 MB rollout),
 * which the harness's TestChild would gather by appending to one string and searching it again
 * at every chunk (quadratic: it was most of the figure). Here each chunk is searched alone and a
 * line's chunks joined once, then parsed, as a client must.
 */
class LineClient {
  private readonly proc: ChildProcessWithoutNullStreams;
  private chunks: Buffer[] = [];
  private waiters: { match: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];
  private counter = 0;
  /** Bytes of the longest line read so far. */
  longest = 0;
  readonly exited: Promise<void>;

  constructor(binary: string, thread: CodexBigThread) {
    this.proc = spawn(binary, ["app-server", "--strict-config"], {
      cwd: thread.box.workspace,
      env: {
        PATH: process.env.PATH,
        HOME: thread.box.home,
        CODEX_HOME: thread.codexHome,
        [CODEX_KEY_ENV]: KEY,
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.proc.stderr.resume();
    this.proc.stdin.on("error", () => {});
    this.proc.stdout.on("data", (chunk: Buffer) => this.read(chunk));
    this.exited = new Promise((resolve) => this.proc.on("close", () => resolve()));
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  private read(chunk: Buffer): void {
    let from = 0;
    for (let lf = chunk.indexOf(10); lf !== -1; lf = chunk.indexOf(10, from)) {
      this.chunks.push(chunk.subarray(from, lf));
      const line = Buffer.concat(this.chunks);
      this.chunks = [];
      from = lf + 1;
      this.longest = Math.max(this.longest, line.length);
      const message = JSON.parse(line.toString("utf8")) as Message;
      const waiter = this.waiters.find((w) => w.match(message));
      if (waiter) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
    if (from < chunk.length) this.chunks.push(chunk.subarray(from));
  }

  waitFor(match: (m: Message) => boolean, timeoutMs = 600_000): Promise<Message> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("timed out waiting for Codex")), timeoutMs);
      this.waiters.push({
        match,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  send(message: object): void {
    this.proc.stdin.write(`${JSON.stringify(message)}\n`);
  }

  async request(method: string, params: unknown): Promise<Record<string, unknown>> {
    this.counter += 1;
    const id = `resume${this.counter}`;
    const answer = this.waitFor((m) => m.id === id);
    this.send({ id, method, params });
    const message = await answer;
    if (!message.result)
      throw new Error(`codex ${method} failed: ${JSON.stringify(message.error)}`);
    return message.result;
  }

  async close(): Promise<void> {
    this.proc.stdin.end();
    const timer = setTimeout(() => this.proc.kill("SIGKILL"), 5000);
    await this.exited;
    clearTimeout(timer);
  }
}

interface Message {
  id?: string;
  method?: string;
  params?: { threadId?: string; turn?: { status?: string } };
  result?: Record<string, unknown>;
  error?: unknown;
}

/**
 * A fresh app-server (spawned and initialized untimed) resumes the thread and starts a turn:
 * ms from `thread/resume` written to its answer read and parsed (`resumeMs`) and to the
 * `turn/start` answer read (`admittedMs`, the turn accepted), the process's peak RSS once the
 * turn ended, and the bytes of the resume's answer.
 */
export async function codexResume(binary: string, thread: CodexBigThread) {
  const proc = new LineClient(binary, thread);
  try {
    await proc.request("initialize", {
      clientInfo: { name: "mc-agent-bench", title: null, version: "1.0.0" },
      capabilities: null,
    });
    proc.send({ method: "initialized" });
    const started = performance.now();
    await proc.request("thread/resume", { threadId: thread.threadId });
    const resumeMs = performance.now() - started;
    const answerBytes = proc.longest;
    const completed = proc.waitFor(
      (m) => m.method === "turn/completed" && m.params?.threadId === thread.threadId,
    );
    await proc.request("turn/start", {
      threadId: thread.threadId,
      input: [{ type: "text", text: "Go on.", text_elements: [] }],
    });
    const admittedMs = performance.now() - started;
    const done = await completed;
    if (done.params?.turn?.status !== "completed")
      throw new Error(`the resumed Codex turn did not complete: ${JSON.stringify(done.params)}`);
    return { resumeMs, admittedMs, rss: peakRssMb(proc.pid), answerBytes };
  } finally {
    await proc.close();
  }
}

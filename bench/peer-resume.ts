import { randomUUID } from "node:crypto";
import { closeSync, openSync, readdirSync, readFileSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { Frame } from "../src/conformance/frame.js";
import { nextId, type Sandbox, sandbox, TestChild } from "../src/conformance/harness.js";
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

async function request(proc: TestChild, method: string, params: unknown) {
  const frame = await proc.request(method, params, nextId("codex"), 600_000);
  if (!frame.result) throw new Error(`codex ${method} failed: ${JSON.stringify(frame.error)}`);
  return frame.result as Record<string, unknown>;
}

/**
 * A fresh app-server (spawned and initialized untimed) resumes the thread and starts a turn:
 * ms from `thread/resume` written to its answer read (`resumeMs`) and to the `turn/start`
 * answer read (`admittedMs`, the turn accepted), and the process's peak RSS once the turn ended.
 */
export async function codexResume(binary: string, thread: CodexBigThread) {
  const proc = new TestChild({
    cwd: thread.box.workspace,
    home: thread.box.home,
    command: [binary, "app-server", "--strict-config"],
    env: { CODEX_HOME: thread.codexHome, [CODEX_KEY_ENV]: KEY },
  });
  try {
    await request(proc, "initialize", {
      clientInfo: { name: "mc-agent-bench", title: null, version: "1.0.0" },
      capabilities: null,
    });
    proc.send({ method: "initialized" });
    const started = performance.now();
    await request(proc, "thread/resume", { threadId: thread.threadId });
    const resumeMs = performance.now() - started;
    const completed = proc.waitFor((f: Frame) => {
      const n = f as unknown as { method?: string; params?: { threadId?: string } };
      return n.method === "turn/completed" && n.params?.threadId === thread.threadId;
    }, 600_000);
    await request(proc, "turn/start", {
      threadId: thread.threadId,
      input: [{ type: "text", text: "Go on.", text_elements: [] }],
    });
    const admittedMs = performance.now() - started;
    const done = (await completed) as unknown as { params?: { turn?: { status?: string } } };
    if (done.params?.turn?.status !== "completed")
      throw new Error(`the resumed Codex turn did not complete: ${JSON.stringify(done.params)}`);
    return { resumeMs, admittedMs, rss: peakRssMb(proc.pid) };
  } finally {
    proc.closeStdin();
    const timer = setTimeout(() => proc.kill("SIGKILL"), 5000);
    await proc.exited;
    clearTimeout(timer);
  }
}

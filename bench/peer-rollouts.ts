import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { nextId, type Sandbox, sandbox, TestChild } from "../src/conformance/harness.js";
import { RESPONSES } from "./turn-formats.js";
import { codexStreamer } from "./turn-peer-codex.js";
import { startBenchServer } from "./turn-server.js";

/**
 * Codex app-server's side of the listing bench: a store of Codex rollouts of a given count and
 * size, and a complete `thread/list` by a fresh `codex app-server`. The rollouts are clones of
 * one real rollout that Codex itself wrote for one real turn against the bench server (its
 * session_meta, instructions, turn context, user message, reply and token records), each with a
 * fresh thread ID and padded to its size with further assistant `response_item` records, as a
 * long conversation grows.
 */
export interface CodexStore {
  box: Sandbox;
  codexHome: string;
  cleanup(): void;
}

/** One real rollout: a Codex thread with one turn; its text and thread ID. */
async function realRollout(binary: string): Promise<{ text: string; id: string; config: string }> {
  const server = await startBenchServer();
  server.plan(() => RESPONSES.stream(["Listing ", "bench ", "reply."]));
  const box = sandbox("mc-bench-codex-rollout-");
  try {
    const codex = await codexStreamer(binary, RESPONSES, server, box);
    try {
      await codex.begin();
    } finally {
      await codex.close();
    }
    const codexHome = join(box.home, "codex");
    const found = findRollouts(join(codexHome, "sessions"));
    const path = found[0];
    if (path === undefined) throw new Error("Codex wrote no rollout");
    const id = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/.exec(
      path,
    )?.[1];
    if (!id) throw new Error("unexpected rollout name");
    const config = readFileSync(join(codexHome, "config.toml"), "utf8");
    return { text: readFileSync(path, "utf8"), id, config };
  } finally {
    await server.close();
    box.cleanup();
  }
}

function findRollouts(folder: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) out.push(...findRollouts(path));
    else if (entry.name.endsWith(".jsonl")) out.push(path);
  }
  return out;
}

function threadId(): string {
  const hex = randomBytes(16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
}

/** `count` rollouts of about `bytes` each, in a fresh CODEX_HOME; the workspace is `box`'s. */
export async function codexStore(
  binary: string,
  count: number,
  bytes: number,
): Promise<CodexStore> {
  const template = await realRollout(binary);
  const box = sandbox("mc-bench-codex-list-");
  const codexHome = join(box.home, "codex");
  const day = join(codexHome, "sessions", "2026", "12", "01");
  mkdirSync(day, { recursive: true });
  writeFileSync(join(codexHome, "config.toml"), template.config);
  const lines = template.text.trimEnd().split("\n").length;
  for (let i = 0; i < count; i += 1) {
    const id = threadId();
    const parts = [
      template.text.replaceAll(template.id, id).replaceAll(
        // The template's workspace is another sandbox's: each clone belongs to this one.
        /"cwd":"[^"]*"/g,
        `"cwd":${JSON.stringify(box.workspace)}`,
      ),
    ];
    let size = Buffer.byteLength(parts[0] as string);
    for (let ordinal = lines; size < bytes; ordinal += 1) {
      const pad = Math.max(1, Math.min(16_384, bytes - size - 200));
      const line = `${JSON.stringify({
        timestamp: "2026-12-01T10:00:00.000Z",
        ordinal,
        type: "response_item",
        payload: {
          type: "message",
          role: "assistant",
          content: [{ type: "output_text", text: "z".repeat(pad) }],
        },
      })}\n`;
      parts.push(line);
      size += line.length;
    }
    const stamp = `2026-12-01T10-00-${String(i % 60).padStart(2, "0")}`;
    writeFileSync(join(day, `rollout-${stamp}-${id}.jsonl`), parts.join(""));
  }
  return { box, codexHome, cleanup: () => box.cleanup() };
}

/** Removes Codex's thread index (its state database): the next start is a cold one. */
export function dropCodexIndex(store: CodexStore): void {
  for (const name of readdirSync(store.codexHome))
    if (/^state_\d+\.sqlite/.test(name)) rmSync(join(store.codexHome, name), { force: true });
}

/** A complete `thread/list` (cwd filter, pages of 100) by a fresh app-server; ms and rows. */
export async function codexListMs(binary: string, store: CodexStore) {
  const proc = new TestChild({
    cwd: store.box.workspace,
    home: store.box.home,
    command: [binary, "app-server", "--strict-config"],
    env: { CODEX_HOME: store.codexHome, MC_BENCH_CODEX_KEY: "sk-bench" },
  });
  try {
    const init = await proc.request(
      "initialize",
      { clientInfo: { name: "mc-agent-bench", title: null, version: "1.0.0" }, capabilities: null },
      nextId("codex"),
      60_000,
    );
    if (!init.result) throw new Error(`codex initialize failed: ${JSON.stringify(init.error)}`);
    proc.send({ method: "initialized" });
    const started = performance.now();
    let cursor: string | null = null;
    let rows = 0;
    do {
      const params = { cursor, limit: 100, cwd: store.box.workspace };
      const frame = await proc.request("thread/list", params, nextId("codex"), 300_000);
      const result = frame.result as { data: unknown[]; nextCursor: string | null } | undefined;
      if (!result) throw new Error(`codex thread/list failed: ${JSON.stringify(frame.error)}`);
      rows += result.data.length;
      cursor = result.nextCursor;
    } while (cursor);
    return { ms: performance.now() - started, rows };
  } finally {
    proc.closeStdin();
    const timer = setTimeout(() => proc.kill("SIGKILL"), 5000);
    await proc.exited;
    clearTimeout(timer);
  }
}

import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";

/**
 * The search bench's store: `count` histories of about `bytes` each, shaped like an agent's
 * (turns of a user message, an assistant reply, a shell call with its description, the call's
 * output, a closing reply: about a third of the bytes are searchable text, the rest tool output).
 * One history in NEEDLE_EVERY holds the needle once, in a user message half-way through; no
 * other record holds it. Eight bodies are generated and shared (with each history's own meta
 * record), so a store of gigabytes is written in seconds.
 */
export const NEEDLE = "flaky quokka";
export const NEEDLE_EVERY = 100;
const TS = "2026-11-29T10:00:00.000Z";
const VARIANTS = 8;
const WORDS = [
  "fix",
  "test",
  "build",
  "cache",
  "model",
  "parser",
  "store",
  "page",
  "lock",
  "retry",
  "timeout",
  "socket",
  "config",
  "module",
  "render",
  "schema",
  "index",
  "cursor",
  "buffer",
  "stream",
  "worker",
  "branch",
  "commit",
  "deploy",
  "token",
  "query",
  "layout",
  "handler",
];

export interface SearchStore {
  home: string;
  cwd: string;
  folder: string;
  /** Histories holding the needle (one hit each). */
  needles: number;
  bytes: number;
}

function words(seed: number, count: number): string {
  let state = seed >>> 0 || 1;
  const out: string[] = [];
  for (let i = 0; i < count; i += 1) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out.push(WORDS[state % WORDS.length] as string);
  }
  return out.join(" ");
}

/** One body (every record after the meta), as lines; the needle goes half-way. */
function body(variant: number, cwd: string, bytes: number): string[] {
  const lines: string[] = [];
  let size = 0;
  const base = { ts: TS, cwd };
  for (let turn = 0; size < bytes; turn += 1) {
    const seed = variant * 100_003 + turn * 7;
    const records = [
      { type: "user_message", ...base, text: words(seed, 25) },
      { type: "assistant_message", ...base, text: words(seed + 1, 200), model: "demo/demo-1" },
      {
        type: "tool_call",
        ...base,
        call_id: `c${turn}`,
        item_id: `i${turn}`,
        tool: "shell",
        input: { command: `npm test -- ${words(seed + 2, 3)}`, description: words(seed + 3, 6) },
      },
      {
        type: "tool_result",
        ...base,
        call_id: `c${turn}`,
        item_id: `i${turn}`,
        status: "completed",
        output: words(seed + 4, 700),
      },
      { type: "assistant_message", ...base, text: words(seed + 5, 90), model: "demo/demo-1" },
    ];
    for (const record of records) {
      const line = JSON.stringify(record);
      lines.push(line);
      size += line.length + 1;
    }
  }
  return lines;
}

export function buildSearchStore(root: string, count: number, bytes: number): SearchStore {
  const home = join(root, "home");
  const cwd = join(root, "workspace");
  const folder = join(home, "sessions");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const needleLine = JSON.stringify({
    type: "user_message",
    ts: TS,
    cwd,
    text: `why is the ${NEEDLE} test failing again?`,
  });
  const bodies = Array.from({ length: VARIANTS }, (_, v) => body(v, cwd, bytes));
  const plain = bodies.map((lines) => Buffer.from(`${lines.join("\n")}\n`));
  const withNeedle = bodies.map((lines) => {
    const half = Math.floor(lines.length / 2);
    const mixed = [...lines.slice(0, half), needleLine, ...lines.slice(half)];
    return Buffer.from(`${mixed.join("\n")}\n`);
  });
  let needles = 0;
  let total = 0;
  for (let i = 0; i < count; i += 1) {
    const id = `h${i}`;
    const meta = Buffer.from(`${JSON.stringify({ type: "session_meta", ts: TS, cwd, id })}\n`);
    const needle = i % NEEDLE_EVERY === 0;
    if (needle) needles += 1;
    const rest = (needle ? withNeedle : plain)[i % VARIANTS] as Buffer;
    const fd = openSync(join(folder, `${id}.jsonl`), "w", 0o600);
    try {
      writeSync(fd, meta);
      writeSync(fd, rest);
    } finally {
      closeSync(fd);
    }
    total += meta.length + rest.length;
  }
  return { home, cwd, folder, needles, bytes: total };
}

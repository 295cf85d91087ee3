import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";

/** The file's name under MC_HOME (docs/store.md, "The chat's input history"). */
const HISTORY_NAME = "chat-history.jsonl";
/** Past this size the file is rewritten with its newest messages, half this size at most. */
const HISTORY_FILE_BYTES = 1024 * 1024;
/** A longer message (a huge paste) is sent but not kept. */
const HISTORY_ENTRY_BYTES = 64 * 1024;
/** Messages Up/Down offers at most. */
const HISTORY_ENTRIES = 500;

/**
 * The chat's own input history across runs: one JSON string a line, oldest first, mode 0600,
 * never followed through a symlink. It is the CLI's file, not the backend's: the backend never
 * reads it. A file that cannot be read or written costs the history, never the chat: `problem`
 * says why once.
 */
export class HistoryFile {
  private warned = false;

  constructor(
    readonly path: string,
    private readonly onProblem: (text: string) => void,
  ) {}

  /**
   * In MC_HOME as the backend resolves it (docs/store.md: MC_HOME, or ~/.mc when unset or
   * empty); restated here because the CLI reaches the store only through the protocol.
   */
  static forHome(env: NodeJS.ProcessEnv, onProblem: (text: string) => void): HistoryFile {
    const home = env.MC_HOME ? resolve(env.MC_HOME) : join(homedir(), ".mc");
    return new HistoryFile(join(home, HISTORY_NAME), onProblem);
  }

  /** Newest first, at most HISTORY_ENTRIES; lines that are not JSON strings are skipped. */
  load(): string[] {
    let text: string;
    try {
      text = this.readTail();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") this.problem("cannot be read");
      return [];
    }
    const entries: string[] = [];
    for (const line of text.split("\n").reverse()) {
      const entry = parseEntry(line);
      if (entry !== null && !entries.includes(entry)) entries.push(entry);
      if (entries.length === HISTORY_ENTRIES) break;
    }
    return entries;
  }

  append(entry: string): void {
    const line = `${JSON.stringify(entry)}\n`;
    if (Buffer.byteLength(line) > HISTORY_ENTRY_BYTES) return;
    try {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      const fd = openSync(this.path, APPEND, 0o600);
      let size: number;
      try {
        writeSync(fd, line);
        size = fstatSync(fd).size;
      } finally {
        closeSync(fd);
      }
      if (size > HISTORY_FILE_BYTES) this.shrink();
    } catch {
      this.problem("cannot be written");
    }
  }

  /** Keeps the newest messages within half the bound: a temp file renamed over the old one. */
  private shrink(): void {
    const kept: string[] = [];
    let bytes = 0;
    for (const entry of this.load()) {
      const line = `${JSON.stringify(entry)}\n`;
      bytes += Buffer.byteLength(line);
      if (bytes > HISTORY_FILE_BYTES / 2) break;
      kept.unshift(line);
    }
    const temp = join(
      dirname(this.path),
      `.${HISTORY_NAME}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`,
    );
    const fd = openSync(temp, CREATE_NEW, 0o600);
    try {
      writeSync(fd, kept.join(""));
    } finally {
      closeSync(fd);
    }
    try {
      renameSync(temp, this.path);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
  }

  /** The last HISTORY_FILE_BYTES of the file (a first partial line is dropped by the parse). */
  private readTail(): string {
    const fd = openSync(
      this.path,
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile()) throw Object.assign(new Error("not a file"), { code: "EISDIR" });
      const length = Math.min(stat.size, HISTORY_FILE_BYTES);
      const buffer = Buffer.alloc(length);
      let read = 0;
      while (read < length) {
        const n = readSync(fd, buffer, read, length - read, stat.size - length + read);
        if (n === 0) break;
        read += n;
      }
      return buffer.subarray(0, read).toString("utf8");
    } finally {
      closeSync(fd);
    }
  }

  private problem(what: string): void {
    if (this.warned) return;
    this.warned = true;
    this.onProblem(
      `mc-agent: the chat history (MC_HOME/${HISTORY_NAME}) ${what}; going on without it.`,
    );
  }
}

const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

function parseEntry(line: string): string | null {
  if (line === "") return null;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "string" && value.trim() !== "" ? value : null;
  } catch {
    return null;
  }
}

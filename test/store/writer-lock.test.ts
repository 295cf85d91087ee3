import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { DirectoryPass } from "../../src/sessions/listing/discover-directory-pass.js";
import { LOCK_TIMING } from "../../src/store/lock-file.js";
import { SessionLocked, WriterLock } from "../../src/store/writer-lock.js";

const base = realpathSync(mkdtempSync(join(tmpdir(), "mc-lock-")));
after(() => rmSync(base, { recursive: true, force: true }));
let counter = 0;

function freshRoot(): string {
  counter += 1;
  const root = join(base, `s${counter}`);
  mkdirSync(root, { recursive: true, mode: 0o700 });
  return root;
}

function lockJson(root: string, id: string): { pid: number; renewed_at: string } {
  return JSON.parse(readFileSync(join(root, `${id}.lock`), "utf8"));
}

function writeLock(root: string, id: string, pid: number, ageMs: number): void {
  const renewed = new Date(Date.now() - ageMs).toISOString();
  writeFileSync(join(root, `${id}.lock`), `${JSON.stringify({ pid, renewed_at: renewed })}\n`);
}

/** A pid that certainly belonged to a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  const pid = child.pid as number;
  await new Promise((resolve) => child.once("exit", resolve));
  assert.throws(() => process.kill(pid, 0), { code: "ESRCH" });
  return pid;
}

/** A live process to stand for another writer; killed by the caller. */
function liveProcess(): ChildProcess {
  return spawn(process.execPath, ["-e", "setTimeout(() => {}, 600000)"], { stdio: "ignore" });
}

async function refused(promise: Promise<unknown>): Promise<void> {
  await assert.rejects(promise, (error: unknown) => error instanceof SessionLocked);
}

describe("WriterLock", () => {
  it("is created exclusively with {pid, renewed_at}, mode 0600, and removed on release", async () => {
    const root = freshRoot();
    const lock = await WriterLock.acquire(root, "s1");
    const content = lockJson(root, "s1");
    assert.equal(content.pid, process.pid);
    assert.ok(Math.abs(Date.parse(content.renewed_at) - Date.now()) < 60_000);
    assert.deepEqual(Object.keys(content), ["pid", "renewed_at"]);
    assert.equal(statSync(join(root, "s1.lock")).mode & 0o777, 0o600);
    // Held by this very process: a second writer is refused, the lock untouched.
    const inode = statSync(join(root, "s1.lock")).ino;
    await refused(WriterLock.acquire(root, "s1"));
    assert.equal(statSync(join(root, "s1.lock")).ino, inode);
    await lock.release();
    assert.equal(existsSync(join(root, "s1.lock")), false);
    await lock.release();
    // Free again.
    await (await WriterLock.acquire(root, "s1")).release();
  });

  it("renews in place: same inode, new renewed_at, and discovery's inventory is unchanged", async () => {
    const root = freshRoot();
    writeFileSync(join(root, "s1.jsonl"), "");
    const lock = await WriterLock.acquire(root, "s1", { renewMs: 20, staleMs: 60_000 });
    const before = lstatSync(join(root, "s1.lock"));
    const first = lockJson(root, "s1").renewed_at;
    const inventory = () => {
      const pass = new DirectoryPass(root);
      while (pass.next() !== null) {}
      return pass.signature;
    };
    const signed = inventory();
    // The timer renews on its own; wait (no tight timing) until it has.
    const deadline = Date.now() + 20_000;
    while (lockJson(root, "s1").renewed_at === first) {
      assert.ok(Date.now() < deadline, "the lock was never renewed");
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await lock.renew();
    const renewed = lstatSync(join(root, "s1.lock"));
    assert.equal(renewed.ino, before.ino);
    assert.equal(renewed.dev, before.dev);
    assert.ok(Date.parse(lockJson(root, "s1").renewed_at) >= Date.parse(first));
    assert.ok(inventory().equals(signed), "a renewal changed the inventory signature");
    await lock.release();
  });

  it("takes over a lock whose pid is dead, replacing it", async () => {
    const root = freshRoot();
    writeLock(root, "s1", await deadPid(), 0);
    const lock = await WriterLock.acquire(root, "s1");
    assert.equal(lockJson(root, "s1").pid, process.pid);
    assert.equal(await lock.owned(), true);
    // Only the lock itself is left: no takeover guard stays behind.
    assert.deepEqual(readdirSync(root), ["s1.lock"]);
    await lock.release();
  });

  it("refuses a live, fresh lock and takes over a live one not renewed for 60 s", async () => {
    const other = liveProcess();
    try {
      const root = freshRoot();
      writeLock(root, "fresh", other.pid as number, 50_000);
      const before = readFileSync(join(root, "fresh.lock"));
      await refused(WriterLock.acquire(root, "fresh"));
      assert.deepEqual(readFileSync(join(root, "fresh.lock")), before);
      writeLock(root, "stale", other.pid as number, LOCK_TIMING.staleMs + 10_000);
      const lock = await WriterLock.acquire(root, "stale");
      assert.equal(lockJson(root, "stale").pid, process.pid);
      await lock.release();
    } finally {
      other.kill("SIGKILL");
    }
  });

  it("takes over our own pid's lock when this process does not hold it (a reused pid)", async () => {
    const root = freshRoot();
    writeLock(root, "s1", process.pid, 0);
    const lock = await WriterLock.acquire(root, "s1");
    await refused(WriterLock.acquire(root, "s1"));
    await lock.release();
  });

  it("judges content that is not a lock by its mtime; never touches a symlink or folder", async () => {
    const root = freshRoot();
    // Empty: a writer between its exclusive create and its write.
    writeFileSync(join(root, "new.lock"), "");
    await refused(WriterLock.acquire(root, "new"));
    writeFileSync(join(root, "old.lock"), "garbage");
    const old = new Date(Date.now() - 30_000);
    utimesSync(join(root, "old.lock"), old, old);
    await (await WriterLock.acquire(root, "old")).release();
    symlinkSync(join(root, "elsewhere"), join(root, "link.lock"));
    await refused(WriterLock.acquire(root, "link"));
    assert.ok(lstatSync(join(root, "link.lock")).isSymbolicLink());
    mkdirSync(join(root, "dir.lock"));
    await refused(WriterLock.acquire(root, "dir"));
  });

  it("clears a takeover guard left by a dead taker; waits on a live one", async () => {
    const root = freshRoot();
    const dead = await deadPid();
    writeLock(root, "s1", dead, 0);
    writeFileSync(
      join(root, ".s1.lock.takeover"),
      JSON.stringify({ pid: dead, renewed_at: new Date().toISOString() }),
    );
    const lock = await WriterLock.acquire(root, "s1");
    assert.deepEqual(readdirSync(root), ["s1.lock"]);
    await lock.release();
    const other = liveProcess();
    try {
      writeLock(root, "s2", dead, 0);
      writeFileSync(
        join(root, ".s2.lock.takeover"),
        JSON.stringify({ pid: other.pid, renewed_at: new Date().toISOString() }),
      );
      // Someone is taking it over right now: not ours to take.
      await refused(WriterLock.acquire(root, "s2"));
      assert.equal(lockJson(root, "s2").pid, dead);
    } finally {
      other.kill("SIGKILL");
    }
  });

  it("release removes only our own lock", async () => {
    const root = freshRoot();
    const lock = await WriterLock.acquire(root, "s1");
    // Someone replaced it (a takeover after we stalled): ours no more.
    rmSync(join(root, "s1.lock"));
    writeLock(root, "s1", 1, 0);
    assert.equal(await lock.owned(), false);
    await lock.release();
    assert.equal(lockJson(root, "s1").pid, 1);
  });

  it("lets exactly one of several racing processes take over a stale lock", async () => {
    const root = freshRoot();
    writeLock(root, "race", await deadPid(), 0);
    const script = fileURLToPath(new URL("./lock-racer.js", import.meta.url));
    const racers = Array.from({ length: 6 }, () =>
      spawn(process.execPath, [script, root, "race"], { stdio: ["pipe", "pipe", "inherit"] }),
    );
    try {
      const lines = racers.map(linesOf);
      for (const next of lines) assert.equal(await next(), "ready");
      for (const racer of racers) racer.stdin?.write("go\n");
      const verdicts = await Promise.all(lines.map((next) => next()));
      assert.equal(verdicts.filter((v) => v === "won").length, 1, verdicts.join(","));
      assert.equal(verdicts.filter((v) => v === "locked").length, 5, verdicts.join(","));
    } finally {
      for (const racer of racers) racer.stdin?.end();
      await Promise.all(racers.map((r) => new Promise((resolve) => r.once("exit", resolve))));
    }
    assert.deepEqual(readdirSync(root), []);
  });
});

/** Reads a child's stdout line by line: each call resolves with the next line. */
function linesOf(child: ChildProcess): () => Promise<string> {
  const queue: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let text = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    text += chunk;
    for (let lf = text.indexOf("\n"); lf !== -1; lf = text.indexOf("\n")) {
      const line = text.slice(0, lf);
      text = text.slice(lf + 1);
      const waiter = waiting.shift();
      if (waiter) waiter(line);
      else queue.push(line);
    }
  });
  return () =>
    new Promise((resolve, reject) => {
      const queued = queue.shift();
      if (queued !== undefined) return resolve(queued);
      const timer = setTimeout(() => reject(new Error("racer never answered")), 60_000);
      waiting.push((line) => {
        clearTimeout(timer);
        resolve(line);
      });
    });
}

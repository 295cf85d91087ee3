import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ConformanceCase } from "../case.js";
import { type CallSpec, call, type Script, text, toolCalls } from "../chat-server.js";
import { delay, within } from "../expect.js";
import type { Sandbox, TestChild } from "../harness.js";
import { seededRandom } from "../random.js";
import { finishTurn, historyOf, runTurn, type StartedTurn, startTurn } from "../turn-driver.js";
import { TURN_CAPABILITIES, withTurnWorld } from "../turn-world.js";

/**
 * kill -9 at random moments of turns that write files, edit them and run a command (issue 17):
 * after every kill the saved history is valid (a torn last line is allowed and read as the
 * history ending before it: turns.md section 8), every workspace file holds its old or its new
 * content whole (a temp file may be left only under the documented orphan name, and none after
 * the next completed write), and the next child takes the dead writer's lock over: its turn on
 * the same session is admitted. The moments (after how many of the turn's events, then how many
 * ms) come from a seeded generator (MC_FUZZ_SEED replays).
 */
const KILLS = 50;
const FILES = ["a.txt", "b.txt"];
/**
 * About 16 KB of UTF-8: a kill can land inside the write, and the `tool_call` record carrying it
 * still fits one `session.history` page (an event over `page_bytes` cannot be paged at all).
 */
const CONTENT_CHARS = 10_000;
const ORPHAN_TEMP = /^\.(a|b)\.txt\.\d{1,7}\.[0-9a-f]{12}\.tmp$/;

function content(tag: string): string {
  const line = `${tag} ${"é-😀-".repeat(10)}\n`;
  return line.repeat(Math.ceil(CONTENT_CHARS / line.length));
}

function read(box: Sandbox, name: string): string {
  return readFileSync(join(box.workspace, name), "utf8");
}

/** This turn's model calls: write a.txt whole, edit b.txt's first line, run a command. */
function turnScript(box: Sandbox, step: number): { replies: Script[]; next: Map<string, string> } {
  const oldB = read(box, "b.txt");
  const firstLine = oldB.slice(0, oldB.indexOf("\n"));
  const nextA = content(`a${step}`);
  const nextB = oldB.replace(firstLine, `b${step}`);
  const calls: CallSpec[] = [
    call("write_file", { path: "a.txt", content: nextA }),
    call("edit_file", { path: "b.txt", old_text: firstLine, new_text: `b${step}` }),
    call("shell", { command: "echo start; sleep 0.05; echo end" }),
  ];
  return {
    replies: [toolCalls(calls), text(`Step ${step} done.`)],
    next: new Map([
      ["a.txt", nextA],
      ["b.txt", nextB],
    ]),
  };
}

/** Every workspace file is its old or its new content; nothing else but orphan temps. */
function assertWholeFiles(
  box: Sandbox,
  old: Map<string, string>,
  next: Map<string, string>,
  where: string,
): void {
  for (const name of FILES) {
    const now = read(box, name);
    assert.ok(
      now === old.get(name) || now === next.get(name),
      `${where}: ${name} is neither its old nor its new content (${now.length} chars)`,
    );
  }
  for (const entry of readdirSync(box.workspace)) {
    if (FILES.includes(entry)) continue;
    assert.ok(ORPHAN_TEMP.test(entry), `${where}: an unexpected workspace entry ${entry}`);
    assert.ok(statSync(join(box.workspace, entry)).isFile(), `${where}: ${entry} is a file`);
  }
}

/**
 * The history off the disk: every LF-terminated line a JSON record with a type; a last line
 * without LF must be a torn record (not parser-valid). Returns whether the tail is torn.
 */
function assertValidHistoryFile(box: Sandbox, id: string, where: string): boolean {
  const text = readFileSync(join(box.home, "sessions", `${id}.jsonl`), "utf8");
  const lines = text.split("\n");
  const tail = lines.pop() as string;
  for (const [n, line] of lines.entries()) {
    let record: { type?: unknown };
    try {
      record = JSON.parse(line);
    } catch {
      assert.fail(`${where}: history line ${n + 1} is not JSON (a torn line before the end)`);
    }
    assert.equal(typeof record.type, "string", `${where}: history line ${n + 1} has a type`);
  }
  if (tail === "") return false;
  assert.throws(() => JSON.parse(tail), `${where}: a whole record lacks its LF`);
  return true;
}

/** Resolves once the turn sent `count` events, or its result. */
async function untilEvents(child: TestChild, turn: StartedTurn, count: number): Promise<void> {
  for (;;) {
    if (turn.events().length >= count || child.frames.some((f) => f.id === turn.id)) return;
    await child.waitFor(
      (f) =>
        f.id === turn.id ||
        (f as { params?: { request_id?: unknown } }).params?.request_id === turn.id,
      30_000,
    );
  }
}

/**
 * Starts a turn and waits for `count` of its events (or its result): it must be admitted, the
 * dead writer's lock taken over. The one documented wait: a lock file without a lock's content
 * (a writer killed between its exclusive create and its write) is live until its mtime is 10 s
 * old (docs/store.md, Locks); then the turn is sent again and must be admitted.
 */
async function admittedTurn(
  child: TestChild,
  box: Sandbox,
  id: string,
  count: number,
  where: string,
): Promise<StartedTurn> {
  for (let attempt = 0; ; attempt += 1) {
    const turn = startTurn(child, "Edit the files.", "full_access");
    await untilEvents(child, turn, count);
    if (turn.events().length > 0) {
      assert.equal(turn.events()[0]?.event.type, "turn_started", `${where}: turn_started first`);
      return turn;
    }
    const refused = await turn.response;
    const code = refused.error?.code;
    const lock = lockOf(box, id);
    assert.ok(
      code === "session_locked" && lock.unwritten && attempt === 0,
      `${where}: the turn after the kill was refused ${code} (lock ${lock.describe})`,
    );
    await delay(Math.max(0, lock.mtimeMs + LOCK_GRACE_MS - Date.now()));
  }
}

/** Past docs/store.md's 10 s for a lock without content, with a margin for a loaded machine. */
const LOCK_GRACE_MS = 10_000 + 2000;

function lockOf(
  box: Sandbox,
  id: string,
): { unwritten: boolean; mtimeMs: number; describe: string } {
  const path = join(box.home, "sessions", `${id}.lock`);
  let text: string;
  let mtimeMs: number;
  try {
    text = readFileSync(path, "utf8");
    mtimeMs = statSync(path).mtimeMs;
  } catch {
    return { unwritten: false, mtimeMs: 0, describe: "missing" };
  }
  let pid: unknown;
  try {
    pid = (JSON.parse(text) as { pid?: unknown }).pid;
  } catch {}
  if (typeof pid !== "number") return { unwritten: true, mtimeMs, describe: "without content" };
  let alive = true;
  try {
    process.kill(pid, 0);
  } catch (error) {
    alive = (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
  return { unwritten: false, mtimeMs, describe: `of pid ${pid}, ${alive ? "alive" : "dead"}` };
}

/** The next child lists, discovers, opens and reads the session as valid. */
async function assertReadable(child: TestChild, id: string, where: string): Promise<void> {
  const list = await child.call("session.list", {});
  assert.ok(
    list.sessions.some((s) => s.id === id),
    `${where}: the session is listed (notices ${JSON.stringify(list.notices)})`,
  );
  assert.deepEqual(list.notices, [], `${where}: no history omitted as invalid`);
  const found = await child.call("session.discover", {});
  assert.ok(
    found.sessions.some((s) => s.id === id) || !found.complete,
    `${where}: discovery finds the session`,
  );
  const opened = await child.call("session.open", { id });
  assert.equal(opened.session.id, id, `${where}: the session re-opens`);
  await historyOf(child, id);
}

export const TURN_AUDIT_KILL_CASES: ConformanceCase[] = [
  {
    id: "turns.audit.kill9.edits_and_shell",
    tier: "MUST",
    clause:
      "turns.md §8: Each record is one line written by one append ... torn tails: every reader treats the history as ending before it (not invalid); the next writer truncates it before appending. tools: writes are atomic. base: a dead writer's lock is taken over.",
    title: `kill -9 at ${KILLS} random moments of turns with edits and shell: valid histories, whole files, locks taken over`,
    async run(ctx) {
      const random = seededRandom();
      const capabilities = [...TURN_CAPABILITIES, "session.discover"];
      await withTurnWorld(
        ctx,
        async ({ child, server, respawn }) => {
          let replies: Script[] = [];
          const fallback = text("Nothing more.");
          // A killed turn's unused replies must not answer the next turn's calls.
          server.otherwise((exchange) => (replies.shift() ?? fallback)(exchange));
          const box = ctx.box;
          writeFileSync(join(box.workspace, "a.txt"), content("a-init"));
          writeFileSync(join(box.workspace, "b.txt"), `b-init\n${content("b-body")}`);
          const { session } = await child.call("session.create", {});
          let script = turnScript(box, 0);
          replies = script.replies;
          const first = await runTurn(child, "Edit the files.", "full_access");
          assert.equal(first.result.status, "completed", "the first turn completes");
          let current = child;
          for (let kill = 1; kill <= KILLS; kill += 1) {
            const old = new Map(FILES.map((name) => [name, read(box, name)]));
            script = turnScript(box, kill);
            replies = script.replies;
            // The moment: right after sending (0), or after the turn's n-th event (its result
            // when it has fewer), then 0-15 ms more: anywhere from admission to the end.
            const events = random.int(0, 14);
            const at = random.int(0, events === 0 ? 20 : 15);
            const where = `seed ${random.seed}, kill ${kill} after ${events} events + ${at} ms`;
            if (events > 0) await admittedTurn(current, box, session.id, events, where);
            else startTurn(current, "Edit the files.", "full_access");
            await delay(at);
            current.kill("SIGKILL");
            await within(current.exited, 5000, "killed child exit");
            assertWholeFiles(box, old, script.next, where);
            assertValidHistoryFile(box, session.id, where);
            current = await respawn(capabilities);
            await assertReadable(current, session.id, where);
          }
          script = turnScript(box, KILLS + 1);
          replies = script.replies;
          const last = await finishTurn(
            current,
            await admittedTurn(current, box, session.id, 1, "after the last kill"),
          );
          assert.equal(last.result.status, "completed", "the turn after the last kill completes");
          for (const name of FILES)
            assert.equal(read(box, name), script.next.get(name), `${name} has the last content`);
          const temps = readdirSync(box.workspace).filter((e) => !FILES.includes(e));
          assert.deepEqual(temps, [], "no temp file left after a completed write of each target");
          assert.equal(
            assertValidHistoryFile(box, session.id, "at the end"),
            false,
            "no torn tail",
          );
          await assertReadable(current, session.id, "at the end");
        },
        { capabilities },
      );
    },
  },
];

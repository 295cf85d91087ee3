import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { text } from "../fixtures/chat-completions-server.js";
import { CHILD_BIN } from "../helpers/child.js";
import { runCli } from "../helpers/cli.js";
import { hasScript, PtyRun, shellQuote } from "../helpers/pty.js";
import { cliTurnWorld } from "./cli-turn-world.js";

const PROMPT = "› ";

/** The exit code, or a failure with the screen after 40 s (a chat that never ends fails, never hangs). */
async function ended(p: PtyRun): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`still running: ${JSON.stringify(p.output.slice(-800))}`)),
      40_000,
    );
  });
  try {
    return await Promise.race([p.done, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A saved history of `cwd`: a first exchange at `minute` past 10:00 UTC, a title, `extra` more. */
function writeSession(
  home: string,
  id: string,
  cwd: string,
  minute: number,
  exchanges: [string, string][] = [[`Question of ${id}`, `Answer of ${id}`]],
): void {
  const dir = join(home, "sessions");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const at = (second: number) => new Date(Date.UTC(2026, 10, 29, 10, minute, second)).toISOString();
  const records: object[] = [{ type: "session_meta", ts: at(0), cwd, id }];
  exchanges.forEach(([question, answer], i) => {
    records.push({ type: "user_message", ts: at(i * 2 + 1), cwd, text: question });
    records.push({ type: "assistant_message", ts: at(i * 2 + 2), cwd, text: answer });
  });
  records.push({ type: "title", ts: at(59), cwd, title: `Title ${id}` });
  writeFileSync(join(dir, `${id}.jsonl`), records.map((r) => `${JSON.stringify(r)}\n`).join(""));
}

/** resume, sessions and ID prefixes against the real child and a loopback model. */
describe("mc-agent resume and sessions (real child)", () => {
  const world = cliTurnWorld("mc-cli-resume-");
  const run = (args: string[], extra: Record<string, string> = {}, cwd = world.box.workspace) =>
    runCli(args, { cwd, env: { ...world.env, TZ: "UTC", ...extra }, timeoutMs: 40_000 });

  it("sessions: newest first once validated, --limit N (default 20) and --all, in local time", async () => {
    for (let i = 0; i < 25; i += 1)
      writeSession(world.box.home, `s${String(i).padStart(2, "0")}`, world.box.workspace, i);
    const shown = await run(["sessions"]);
    assert.equal(shown.code, 0, shown.stderr);
    const ids = (out: string) => [...out.matchAll(/^(s\d\d) /gm)].map((m) => m[1]);
    assert.deepEqual(ids(shown.stdout).slice(0, 3), ["s24", "s23", "s22"]);
    assert.equal(ids(shown.stdout).length, 20);
    assert.match(shown.stdout, /… 5 older sessions \(--all shows every one, --limit N more\)/);
    assert.match(shown.stdout, /^s24 +Title s24 +2026-11-29 10:24 +\$0\.00$/m);
    const two = await run(["sessions", "--limit", "2"]);
    assert.deepEqual(ids(two.stdout), ["s24", "s23"]);
    const all = await run(["sessions", "--all"]);
    assert.equal(ids(all.stdout).length, 25);
    assert.equal(ids(all.stdout).at(-1), "s00");
    // Local time: the same instant in Tokyo (UTC+9).
    const tokyo = await run(["sessions", "-n", "1"], { TZ: "Asia/Tokyo" });
    assert.match(tokyo.stdout, /^s24 +Title s24 +2026-11-29 19:24 +\$0\.00$/m);
    for (const bad of [
      ["--limit", "0"],
      ["--limit", "x"],
      ["--all", "--limit", "3"],
    ]) {
      const r = await run(["sessions", ...bad]);
      assert.equal(r.code, 2, bad.join(" "));
    }
  });

  it("a subfolder of a workspace points to the workspace's sessions; its own listing stays exact", async () => {
    mkdirSync(join(world.box.workspace, ".git"));
    const sub = join(world.box.workspace, "src", "deep");
    mkdirSync(sub, { recursive: true });
    writeSession(world.box.home, "top-1", world.box.workspace, 1);
    const r = await run(["sessions"], {}, sub);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^No saved sessions for this folder\.$/m);
    assert.ok(
      r.stdout.includes(
        `This folder (deep) is inside the workspace ${world.box.workspace}, which has 1 saved session;`,
      ),
      r.stdout,
    );
    assert.ok(
      !r.stdout.includes("top-1"),
      "the workspace's sessions are not listed as this folder's",
    );
    const resume = await run(["resume", "--last"], {}, sub);
    assert.equal(resume.code, 1);
    assert.match(
      resume.stderr,
      /No saved session for this folder to resume \(session_missing\)\. This folder \(deep\) is inside the workspace /,
    );
    // At the workspace's top there is no hint.
    const top = await run(["sessions"]);
    assert.ok(!top.stdout.includes("inside the workspace"), top.stdout);
  });

  it("an ID prefix: unique opens (show), ambiguous names the candidates", async () => {
    writeSession(world.box.home, "alpha-one", world.box.workspace, 1);
    writeSession(world.box.home, "alpha-two", world.box.workspace, 2);
    writeSession(world.box.home, "beta", world.box.workspace, 3);
    const shown = await run(["show", "be"]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^Title beta$/m);
    const ambiguous = await run(["show", "alpha"]);
    assert.equal(ambiguous.code, 1);
    assert.equal(
      ambiguous.stderr,
      'mc-agent: "alpha" is the start of 2 session IDs of this folder (session_ambiguous). Type more of it: alpha-two, alpha-one.\n',
    );
    const none = await run(["show", "gamma"]);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /\(session_missing\)/);
  });

  describe("at a terminal", {
    skip: hasScript() ? false : "util-linux script is not installed",
  }, () => {
    const pty = (args: string[]) => {
      const line = `exec ${[process.execPath, CHILD_BIN, ...args].map(shellQuote).join(" ")}`;
      const p = new PtyRun(line, {
        cwd: world.box.workspace,
        env: { ...world.env, NO_COLOR: "1", TZ: "UTC" },
      });
      world.closeAfter(() => p.kill());
      return p;
    };

    it("resume --last continues the newest session and shows its last exchanges", async () => {
      writeSession(world.box.home, "older", world.box.workspace, 1);
      writeSession(world.box.home, "newer", world.box.workspace, 5, [
        ["First question", "First answer"],
        ["Second question", "Second answer\nover two lines"],
        ["Third question", "Third answer"],
        ["Fourth question", "Fourth answer"],
      ]);
      world.server.reply(text("Continuing."));
      const p = pty(["resume", "--last"]);
      await p.waitFor(PROMPT, 30_000);
      assert.match(p.output, /· session newer\r?\n/);
      const recap = p.output.slice(p.output.indexOf("where this session stood"));
      assert.ok(!recap.includes("First question"), "only the last three exchanges");
      for (const part of [
        "you: Second question",
        "assistant: Second answer",
        "over two lines",
        "you: Fourth question",
        "assistant: Fourth answer",
      ])
        assert.ok(recap.includes(part), part);
      p.type("Go on\r");
      await p.waitFor("Continuing.", 30_000);
      const messages = world.server.requests[0]?.body.messages as {
        role: string;
        content: string;
      }[];
      assert.deepEqual(messages.slice(1, 3), [
        { role: "user", content: "First question" },
        { role: "assistant", content: "First answer" },
      ]);
      // Typed while the turn runs it would go to the live input line: wait for the prompt after it.
      await p.waitFor("✓ 1 step", 30_000);
      const after = p.output.lastIndexOf("✓ 1 step");
      for (let i = 0; i < 1200 && !p.output.slice(after).includes(PROMPT); i += 1)
        await new Promise((r) => setTimeout(r, 25));
      p.type("/exit\r");
      assert.equal(await ended(p), 0, p.output);
      assert.ok(p.output.includes("Resume this session with: mc-agent resume newer"));
    });

    it("resume by a unique prefix of the ID", async () => {
      writeSession(world.box.home, "c0ffee-1234", world.box.workspace, 1);
      writeSession(world.box.home, "beef-5678", world.box.workspace, 2);
      const p = pty(["resume", "c0f"]);
      await p.waitFor(PROMPT, 30_000);
      assert.match(p.output, /· session c0ffee-1234\r?\n/);
      assert.ok(p.output.includes("you: Question of c0ffee-1234"));
      p.type("\x04");
      assert.equal(await ended(p), 0, p.output);
    });

    it("the picker lists this folder's sessions newest first with title and time; a number picks", async () => {
      writeSession(world.box.home, "first-one", world.box.workspace, 1);
      writeSession(world.box.home, "second-one", world.box.workspace, 2);
      writeSession(world.box.home, "third-one", world.box.workspace, 3);
      writeSession(world.box.home, "foreign", "/elsewhere", 4);
      const p = pty(["resume"]);
      await p.waitFor("Resume which? (number or start of an ID; Enter quits): ", 30_000);
      const list = p.output.slice(0, p.output.indexOf("Resume which?"));
      assert.match(list, / 1 {2}third-one +2026-11-29 10:03 {2}Title third-one/);
      assert.match(list, / 2 {2}second-one +2026-11-29 10:02 {2}Title second-one/);
      assert.match(list, / 3 {2}first-one +2026-11-29 10:01 {2}Title first-one/);
      assert.ok(!list.includes("foreign"));
      p.type("9\r");
      await p.waitFor("No session here starts with");
      p.type("2\r");
      await p.waitFor(PROMPT, 30_000);
      assert.match(p.output, /· session second-one\r?\n/);
      p.type("\x04");
      assert.equal(await ended(p), 0, p.output);
    });

    it("Enter at the picker quits without resuming anything", async () => {
      writeSession(world.box.home, "only", world.box.workspace, 1);
      const p = pty(["resume"]);
      await p.waitFor("Resume which?", 30_000);
      p.type("\r");
      assert.equal(await ended(p), 0, p.output);
      assert.ok(!p.output.includes("mc-agent chat ·"));
    });
  });

  it("without a terminal the picker is refused; --last and an ID work", async () => {
    writeSession(world.box.home, "solo", world.box.workspace, 1);
    world.server.reply(text("Piped on."));
    const picker = await runCli(["resume"], {
      cwd: world.box.workspace,
      env: world.env,
      input: "",
    });
    assert.equal(picker.code, 2);
    assert.match(picker.stderr, /no terminal to pick a session on: pass --last or a session ID/);
    const last = await runCli(["resume", "--last"], {
      cwd: world.box.workspace,
      env: world.env,
      input: "Carry on\n",
      timeoutMs: 40_000,
    });
    assert.equal(last.code, 0, last.stderr);
    assert.equal(last.stdout, "Piped on.\n");
    assert.match(last.stderr, /Resume this session with: mc-agent resume solo/);
  });
});

import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { livingMembers } from "../../src/agent/tools/process-group.js";
import { type Frame, sandbox, TestChild } from "../helpers/child.js";
import { descendants, MEMORY, writeMcpHome } from "./mcp-world.js";

/**
 * Stdio servers started through a wrapper (`sh -c`), as `npx` and launcher scripts start them:
 * the real server is a grandchild of the child. Each server is its own process group, and its
 * stop signals the group, so no process of it outlives the child.
 */

type Note = Frame & { method?: string; params?: { server: { name: string; state: string } } };

const ready = (name: string) => (f: Note) =>
  f.method === "mcp.changed" && f.params?.server.name === name && f.params.server.state === "ready";

function seen(child: TestChild, match: (f: Note) => boolean): Promise<Note> {
  const found = child.frames.find(match);
  return found ? Promise.resolve(found) : child.waitFor(match, 120_000);
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
const NODE = quote(process.execPath);

/** `sh -c` running `script`, with the real memory server as its last, foreground command. */
const wrapped = (script: string) => ({
  command: "/bin/sh",
  // `; exit $?` keeps the shell from exec'ing the server: it stays a grandchild.
  args: ["-c", `${script}${NODE} ${quote(MEMORY)}; exit $?`],
  startup_timeout_ms: 100_000,
});

function processGroup(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
}

/** The group of each server the child spawned (its direct children), by a word of its script. */
function serverGroups(child: TestChild, words: string[]): Map<string, number> {
  const direct = descendants(child.pid as number).filter((p) => p.ppid === child.pid);
  const groups = new Map<string, number>();
  for (const word of words) {
    const wrapper = direct.find((p) => p.cmdline.includes(word));
    assert.ok(wrapper, `the ${word} wrapper runs`);
    groups.set(word, processGroup(wrapper.pid));
    assert.equal(processGroup(wrapper.pid), wrapper.pid, "the wrapper leads its own group");
  }
  return groups;
}

/** Whether process `pid` runs (a zombie does not: it is only waiting for its parent's wait). */
function runs(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Polls until `check` holds, failing after a deadline generous for a loaded machine. */
async function eventually(check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 60_000;
  while (!check()) {
    assert.ok(Date.now() < end, `still running after 60 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Polls until no process of any of the groups runs (the test's timeout bounds it). */
async function groupsGone(groups: Iterable<number>): Promise<void> {
  const all = [...groups];
  while (all.some((g) => livingMembers(g).length > 0))
    await new Promise((resolve) => setTimeout(resolve, 50));
}

describe("MCP stdio servers behind a wrapper: the whole process group ends", {
  timeout: 600_000,
}, () => {
  for (const end of ["shutdown", "stdin EOF"] as const) {
    test(`${end}: a grandchild that ignores EOF and SIGTERM, and one that closed its pipes, are gone`, async () => {
      const box = sandbox("mc-mcp-group-");
      // Holds the server's stdout open and ignores SIGTERM: only a SIGKILL to the group ends it.
      const stubborn = join(box.root, "stubborn.js");
      writeFileSync(stubborn, 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000);');
      writeMcpHome(box.home, {
        holder: wrapped(`${NODE} ${quote(stubborn)} & `),
        // A leftover with its output elsewhere: the server's pipes close without it.
        leftover: wrapped("sleep 600 </dev/null >/dev/null 2>&1 & "),
      });
      const child = new TestChild({ cwd: box.workspace, home: box.home });
      try {
        await child.initialize(["mcp"]);
        await seen(child, ready("holder"));
        await seen(child, ready("leftover"));
        const groups = serverGroups(child, ["stubborn.js", "sleep 600"]);
        for (const [word, group] of groups) {
          assert.notEqual(group, processGroup(child.pid as number), "not the child's group");
          // The shell, the real server, the extra process and the watchdog (group-watchdog.ts).
          assert.equal(livingMembers(group).length, 4, `${word}: four processes`);
        }
        if (end === "shutdown") {
          const answer = await child.request("shutdown", {});
          assert.deepEqual(answer.result, { state: "stopped" });
        } else child.closeStdin();
        await child.exited;
        await groupsGone(groups.values());
      } finally {
        await child.close();
        box.cleanup();
      }
    });
  }

  // A group of its own does not get the terminal's signals; the child's own death still ends a
  // server that honours EOF, wrapper and all (docs/mcp.md, "Lifecycle").
  test("kill -9 of the child: the wrapped server ends at its stdin's EOF, and so does its wrapper", async () => {
    const box = sandbox("mc-mcp-group-");
    writeMcpHome(box.home, { plain: wrapped(": plain; ") });
    const child = new TestChild({ cwd: box.workspace, home: box.home });
    try {
      await child.initialize(["mcp"]);
      await seen(child, ready("plain"));
      const groups = serverGroups(child, [": plain"]);
      // The wrapper, the server and the watchdog.
      assert.equal(livingMembers(groups.get(": plain") as number).length, 3);
      child.kill("SIGKILL");
      await child.exited;
      await groupsGone(groups.values());
    } finally {
      await child.close();
      box.cleanup();
    }
  });

  // Issue 35, item 13: the server exits at EOF, but what its wrapper started beside it has no
  // stdin of ours to end it; the group's watchdog (group-watchdog.ts) kills it.
  test("kill -9 of the child: a wrapper's long-lived grandchild ends with the server", async () => {
    const box = sandbox("mc-mcp-group-");
    const pidFile = join(box.root, "grandchild.pid");
    writeMcpHome(box.home, {
      spawner: {
        command: "/bin/sh",
        args: [
          "-c",
          `sleep 600 </dev/null >/dev/null 2>&1 & echo $! > ${quote(pidFile)}; ` +
            `exec ${NODE} ${quote(MEMORY)}`,
        ],
        startup_timeout_ms: 100_000,
      },
    });
    const child = new TestChild({ cwd: box.workspace, home: box.home });
    try {
      await child.initialize(["mcp"]);
      await seen(child, ready("spawner"));
      const status = await child.request("mcp.status", {});
      const servers = (status.result as { servers: { name: string; state: string }[] }).servers;
      assert.deepEqual(
        servers.map((s) => [s.name, s.state]),
        [["spawner", "ready"]],
      );
      assert.ok(existsSync(pidFile), "the wrapper wrote its grandchild's pid");
      const grandchild = Number(readFileSync(pidFile, "utf8").trim());
      const server = descendants(child.pid as number).find(
        (p) => p.ppid === child.pid && p.cmdline.includes(MEMORY),
      );
      assert.ok(server, "the server runs as the child's own child (the wrapper exec'd it)");
      assert.ok(runs(grandchild), "the grandchild runs");
      assert.equal(processGroup(grandchild), server.pid, "the grandchild is in the server's group");
      child.kill("SIGKILL");
      await child.exited;
      await eventually(() => !runs(server.pid), "the server");
      await eventually(() => !runs(grandchild), "the wrapper's grandchild");
      await eventually(() => livingMembers(server.pid).length === 0, "the server's group");
    } finally {
      await child.close();
      box.cleanup();
    }
  });
});

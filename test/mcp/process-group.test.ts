import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
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
          // The shell, the real server and the extra process.
          assert.equal(livingMembers(group).length, 3, `${word}: three processes`);
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
      assert.equal(livingMembers(groups.get(": plain") as number).length, 2);
      child.kill("SIGKILL");
      await child.exited;
      await groupsGone(groups.values());
    } finally {
      await child.close();
      box.cleanup();
    }
  });
});

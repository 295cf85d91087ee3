import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type Frame, sandbox, TestChild } from "../helpers/child.js";
import {
  allGone,
  descendants,
  environOf,
  everythingStdio,
  hanging,
  memoryStdio,
  startEverythingHttp,
  writeMcpHome,
} from "./mcp-world.js";

type Status = {
  name: string;
  transport: string;
  state: string;
  tools: number;
  error: string | null;
};

type Note = Frame & { method?: string; params?: { server: Status } };

const changed = (name: string, state: string) => (f: Note) =>
  f.method === "mcp.changed" && f.params?.server.name === name && f.params.server.state === state;

/** The first frame that matches, already received or still to come. */
function seen(child: TestChild, match: (f: Note) => boolean, timeoutMs = 120_000): Promise<Note> {
  const found = child.frames.find(match);
  return found ? Promise.resolve(found) : child.waitFor(match, timeoutMs);
}

async function status(child: TestChild): Promise<Status[]> {
  const answer = await child.request("mcp.status", {});
  assert.ok(answer.result, JSON.stringify(answer.error));
  return (answer.result as { servers: Status[] }).servers;
}

/** The stdio servers the child started, found in the process table once they are ready. */
function serverPids(child: TestChild): number[] {
  return descendants(child.pid as number)
    .filter((p) => p.cmdline.includes("@modelcontextprotocol/server-"))
    .map((p) => p.pid);
}

describe("MCP servers in the child (real official servers)", { timeout: 900_000 }, () => {
  let http: Awaited<ReturnType<typeof startEverythingHttp>>;
  before(async () => {
    http = await startEverythingHttp();
  });
  after(() => http.stop());

  test("stdio and streamable HTTP reach ready with their tools; a hanging server never delays a method and fails after its timeout", async () => {
    const box = sandbox("mc-mcp-");
    writeMcpHome(box.home, {
      everything: everythingStdio(),
      memory: memoryStdio({
        tools: { allow: ["read_graph", "search_nodes"], deny: ["search_nodes"] },
      }),
      remote: { url: http.url, startup_timeout_ms: 100_000 },
      stuck: hanging({ startup_timeout_ms: 4000 }),
      off: { url: "http://127.0.0.1:9/mcp", enabled: false },
    });
    const child = new TestChild({ cwd: box.workspace, home: box.home });
    try {
      const init = await child.initialize(["mcp", "session.list", "settings.check"]);
      assert.ok(init.result);
      assert.ok((init.result as { capabilities: string[] }).capabilities.includes("mcp"));
      // Other methods are answered while the servers start.
      const listed = await child.request("session.list", {});
      assert.ok(listed.result);
      const first = await status(child);
      assert.deepEqual(
        first.map((s) => [s.name, s.transport]),
        [
          ["everything", "stdio"],
          ["memory", "stdio"],
          ["remote", "http"],
          ["stuck", "stdio"],
          ["off", "http"],
        ],
      );
      assert.deepEqual(first[4], {
        name: "off",
        transport: "http",
        state: "disabled",
        tools: 0,
        error: null,
      });
      const stuckFailed = await seen(child, changed("stuck", "failed"));
      // Everything above was answered before the hanging server's timeout ran out.
      const index = (f: Frame) => child.frames.indexOf(f);
      assert.ok(index(init) < index(stuckFailed) && index(listed) < index(stuckFailed));
      assert.equal(stuckFailed.params?.server.error, "startup_timeout");
      for (const name of ["everything", "memory", "remote"])
        await seen(child, changed(name, "ready"));
      const ready = await status(child);
      const byName = Object.fromEntries(ready.map((s) => [s.name, s]));
      assert.ok((byName.everything?.tools ?? 0) > 5);
      assert.equal(byName.remote?.tools, byName.everything?.tools, "the same server over HTTP");
      assert.equal(byName.memory?.tools, 1, "allow, then deny");
      assert.deepEqual(byName.stuck, {
        name: "stuck",
        transport: "stdio",
        state: "failed",
        tools: 0,
        error: "startup_timeout",
      });
      // Nothing of a command line, URL or stderr in any frame.
      for (const line of child.rawLines) {
        assert.ok(!line.includes("127.0.0.1") && !line.includes("node_modules"), line);
      }
    } finally {
      await child.close();
      box.cleanup();
    }
  });

  test("a server's environment is PATH, HOME and its own env: no provider credential unless named", async () => {
    const box = sandbox("mc-mcp-");
    writeMcpHome(box.home, {
      memory: memoryStdio({
        env: { TOKEN: "$MY_TOKEN", PLAIN: "literal", KEY: "$OPENAI_API_KEY" },
      }),
      plain: everythingStdio(),
    });
    const child = new TestChild({
      cwd: box.workspace,
      home: box.home,
      env: {
        MY_TOKEN: "tok-1",
        OPENAI_API_KEY: "sk-test-named",
        ANTHROPIC_API_KEY: "sk-ant-unnamed",
        OTHER: "x",
      },
    });
    try {
      await child.initialize(["mcp"]);
      await seen(child, changed("memory", "ready"));
      await seen(child, changed("plain", "ready"));
      const envs = serverPids(child).map(environOf);
      const memory = envs.find((e) => e.TOKEN !== undefined);
      const plain = envs.find((e) => e.TOKEN === undefined);
      assert.ok(memory && plain);
      assert.deepEqual(Object.keys(memory).sort(), ["HOME", "KEY", "PATH", "PLAIN", "TOKEN"]);
      assert.equal(memory.TOKEN, "tok-1");
      assert.equal(memory.KEY, "sk-test-named");
      assert.deepEqual(Object.keys(plain).sort(), ["HOME", "PATH"]);
    } finally {
      await child.close();
      box.cleanup();
    }
  });

  test("a variable named but unset fails that server alone with variable_missing", async () => {
    const box = sandbox("mc-mcp-");
    writeMcpHome(box.home, {
      memory: memoryStdio({ env: { TOKEN: "$MC_TEST_UNSET_VARIABLE" } }),
      remote: { url: http.url, headers: { Authorization: "$MC_TEST_UNSET_VARIABLE" } },
    });
    const child = new TestChild({ cwd: box.workspace, home: box.home });
    try {
      await child.initialize(["mcp"]);
      await seen(child, changed("memory", "failed"));
      await seen(child, changed("remote", "failed"));
      const all = await status(child);
      assert.deepEqual(
        all.map((s) => s.error),
        ["variable_missing", "variable_missing"],
      );
      assert.ok(!child.rawLines.some((l) => l.includes("MC_TEST_UNSET_VARIABLE")));
    } finally {
      await child.close();
      box.cleanup();
    }
  });

  for (const end of ["shutdown", "stdin EOF", "kill -9"] as const) {
    test(`no server survives the child: ${end}`, async () => {
      const box = sandbox("mc-mcp-");
      writeMcpHome(box.home, { everything: everythingStdio(), memory: memoryStdio() });
      const child = new TestChild({ cwd: box.workspace, home: box.home });
      try {
        await child.initialize(["mcp"]);
        await seen(child, changed("everything", "ready"));
        await seen(child, changed("memory", "ready"));
        const pids = serverPids(child);
        assert.equal(pids.length, 2, "both servers are processes of the child");
        if (end === "shutdown") await child.request("shutdown", {});
        else if (end === "stdin EOF") child.closeStdin();
        // kill -9: nobody stops the servers; each ends at its own stdin's EOF.
        else child.kill("SIGKILL");
        await child.exited;
        await allGone(pids);
      } finally {
        await child.close();
        box.cleanup();
      }
    });
  }

  // A start still in progress at shutdown: the SDK's own close (begun by the aborted connect)
  // forgets the pid at once, so the stop signals the pid kept from the spawn (session.ts).
  test("shutdown stops a server that ignores EOF: SIGTERM, then SIGKILL, within the cleanup bound", async () => {
    const box = sandbox("mc-mcp-");
    // Answers nothing and ignores SIGTERM: only SIGKILL ends it.
    writeFileSync(
      join(box.root, "stubborn.js"),
      'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000);',
    );
    writeMcpHome(box.home, {
      stubborn: {
        command: process.execPath,
        args: [join(box.root, "stubborn.js")],
        startup_timeout_ms: 60_000,
      },
    });
    const child = new TestChild({ cwd: box.workspace, home: box.home });
    try {
      await child.initialize(["mcp"]);
      let pids: number[] = [];
      while (pids.length === 0) {
        pids = descendants(child.pid as number)
          .filter((p) => p.cmdline.includes("stubborn.js"))
          .map((p) => p.pid);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const answer = await child.request("shutdown", {});
      assert.deepEqual(answer.result, { state: "stopped" });
      await child.exited;
      await allGone(pids);
    } finally {
      await child.close();
      box.cleanup();
    }
  });

  test("a server that ignores EOF and fails its startup timeout is stopped while the child runs on", async () => {
    const box = sandbox("mc-mcp-");
    writeMcpHome(box.home, { stuck: hanging({ startup_timeout_ms: 1500 }) });
    const child = new TestChild({ cwd: box.workspace, home: box.home });
    try {
      await child.initialize(["mcp"]);
      let pids: number[] = [];
      while (pids.length === 0) {
        pids = descendants(child.pid as number)
          .filter((p) => p.cmdline.includes("setInterval"))
          .map((p) => p.pid);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await seen(child, changed("stuck", "failed"));
      await allGone(pids);
      // The child itself is still there and answering.
      assert.ok((await child.request("status", {})).result);
    } finally {
      await child.close();
      box.cleanup();
    }
  });

  test("a typo in mcp_servers makes the global file invalid, located by settings.check; no server starts", async () => {
    const box = sandbox("mc-mcp-");
    writeFileSync(
      join(box.home, "config.json"),
      '{\n  "mcp_servers": {\n    "memory": {"comand": "node"}\n  }\n}\n',
    );
    const child = new TestChild({ cwd: box.workspace, home: box.home });
    try {
      await child.initialize(["mcp", "settings.check"]);
      const check = await child.request("settings.check", {});
      const global = (check.result as { files: Record<string, unknown>[] }).files[0];
      assert.deepEqual(global, {
        file: "global",
        state: "invalid",
        reason: "schema",
        rule: "unknown_key",
        line: 3,
        // The opening quote of "comand", as every unknown key is located (settings-locate.ts).
        column: 16,
      });
      assert.deepEqual(await status(child), []);
    } finally {
      await child.close();
      box.cleanup();
    }
  });

  test("mcp.status needs the mcp capability; without it no mcp.changed is written", async () => {
    const box = sandbox("mc-mcp-");
    writeMcpHome(box.home, { stuck: hanging({ startup_timeout_ms: 200 }) });
    const child = new TestChild({ cwd: box.workspace, home: box.home });
    try {
      await child.initialize(["settings.check"]);
      assert.equal(await child.errorCode("mcp.status", {}), "unsupported_capability");
      // The hanging server's failure happens; it is not announced.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.ok(!child.frames.some((f) => (f as Note).method === "mcp.changed"));
    } finally {
      await child.close();
      box.cleanup();
    }
  });
});

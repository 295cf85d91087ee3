import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentClient } from "../../client/index.js";
import type { Command } from "../command.js";
import { type DemoContext, heading, say } from "../demo/context.js";
import { writeDemoHome } from "../demo/home.js";
import { negotiateAll } from "../demo/negotiate.js";
import { DEMO_KEY, startDemoProvider } from "../demo/provider.js";
import { explainCatalog, refreshAndSelect, restartAfterSettings } from "../demo/steps-models.js";
import { browseSessions } from "../demo/steps-sessions.js";
import { runDemoTurn } from "../demo/steps-turn.js";
import type { Terminal } from "../terminal.js";

export const demoCommand: Command = {
  spec: {
    usage: "mc-agent demo",
    summary: "Walk the whole client flow against a throwaway home and a local provider.",
    help: [
      "Options:",
      "  -h, --help",
      "",
      "Builds a temporary MC_HOME with sample sessions for the current folder, starts an",
      "OpenAI-compatible provider on 127.0.0.1 (with a scripted demo model), and walks the six",
      "steps of the client flow with commentary, a real turn included: the demo model lists the",
      "current folder (read-only) and says how many entries it saw. Nothing outside the temporary",
      "folder is written, and nothing but that listing is read (your own MC_HOME, credentials",
      "and the network are not used); the temporary folder is removed at the end.",
    ].join("\n"),
  },
  async run(_args, term) {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "mc-agent-demo-")));
    const interrupt = new DemoInterrupt(term, root);
    const provider = await startDemoProvider();
    try {
      const workspace = realpathSync(process.cwd());
      const fixture = writeDemoHome(root, workspace, provider.url);
      term.line(term.bold("mc-agent demo: the client flow, step by step"));
      say(
        term,
        `Throwaway home: ${fixture.home}\nLocal provider: ${provider.url} (OpenAI-compatible)\nFolder: ${workspace}`,
      );
      const env = demoEnv(root, fixture.home, term.io.env);
      heading(term, 1, "Spawn the child and negotiate");
      const { client, missing } = await negotiateAll(term, env, workspace);
      interrupt.client = client;
      const ctx: DemoContext = { term, client, fixture, provider, missing };
      try {
        describeNegotiation(ctx);
        await browseSessions(ctx);
        const before = await explainCatalog(ctx);
        const selected = await refreshAndSelect(ctx, before);
        await runDemoTurn(ctx, selected);
        await restartAfterSettings(ctx);
      } finally {
        await client.close();
      }
      finish(term, missing);
      return 0;
    } finally {
      interrupt.stop();
      await provider.close();
      rmSync(root, { recursive: true, force: true });
    }
  },
};

/**
 * Ctrl-C anywhere in the walkthrough ends it, and the throwaway folder goes with it. The child
 * runs in its own process group (the terminal's SIGINT does not reach it), so it is shut down
 * first (bounded by its cleanup limit, then killed): a child still writing could otherwise put
 * files back after the removal. A second Ctrl-C removes the folder and exits at once. Exit 130.
 */
class DemoInterrupt {
  client: AgentClient | null = null;
  private fired = false;
  private readonly onSigint = () => this.interrupted();

  constructor(
    private readonly term: Terminal,
    private readonly root: string,
  ) {
    process.on("SIGINT", this.onSigint);
  }

  stop(): void {
    process.off("SIGINT", this.onSigint);
  }

  private interrupted(): void {
    if (this.fired) this.removeAndExit();
    this.fired = true;
    this.term.note("\nmc-agent demo: interrupted; removing the throwaway home…");
    void (this.client?.close() ?? Promise.resolve()).finally(() => this.removeAndExit());
  }

  private removeAndExit(): never {
    rmSync(this.root, { recursive: true, force: true });
    this.term.note("mc-agent demo: the throwaway home was removed.");
    process.exit(130);
  }
}

/** The child sees only the throwaway home and the demo key: never the user's own store or keys. */
function demoEnv(root: string, home: string, base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, MC_HOME: home, DEMO_KEY };
  for (const key of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "MC_AGENT_TEST_METHODS"])
    delete env[key];
  env.CODEX_HOME = join(root, "codex");
  env.CLAUDE_CONFIG_DIR = join(root, "claude");
  // The child's compiled-code cache lives under the system's temporary folder, outside the
  // demo's own (src/boot/code-cache.ts): the demo promises to write nothing there.
  env.MC_AGENT_COMPILE_CACHE = "0";
  // So does the sandbox probe memo (src/agent/sandbox/probe-memo.ts): the child's temporary
  // folder is the throwaway one's, removed with it.
  env.TMPDIR = join(root, "tmp");
  mkdirSync(env.TMPDIR, { mode: 0o700 });
  return env;
}

function describeNegotiation(ctx: DemoContext): void {
  const { term, client, missing } = ctx;
  say(
    term,
    "initialize names every capability the frontend needs; the child offers all or refuses.",
  );
  term.line(`  Negotiated: ${[...client.capabilities].join(", ") || "(none)"}`);
  if (missing.length > 0)
    term.line(
      term.yellow(
        `  Not offered by this child yet: ${missing.join(", ")}. Their steps say so and are skipped.`,
      ),
    );
  const l = client.limits;
  term.line(
    `  Limits (never depend on negotiation): ${l.child_requests} requests a child, ${l.active_requests} active, pages of ${l.page_entries} / ${l.page_bytes} bytes, cleanup ${l.cleanup_ms} ms`,
  );
  const names = Object.keys(client.extensions);
  term.line(
    `  Extension parameters, decoded separately: ${names.join(", ") || "(none negotiated)"}`,
  );
  const discover = client.extensions["session.discover"];
  if (discover)
    term.line(
      `    session.discover: ${discover.consistency}, ${discover.ordering} order, steps of ${discover.step_directory_entries} entries`,
    );
}

function finish(term: Terminal, missing: string[]): void {
  term.line();
  if (missing.length === 0)
    term.line(term.bold("Done: every step of the client flow ran against the real child."));
  else
    term.line(
      term.bold(`Done. Skipped because this child does not offer them yet: ${missing.join(", ")}.`),
    );
  say(
    term,
    'Next, for real use: "mc-agent setup" (your key, login or local server, and a model), then in\nyour own folders "mc-agent chat" or "mc-agent exec <prompt>"; "mc-agent sessions" and "mc-agent show <id>".',
  );
}

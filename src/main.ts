/**
 * The process entry (bin/mc-agent.js calls `main` once it has read the launcher's hand-over):
 * picks what this process is. `mc-agent stdio` is the backend child a frontend spawns per
 * workspace, `mc-agent acp` the same engine for ACP editors, anything else the terminal frontend
 * (src/cli). Each path loads only its own modules: the child and the ACP agent start from their
 * bundles under dist/child (src/boot/README.md says what each start-up piece buys) and never load
 * the CLI's modules; the CLI never loads the server's nor the ACP agent's. So this module imports
 * nothing of ours statically (but a type), and only node: modules a bare start has loaded
 * anyway. test/boot/entry-paths.test.ts holds each path to it.
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { AcpHandover } from "./acp/starter.js";
import type { CommandSpec } from "./cli/args.js";

/** The bundles scripts/bundle.js writes, beside this module's dist/src. */
const CHILD_DIR = new URL("../child/", import.meta.url);

/**
 * Runs the process for `argv` (the words after `mc-agent`). `handedOver`: the credentials the
 * launcher handed over on fd 3 (they are not in process.env), or null. The exit code, or -1 for
 * a backend, which keeps running until shutdown or until its frontend closes stdin.
 */
export async function main(argv: string[], handedOver: string | null): Promise<number> {
  // The two starts a frontend or an editor makes, before anything else is loaded.
  if (argv.length === 1 && argv[0] === "stdio") {
    startStdio(handedOver);
    return -1;
  }
  if (argv.length === 1 && argv[0] === "acp") {
    startAcp(handedOver);
    return -1;
  }
  const cli = await import("./cli/main.js");
  const { command, rest } = cli.commandLine(argv);
  if (command === "stdio" || command === "acp") return backendCommand(command, rest, handedOver);
  return cli.main(argv, handedOver);
}

/**
 * The child, through the starter (src/boot/starter.ts), which answers a plain `initialize`
 * before the child has loaded and then calls this loader.
 */
function startStdio(handedOver: string | null): void {
  const require = createRequire(import.meta.url);
  const starter: typeof import("./boot/starter.js") = require(
    fileURLToPath(new URL("starter.cjs", CHILD_DIR)),
  );
  // The credentials too: the starter finds out what an initialize negotiating `turn` names with
  // the child's environment (src/server/turn-facts.ts).
  starter.startChild(handedOver, async () => {
    // runStdio sets the heap's flags first (src/boot/heap-flags.ts), once the bundle has loaded.
    // Node 20: the child as one script compiled with V8's code cache (src/boot/code-cache.ts);
    // null on a Node with its own compile cache, or when there is no cache to use.
    const codeCache: typeof import("./boot/code-cache.js") = require(
      fileURLToPath(new URL("code-cache.cjs", CHILD_DIR)),
    );
    const child = codeCache.loadCachedChild(fileURLToPath(new URL("stdio.cjs", CHILD_DIR)));
    if (child !== null) return (handover) => child.runStdio(handedOver, handover);
    // Node 22.1 and later: the bundle's compiled code from a per-version cache (compile-cache.ts).
    const compileCache: typeof import("./boot/compile-cache.js") = await import(
      new URL("compile-cache.js", CHILD_DIR).href
    );
    compileCache.enableChildCompileCache();
    const stdio: typeof import("./server/stdio.js") = await import(
      new URL("stdio.js", CHILD_DIR).href
    );
    return (handover) => stdio.runStdio(handedOver, handover);
  });
}

/** What dist/child/acp.cjs exports (src/acp/start.ts), with the starter's handover. */
interface AcpBundle {
  startAcp: (handedOver: string | null, handover?: AcpHandover) => void;
}

/**
 * The ACP agent, through its starter (src/acp/starter.ts), which answers an editor's first
 * `initialize` before the agent has loaded and then calls this loader: the agent's bundle, with
 * the same heap settings and caches as the child, on Node 20 one script compiled with V8's code
 * cache (src/acp/start.ts), elsewhere the ES bundle through Node's compile cache.
 */
function startAcp(handedOver: string | null): void {
  const require = createRequire(import.meta.url);
  const starter: typeof import("./acp/starter.js") = require(
    fileURLToPath(new URL("acp-starter.cjs", CHILD_DIR)),
  );
  starter.startAcpAgent(handedOver, async () => {
    const codeCache: typeof import("./boot/code-cache.js") = require(
      fileURLToPath(new URL("code-cache.cjs", CHILD_DIR)),
    );
    const cached = codeCache.loadCachedChild<AcpBundle>(
      fileURLToPath(new URL("acp.cjs", CHILD_DIR)),
    );
    if (cached !== null) return (handover) => cached.startAcp(handedOver, handover);
    const heapFlags: typeof import("./boot/heap-flags.js") = await import(
      new URL("heap-flags.js", CHILD_DIR).href
    );
    heapFlags.tuneHeapForChild();
    const compileCache: typeof import("./boot/compile-cache.js") = await import(
      new URL("compile-cache.js", CHILD_DIR).href
    );
    compileCache.enableChildCompileCache();
    const acp: typeof import("./acp/main.js") = await import(new URL("acp.js", CHILD_DIR).href);
    return (handover) => acp.runAcp(handedOver, handover);
  });
}

/** The backend commands: no options, no operands (only --help and the CLI's global flag). */
const BACKENDS: Record<"stdio" | "acp", CommandSpec> = {
  stdio: {
    usage: "mc-agent stdio",
    summary: "Speaks local-agent stdio v1 on stdin/stdout; logs to stderr (MC_LOG).",
    help: "",
  },
  acp: {
    usage: "mc-agent acp [--setup | --print-config zed|jetbrains]",
    summary:
      "An Agent Client Protocol (v1) agent on stdin/stdout for ACP editors (docs/acp.md); logs to stderr (MC_LOG).",
    help: [
      "Options:",
      '  --setup                 Run "mc-agent setup" (interactive) instead; exit 0 once it wrote a model',
      "  --print-config <editor> Print the editor's agent settings for this installation (zed, jetbrains)",
      "  -h, --help",
    ].join("\n"),
    options: { setup: { type: "boolean" }, "print-config": { type: "string" } },
  },
};

/** The launcher, bin/mc-agent.js, beside this module's dist/src: the command an editor runs. */
const LAUNCHER = new URL("../../bin/mc-agent.js", import.meta.url);

/**
 * A backend command with more words than its name: parsed as strictly as every CLI command (its
 * parser and its one-line failure), so an unknown flag (`stdio --json`) is a usage error before
 * anything starts, not a child that ignores it. What is left (`--ignore-config-errors stdio`)
 * starts the backend from its unbundled modules.
 */
async function backendCommand(
  command: "stdio" | "acp",
  rest: string[],
  handedOver: string | null,
): Promise<number> {
  const spec = BACKENDS[command];
  const { parseCommand, UsageError } = await import("./cli/args.js");
  let parsed: ReturnType<typeof parseCommand>;
  try {
    parsed = parseCommand(spec, rest);
    const { setup, "print-config": editor } = parsed.values;
    if (setup && editor !== undefined)
      throw new UsageError("--setup and --print-config do not go together");
  } catch (error) {
    const { failureOf } = await import("./cli/failure.js");
    const failure = failureOf(error, command);
    process.stderr.write(`mc-agent: ${failure.message} (${failure.code}). ${failure.advice}\n`);
    return failure.exit;
  }
  if (parsed.help) {
    process.stdout.write(
      `Usage: ${spec.usage}\n\n${spec.summary}\n${spec.help ? `\n${spec.help}\n` : ""}`,
    );
    return 0;
  }
  // ACP's terminal authentication runs the agent's command with `--setup` appended.
  if (parsed.values.setup === true)
    return (await import("./cli/main.js")).main(["setup"], handedOver);
  const editor = parsed.values["print-config"];
  if (typeof editor === "string") return printEditorConfig(editor);
  if (command === "stdio") (await import("./server/stdio.js")).runStdio(handedOver);
  else (await import("./acp/main.js")).runAcp(handedOver);
  return -1;
}

async function printEditorConfig(editor: string): Promise<number> {
  const { editorConfig, isEditor, EDITORS } = await import("./cli/acp-config.js");
  if (!isEditor(editor)) {
    process.stderr.write(
      `mc-agent: no editor "${editor.slice(0, 40)}" (usage_error). --print-config takes ${EDITORS.join(" or ")}; docs/acp.md shows Neovim's.\n`,
    );
    return 2;
  }
  process.stdout.write(editorConfig(editor, fileURLToPath(LAUNCHER)));
  return 0;
}

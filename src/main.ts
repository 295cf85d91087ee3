/**
 * What the process entry (src/entry.ts, the CommonJS one bin/mc-agent.js requires) does not
 * start itself: the terminal frontend (src/cli), and `stdio` or `acp` with more words than their
 * name (`stdio --help`, `acp --print-config zed`). The entry starts exactly `mc-agent stdio` and
 * `mc-agent acp` without loading this ES module. Each path loads only its own modules: the CLI
 * never loads the server's nor the ACP agent's, so this module imports nothing of ours
 * statically (but a type). test/boot/entry-paths.test.ts holds each path to it.
 */
import { fileURLToPath } from "node:url";
import type { CommandSpec } from "./cli/args.js";

/**
 * Runs the process for `argv` (the words after `mc-agent`). `handedOver`: the credentials the
 * launcher handed over on fd 3 (they are not in process.env), or null. The exit code, or -1 for
 * a backend, which keeps running until shutdown or until its frontend closes stdin.
 */
export async function main(argv: string[], handedOver: string | null): Promise<number> {
  const cli = await import("./cli/main.js");
  const { command, rest } = cli.commandLine(argv);
  if (command === "stdio" || command === "acp") return backendCommand(command, rest, handedOver);
  return cli.main(argv, handedOver);
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

import { SERVER_INFO } from "../protocol/constants.js";
import { decodeSecrets } from "../protocol/secret-handoff.js";
import { helpText, parseCommand, UsageError } from "./args.js";
import type { Command } from "./command.js";
import { configPolicy, IGNORE_CONFIG_ERRORS } from "./config-policy.js";
import { reportFailure } from "./failure.js";
import { Terminal } from "./terminal.js";

/**
 * Commands load on demand: a frontend spawns `mc-agent stdio` for every workspace, and its
 * start-up should not pay for the terminal frontend's modules (nor these for each other).
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  demo: async () => (await import("./commands/demo.js")).demoCommand,
  exec: async () => (await import("./commands/exec.js")).execCommand,
  chat: async () => (await import("./commands/chat.js")).chatCommand,
  resume: async () => (await import("./commands/resume.js")).resumeCommand,
  sessions: async () => (await import("./commands/sessions.js")).sessionsCommand,
  undo: async () => (await import("./commands/undo.js")).undoCommand,
  show: async () => (await import("./commands/show.js")).showCommand,
  export: async () => (await import("./commands/export.js")).exportCommand,
  models: async () => (await import("./commands/models.js")).modelsCommand,
  refresh: async () => (await import("./commands/refresh.js")).refreshCommand,
  rules: async () => (await import("./commands/rules.js")).rulesCommand,
  trust: async () => (await import("./commands/trust.js")).trustCommand,
  mcp: async () => (await import("./commands/mcp.js")).mcpCommand,
  hooks: async () => (await import("./commands/hooks.js")).hooksCommand,
  skills: async () => (await import("./commands/skills.js")).skillsCommand,
  doctor: async () => (await import("./commands/doctor.js")).doctorCommand,
  setup: async () => (await import("./commands/setup.js")).setupCommand,
};

const USAGE = `Usage: mc-agent <command> [options]

Commands:
  demo               Walk the whole client flow on a throwaway home (start here)
  setup [--yes]      Find your keys, logins and local servers, pick a model, write config.json
  exec <prompt...>   Run one turn of the agent in the current folder, print its reply
  chat               Talk with the agent in the current folder, one turn per message
  resume [--last]    Continue a saved session of this folder (a picker, or the newest)
  undo [--yes]       Undo the last turn of this folder's latest session (files included)
  sessions           List the saved sessions of the current folder, newest first, with cost
  sessions rename|archive|unarchive|archived|delete|usage <id>  Manage one session
  show <id>          Open one session and print its history (a unique ID start will do)
  export <id>        Write a session as Markdown, one HTML page or JSON (--format, -o)
  models             Cached model catalog: provider status, every cached model, choices
  models enable <id> Enable a cached model in MC_HOME/config.json (--default: your model)
  refresh <provider> Deliberately refresh one provider's catalog (Ctrl-C cancels)
  rules [remove <id> | clear]  List or remove the approval rules of the current folder
  trust [--revoke]   Let this folder's .mc/config.json run its hooks and MCP servers
  mcp [--no-wait]    Start the configured MCP servers and show each one's state and tools
  hooks              List the hooks configured for this folder and where each comes from
  skills             List this folder's skills and custom commands and where each comes from
  doctor             Check MC_HOME, settings, credentials, caches, Node.js, the sandbox, MCP, hooks
  stdio              Run the backend child: local-agent stdio protocol v1 on stdin/stdout
  acp                Run as an Agent Client Protocol agent for ACP editors (Zed, ...)
  conformance        Check a child command against the protocol (default: this package's)

Run "mc-agent <command> --help" for a command's options.
Every command that starts the backend first checks the settings files and stops (exit 1) at an
invalid one; --ignore-config-errors goes on anyway. -V, --version prints the version.
Exit codes: 0 ok, 1 the operation failed, 2 usage error, 3 exec: an approval was denied
for want of a terminal (docs/cli.md), 130 interrupted (exec, refresh, mcp).
NO_COLOR disables color.
`;

/**
 * The command line's command word and the words after it, with the global flag taken out (before
 * or after the command), so every command accepts it and none has to declare it. Words after
 * "--" are operands (an exec prompt may say anything). src/main.ts reads it too, to find the
 * backend commands.
 */
export function commandLine(argv: string[]): {
  command: string | undefined;
  rest: string[];
  ignoreConfigErrors: boolean;
} {
  const end = argv.includes("--") ? argv.indexOf("--") : argv.length;
  const flags = argv.slice(0, end).filter((word) => word !== IGNORE_CONFIG_ERRORS);
  const [command, ...rest] = [...flags, ...argv.slice(end)];
  return { command, rest, ignoreConfigErrors: flags.length !== end };
}

/**
 * The terminal frontend (src/entry.ts starts `mc-agent stdio` and `mc-agent acp` itself).
 * `handedOver`: the credentials src/entry.ts read from the launcher's fd 3 (they are not in
 * process.env); the commands see them in their environment and hand them on to the child.
 */
export async function main(argv: string[], handedOver: string | null = null): Promise<number> {
  const { command, rest, ignoreConfigErrors } = commandLine(argv);
  configPolicy.ignoreErrors = ignoreConfigErrors;
  if (command === "--version" || command === "-V") {
    process.stdout.write(`mc-agent ${SERVER_INFO.version}\n`);
    return 0;
  }
  if (command === "conformance") {
    return (await import("./conformance.js")).conformanceCommand(rest);
  }
  // A reader that goes away (`mc-agent sessions | head -1`) ends the command quietly.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
  });
  const env = handedOver ? { ...process.env, ...decodeSecrets(handedOver) } : process.env;
  const term = new Terminal({ out: process.stdout, err: process.stderr, env });
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    (command === undefined ? process.stderr : process.stdout).write(USAGE);
    return command === undefined ? 2 : 0;
  }
  const load = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!load) return reportFailure(new UsageError(`unknown command "${command}"`), term);
  const loaded = await load();
  const word = rest[0];
  const subs = loaded.subcommands;
  const sub = word !== undefined && subs && Object.hasOwn(subs, word) ? subs[word] : undefined;
  const selected = sub ?? loaded;
  try {
    const args = parseCommand(selected.spec, sub ? rest.slice(1) : rest);
    if (args.help) {
      process.stdout.write(helpText(selected.spec));
      return 0;
    }
    return await selected.run(args, term);
  } catch (error) {
    return reportFailure(error, term, sub ? `${command} ${word}` : command);
  }
}

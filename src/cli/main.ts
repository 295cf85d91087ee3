import { runStdio } from "../server/stdio.js";

const USAGE = `Usage: mc-agent <command>

Commands:
  stdio    Run the backend child: local-agent stdio protocol v1 on stdin/stdout

Run "mc-agent <command> --help" for a command's options.
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "stdio") {
    if (rest.includes("--help")) {
      process.stdout.write(
        "Usage: mc-agent stdio\n\nSpeaks local-agent stdio v1 on stdin/stdout; logs to stderr (MC_LOG).\n",
      );
      return 0;
    }
    runStdio();
    return -1; // keeps running until shutdown or EOF
  }
  if (command === undefined || command === "--help" || command === "help") {
    process.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  process.stderr.write(
    `mc-agent: unknown command "${command}" (usage_error). Run "mc-agent --help".\n`,
  );
  return 2;
}

/**
 * Programs that run another command given in their arguments, for deny rules (docs/tools.md,
 * "What a deny rule sees"): the command each runs, read through its options. An option a
 * wrapper's table does not know makes the scan unsure (the call asks): it might take a value
 * that would shift where the command starts.
 */
import { programName } from "./rule-arguments.js";
import type { CommandReader, CommandScan } from "./scanned-command.js";

interface WrapperSpec {
  /** Options without a value (short letters may be clustered: `-lc`). */
  flags: string;
  /** Options that take a value: the next word, or `=value` / the rest of a short cluster. */
  valued: string;
  /** Operands before the command (`timeout DURATION`, `taskset MASK`, `chroot DIR`, `flock FILE`). */
  operands?: number;
  /** `NAME=value` words before the command are assignments (`env`, `sudo`). */
  assignments?: boolean;
  /** Options after which no command runs (`command -v`? runs nothing; listed ones stop). */
  stop?: string;
  /** An option whose value is a shell command text (`su -c`, `flock -c`, `env -S`). */
  text?: string;
  /** The command is the rest joined into a shell text (`watch`, `sudo -s`). */
  joined?: boolean;
}

const ws = (s: string) => new Set(s.split(" ").filter((w) => w !== ""));

const WRAPPERS: Record<string, WrapperSpec> = {
  command: { flags: "-p -v -V", valued: "" },
  builtin: { flags: "", valued: "" },
  exec: { flags: "-c -l", valued: "-a" },
  nice: { flags: "", valued: "-n --adjustment" },
  nohup: { flags: "", valued: "" },
  time: { flags: "-p -v -a --portability --verbose --append", valued: "-o -f --output --format" },
  timeout: {
    flags: "-v --verbose --preserve-status --foreground",
    valued: "-s -k --signal --kill-after",
    operands: 1,
  },
  stdbuf: { flags: "", valued: "-i -o -e --input --output --error" },
  ionice: {
    flags: "-t --ignore",
    valued: "-c -n --class --classdata",
    stop: "-p -P -u --pid --pgid --uid",
  },
  taskset: { flags: "-a -c --all-tasks --cpu-list", valued: "", operands: 1, stop: "-p --pid" },
  setsid: { flags: "-c -f -w --ctty --fork --wait", valued: "" },
  env: {
    flags: "-i -0 -v - --ignore-environment --null --debug",
    valued: "-u -C --unset --chdir",
    assignments: true,
    text: "-S --split-string",
  },
  sudo: {
    flags:
      "-A -B -b -E -H -K -k -n -P -S -V --askpass --bell --background --preserve-env --set-home --non-interactive --stdin",
    valued:
      "-u -g -C -D -h -p -r -t -T -U --user --group --close-from --chdir --host --prompt --role --type --command-timeout --other-user",
    assignments: true,
    stop: "-e -l -v --edit --list --validate",
  },
  doas: { flags: "-n", valued: "-u -a -C", stop: "-s -C" },
  pkexec: { flags: "--disable-internal-agent --keep-cwd", valued: "--user" },
  chroot: { flags: "--skip-chdir", valued: "--userspec --groups", operands: 1 },
  flock: {
    flags: "-s -x -n -u -o -F --shared --exclusive --nonblock --unlock --close --no-fork --verbose",
    valued: "-w -E --timeout --conflict-exit-code",
    operands: 1,
    text: "-c --command",
  },
  su: {
    flags: "-l -m -p - --login --preserve-environment",
    valued: "-s -g -G -w --shell --group",
    text: "-c --command",
  },
  watch: {
    flags:
      "-d -t -b -e -g -c -x -p -w --differences --no-title --beep --errexit --chgexit --color --exec --precise --no-wrap",
    valued: "-n -q --interval --equexit",
    joined: true,
  },
  xargs: {
    flags: "-0 -r -t -p -x -o --null --no-run-if-empty --verbose --interactive --exit --open-tty",
    valued:
      "-a -d -E -I -L -n -P -s --arg-file --delimiter --eof --replace --max-lines --max-args --max-procs --max-chars --process-slot-var",
  },
};

/** Shells: `-c` makes the first operand a command text; without it and a script, stdin. */
const SHELLS = ws("bash sh dash zsh ksh mksh ash yash posh");
/** Programs that run a command we do not read through: unsure. */
const OPAQUE = ws(
  "strace ltrace valgrind gdb perf catchsegv unbuffer script parallel rlwrap firejail bwrap " +
    "systemd-run tmux screen nsenter unshare chrt prlimit cgexec numactl torsocks proxychains " +
    "proxychains4 faketime fakeroot runuser setpriv sg newgrp ssh-agent dbus-run-session " +
    "xvfb-run fish csh tcsh",
);

const NONE: CommandScan = { commands: [], unsure: false };
const UNSURE: CommandScan = { commands: [], unsure: true };

/** What `words` (a command) runs besides itself. */
export function wrappedCommands(
  words: readonly string[],
  env: string[],
  depth: number,
  read: CommandReader,
): CommandScan {
  const name = programName(words[0] as string);
  if (SHELLS.has(name)) return shellCommand(words, depth, read);
  if (name === "eval") return read.text(words.slice(1).join(" "), depth);
  if (name === "busybox") return words.length > 1 ? read.words(words.slice(1), depth, env) : NONE;
  if (name === "find") return findCommands(words, depth, read);
  if (OPAQUE.has(name)) return UNSURE;
  const spec = WRAPPERS[name];
  return spec ? throughWrapper(spec, words, env, depth, read) : NONE;
}

function throughWrapper(
  spec: WrapperSpec,
  words: readonly string[],
  env: string[],
  depth: number,
  read: CommandReader,
): CommandScan {
  const flags = ws(spec.flags);
  const valued = ws(spec.valued);
  const stops = ws(spec.stop ?? "");
  const texts = ws(spec.text ?? "");
  const assignments = [...env];
  let operands = spec.operands ?? 0;
  let i = 1;
  for (; i < words.length; i += 1) {
    const word = words[i] as string;
    if (word === "--") {
      i += 1;
      break;
    }
    if (!word.startsWith("-") || word === "-") {
      if (word === "-" && flags.has("-")) continue;
      if (spec.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) {
        assignments.push(word);
        continue;
      }
      if (operands > 0) {
        operands -= 1;
        continue;
      }
      break;
    }
    const option = readOption(word, flags, valued, texts, stops);
    if (option === null) return UNSURE;
    if (option.kind === "stop") return NONE;
    if (option.kind === "text") {
      const value = option.value ?? words[++i];
      return value === undefined ? UNSURE : read.text(value, depth);
    }
    if (option.kind === "valued" && option.value === undefined) i += 1;
  }
  const rest = words.slice(i);
  if (rest.length === 0) return NONE;
  if (spec.joined) return read.text(rest.join(" "), depth);
  return read.words(rest, depth, assignments);
}

type Option = { kind: "flag" | "stop" } | { kind: "valued" | "text"; value?: string };

/** One option word: a long one (`--x`, `--x=v`) or a cluster of short ones (`-lc`, `-n10`). */
function readOption(
  word: string,
  flags: Set<string>,
  valued: Set<string>,
  texts: Set<string>,
  stops: Set<string>,
): Option | null {
  if (word.startsWith("--")) {
    const at = word.indexOf("=");
    const name = at < 0 ? word : word.slice(0, at);
    const value = at < 0 ? undefined : word.slice(at + 1);
    if (stops.has(name)) return { kind: "stop" };
    if (texts.has(name)) return { kind: "text", ...(value === undefined ? {} : { value }) };
    if (valued.has(name)) return { kind: "valued", ...(value === undefined ? {} : { value }) };
    return flags.has(name) && value === undefined ? { kind: "flag" } : null;
  }
  // `nice -5`, `-n10`: a number as an option, or as a value.
  if (/^-[0-9]+$/.test(word) && valued.has("-n")) return { kind: "flag" };
  for (let j = 1; j < word.length; j += 1) {
    const option = `-${word[j]}`;
    const rest = word.slice(j + 1);
    const value = rest === "" ? {} : { value: rest };
    if (stops.has(option)) return { kind: "stop" };
    if (texts.has(option)) return { kind: "text", ...value };
    if (valued.has(option)) return { kind: "valued", ...value };
    if (!flags.has(option)) return null;
  }
  return { kind: "flag" };
}

/** `bash -c 'text'`: the text's commands; `bash script.sh`: a script (itself only); else stdin. */
function shellCommand(words: readonly string[], depth: number, read: CommandReader): CommandScan {
  let text = false;
  for (let i = 1; i < words.length; i += 1) {
    const word = words[i] as string;
    if (word === "--" || word === "-") {
      const operand = words[i + 1];
      if (operand === undefined) return UNSURE;
      return text ? read.text(operand, depth) : NONE;
    }
    if (/^[-+]o$/.test(word) || word === "-O" || word === "+O") {
      i += 1; // `-o pipefail`
    } else if (/^[-+][A-Za-z]+$/.test(word)) {
      if (word.startsWith("-") && word.includes("c")) text = true;
      if (/s/.test(word)) return UNSURE; // -s: commands from stdin
    } else if (word.startsWith("--")) {
      if (!/^--(norc|noprofile|posix|login|noediting|restricted|verbose|debugger)$/.test(word))
        return UNSURE;
    } else {
      return text ? read.text(word, depth) : NONE;
    }
  }
  return UNSURE; // no command text and no script: it reads stdin
}

/** `find ... -exec CMD {} ;`: each command of -exec, -execdir, -ok and -okdir. */
function findCommands(words: readonly string[], depth: number, read: CommandReader): CommandScan {
  const scan: CommandScan = { commands: [], unsure: false };
  for (let i = 1; i < words.length; i += 1) {
    if (!/^-(exec|execdir|ok|okdir)$/.test(words[i] as string)) continue;
    let end = i + 1;
    while (end < words.length && words[end] !== ";" && words[end] !== "+") end += 1;
    const inner = read.words(words.slice(i + 1, end), depth);
    scan.commands.push(...inner.commands);
    scan.unsure ||= inner.unsure;
    i = end;
  }
  return scan;
}

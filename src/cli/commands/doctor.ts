import { checkpointsAvailable } from "../../offline/checkpoints.js";
import { type HooksListing, listHooks } from "../../offline/hooks-list.js";
import { type Findings, inspect } from "../../offline/inspect.js";
import { type McpFinding, mcpFinding } from "../../offline/mcp-probe.js";
import { listSkills, type SkillsListing } from "../../offline/skills-list.js";
import { type TrustFinding, trustFinding } from "../../offline/workspace-trust.js";
import { headChars } from "../../protocol/text-cut.js";
import type { Command } from "../command.js";
import { interruptible } from "../connect.js";
import { credentialText } from "../doctor/credential-text.js";
import { type SandboxLine, sandboxLine } from "../doctor/sandbox-line.js";
import { mcpLines, NO_MCP_SERVERS } from "../mcp-lines.js";
import { describeInvalid, MCP_NAME_RULE } from "../settings-report.js";
import type { Terminal } from "../terminal.js";
import { waitingText } from "../trust-words.js";
import { hookLines } from "./hooks.js";
import { RUN_SETUP } from "./next-step.js";
import { skillLines } from "./skills.js";

/** The Node.js versions package.json's `engines` allows. */
const NODE_MAJOR = 20;
const NODE_MINOR = 18;

export const doctorCommand: Command = {
  spec: {
    usage: "mc-agent doctor",
    summary:
      "Check this setup: MC_HOME and the files in use, each provider's credentials, endpoint and cache, Node.js, the sandbox, the MCP servers.",
    help: [
      "Options:",
      "  -h, --help",
      "",
      "Reads the store directly (it starts no backend and no provider request) and never prints a",
      "secret: only where each credential comes from. It starts each enabled MCP server as a",
      "child would, waits for it up to its startup_timeout_ms (Ctrl-C stops waiting: exit 130),",
      "and stops it. Exit 0 when nothing is wrong, 1 when something must be fixed (the last",
      "line, the verdict, says what).",
    ].join("\n"),
  },
  async run(_args, term) {
    const cwd = process.cwd();
    const env = term.io.env;
    const findings = await inspect(env, cwd);
    const sandbox = sandboxLine(cwd, findings.home.path, env);
    const mcp = await interruptible(term, (signal) =>
      mcpFinding(findings.home.path, cwd, env, signal, (count) =>
        term.startSpinner(
          `Starting ${count === 1 ? "1 MCP server" : `${count} MCP servers`}… (Ctrl-C stops waiting)`,
        ),
      ),
    );
    term.stopSpinner();
    const hooks = await listHooks(env, cwd);
    const skills = await listSkills(env, cwd);
    const problems = print(term, findings, sandbox, mcp, trustFinding(env, cwd), hooks, skills);
    // As every command's Ctrl-C: 130 (128 + SIGINT), the report printed as far as it got.
    if (mcp.kind === "servers" && mcp.interrupted) return 130;
    return problems.length > 0 ? 1 : 0;
  },
};

/** Prints the report; returns the problems (what the verdict names). */
function print(
  term: Terminal,
  f: Findings,
  sandbox: SandboxLine,
  mcp: McpFinding,
  trust: TrustFinding,
  hooks: HooksListing,
  skills: SkillsListing,
): string[] {
  const problems: string[] = [];
  const node = process.versions.node;
  const nodeOk = nodeSupported(node);
  if (!nodeOk) problems.push(`Node.js ${node} is older than ${NODE_MAJOR}.${NODE_MINOR}`);
  term.line(
    `${term.bold("Node.js")}     ${node} ${nodeOk ? term.green("ok") : term.red(`needs >= ${NODE_MAJOR}.${NODE_MINOR}`)}`,
  );
  term.line(
    `${term.bold("MC_HOME")}     ${f.home.path} (${f.home.fromEnv ? "from MC_HOME" : "default: MC_HOME is unset"}): ${homeText(term, f.home.kind)}`,
  );
  if (f.home.kind === "not_a_folder") problems.push("MC_HOME is a file, not a folder");
  term.line(term.bold("Settings"));
  for (const file of f.files) {
    if (file.state !== "invalid" || !file.fault) {
      const text =
        file.state === "valid" ? term.green("valid") : term.dim("absent (fine: defaults)");
      term.line(`  ${file.file.padEnd(8)} ${file.path}: ${text}`);
      continue;
    }
    problems.push(
      `${file.file === "global" ? "MC_HOME/config.json" : ".mc/config.json"} is invalid`,
    );
    const [first, ...rest] = describeInvalid(
      { file: file.file, state: "invalid", ...file.fault },
      file.path,
    );
    term.line(`  ${file.file.padEnd(8)} ${term.red("invalid")}: ${first}`);
    for (const line of rest) term.line(`  ${line}`);
    term.line("           The backend ignores this file as a whole until it is fixed.");
  }
  term.line(`  ${"auth".padEnd(8)} ${f.auth.path}: ${authText(term, f.auth)}`);
  term.line(`  ${"trust".padEnd(8)} ${trustText(term, trust)}`);
  if (f.auth.state === "unsafe") problems.push("MC_HOME/auth.json is not a regular file");
  term.line(term.bold("Providers"));
  for (const p of f.providers) {
    term.line(`  ${term.bold(p.id)} (${p.type})  ${p.baseUrl}`);
    const credential = credentialText(p.type, p.credential);
    term.line(`    credentials: ${p.ready ? credential : term.yellow(credential)}`);
    term.line(`    cache: ${cacheText(term, p.cache, p.models)}`);
    if (p.enabledCached.length) term.line(`    enabled: ${p.enabledCached.join(", ")}`);
    for (const id of p.enabledMissing)
      term.line(`    ${term.yellow(`${id} is enabled but not in this provider's cached catalog`)}`);
    if (p.cache === "unsafe" || p.cache === "unreadable")
      problems.push(`${p.id}'s cache cannot be read safely`);
  }
  const mark =
    sandbox.ok === null
      ? term.dim(sandbox.text)
      : sandbox.ok
        ? term.green(sandbox.text)
        : term.yellow(sandbox.text);
  term.line(`${term.bold("Sandbox")}     ${mark}`);
  // Unavailable checkpoints are shown, not counted as a problem: turns run without them.
  term.line(`${term.bold("Checkpoints")} ${checkpointsText(term, f.home.path)}`);
  printMcp(term, mcp, problems);
  // Shown, never counted as a problem: a project hook waiting for trust is the user's choice.
  term.line(term.bold("Hooks"));
  for (const line of hookLines(term, hooks, "  ")) term.line(line);
  // Shown, never counted: a skill or command left out is ignored, not fatal (docs/skills.md).
  term.line(term.bold("Skills"));
  for (const line of skillLines(term, skills, "  ")) term.line(line);
  term.line();
  term.line(verdict(term, f, problems));
  return problems;
}

/**
 * What waits for the folder's trust (docs/trust.md). Not a problem: an untrusted folder is the
 * safe default, and the line says how to trust it.
 */
function trustText(term: Terminal, trust: TrustFinding): string {
  if (trust.global) return term.dim("this folder's .mc/config.json is the global file (no trust)");
  const what = waitingText(trust.waiting);
  if (trust.trust === "trusted")
    return trust.waiting.hooks || trust.waiting.mcp_servers.length > 0
      ? `${term.green("trusted")}: the project's ${what} run`
      : term.dim("nothing to trust (the project file runs no code)");
  const why = trust.trust === "changed" ? "changed since you trusted it" : "not trusted";
  return `${term.yellow(why)}: the project's ${what} wait; "mc-agent trust" runs them`;
}

/** The same lines as `mc-agent mcp`; a failed server is a problem (its config needs a fix). */
function printMcp(term: Terminal, mcp: McpFinding, problems: string[]): void {
  term.line(term.bold("MCP servers"));
  if (mcp.kind === "invalid") {
    term.line(`  ${term.yellow("none started: MC_HOME/config.json is invalid (above)")}`);
    if (mcp.badName !== null)
      term.line(`  ${JSON.stringify(headChars(mcp.badName, 64))} is ${MCP_NAME_RULE}.`);
    return;
  }
  if (mcp.servers.length === 0) term.line(`  ${term.dim(NO_MCP_SERVERS)}`);
  for (const line of mcpLines(term, mcp.servers, "  ")) term.line(line);
  if (mcp.interrupted)
    term.line(`  ${term.yellow("interrupted: servers still starting were not waited for")}`);
  for (const s of mcp.servers)
    if (s.state === "failed") problems.push(`MCP server ${s.name} failed (${s.error ?? "failed"})`);
}

function verdict(term: Terminal, f: Findings, problems: string[]): string {
  if (problems.length > 0)
    return term.red(
      `Verdict: ${problems.length === 1 ? "1 problem" : `${problems.length} problems`}: ${problems.join("; ")}.`,
    );
  const usable = f.providers.flatMap((p) => (p.ready ? p.enabledCached : []));
  if (usable.length === 0) {
    const cached = f.providers.find((p) => p.cache === "available");
    const byHand = cached
      ? `enable one of ${cached.id}'s cached models ("mc-agent models enable ${cached.id}/<model>")`
      : 'run "mc-agent refresh <provider>", then "mc-agent models enable <provider>/<model>"';
    const next = `${RUN_SETUP}; or by hand, ${byHand}`;
    return term.yellow(`Verdict: nothing is broken, but no model is usable yet: ${next}.`);
  }
  const chosen = f.preferred
    ? `; your model is ${f.preferred}`
    : "; no default model set (-m picks one)";
  return term.green(
    `Verdict: ready: ${usable.length} usable ${usable.length === 1 ? "model" : "models"}${chosen}.`,
  );
}

function homeText(term: Terminal, kind: Findings["home"]["kind"]): string {
  if (kind === "folder") return term.green("a folder");
  if (kind === "absent") return term.dim("not there yet (made on first save)");
  return term.red("a file, not a folder: every command needs a folder here");
}

function authText(term: Terminal, auth: Findings["auth"]): string {
  if (auth.state === "absent") return term.dim("absent (fine: keys may come from variables)");
  if (auth.state === "unsafe") return term.red("not a regular file (ignored)");
  const open = (auth.mode ?? 0) & 0o077;
  return open
    ? term.yellow(`present, mode ${(auth.mode ?? 0).toString(8)}: others can read it (chmod 600)`)
    : term.green("present, mode 600");
}

function cacheText(term: Terminal, cache: string, models: number): string {
  if (cache === "available")
    return term.green(`valid, ${models} ${models === 1 ? "model" : "models"}`);
  if (cache === "missing_cache") return term.dim("none yet (mc-agent refresh fills it)");
  if (cache === "no_home") return term.dim("none (MC_HOME is not a folder)");
  return term.yellow(`${cache.replace(/_/g, " ")} (mc-agent refresh rewrites it)`);
}

function nodeSupported(version: string): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major > NODE_MAJOR || (major === NODE_MAJOR && minor >= NODE_MINOR);
}

/** Why turns here record checkpoints or not (docs/checkpoints.md's availability reasons). */
function checkpointsText(term: Terminal, home: string): string {
  const { reason } = checkpointsAvailable(term.io.env, home, process.cwd());
  if (reason === "git_missing")
    return term.yellow("unavailable: git is not on PATH (turns run, nothing can be reverted)");
  if (reason === "workspace_in_store")
    return term.yellow(
      "unavailable: this folder is mc-agent's store or inside it (turns run, nothing can be reverted)",
    );
  return term.green("git found: turns record checkpoints, turn.revert works");
}

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import module from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { pathToFileURL } from "node:url";
import { PROTOCOL_VERSION } from "../../src/protocol/constants.js";
import { PACKAGE_ROOT } from "../helpers/child.js";

/**
 * The process entry (src/entry.ts) loads only the path it picked: `mc-agent stdio` and
 * `mc-agent acp` none of the terminal frontend's modules and no ES module before their first
 * answer, the CLI none of the server's or the ACP agent's. Seen from outside: the real bin run
 * with a module hook that writes down every ES module the process loads (the bundles it
 * requires are CommonJS and not listed, which is what they are for), and with a CommonJS preload
 * that writes down, at the first answer, how far Node had set up its ES module loader. A temp
 * TMPDIR keeps the code cache's entries for these flags out of the user's.
 */
const work = mkdtempSync(join(tmpdir(), "mc-entry-"));
after(() => rmSync(work, { recursive: true, force: true }));
const hooks = join(work, "hooks.mjs");
writeFileSync(
  hooks,
  `import { appendFileSync } from "node:fs";
let log;
export async function initialize(path) { log = path; }
export async function load(url, context, next) { appendFileSync(log, url + "\\n"); return next(url, context); }
`,
);
const register = join(work, "register.mjs");
writeFileSync(
  register,
  `import { register } from "node:module";
register(${JSON.stringify(pathToFileURL(hooks).href)}, { data: process.env.MC_TEST_LOAD_LOG });
`,
);

/**
 * A preload run before the bin (`--require`: CommonJS, which leaves the entry's own loading as it
 * is): at the first write to stdout (fd 1 or the stream), it writes down which of the ES module
 * loader's internal modules Node has loaded by then and, with MC_TEST_PROBE_HOOKS=1 (Node 22.15
 * and later), the format and URL of every module loaded so far, seen by an in-thread hook.
 */
const probe = join(work, "probe.cjs");
writeFileSync(
  probe,
  `const { writeFileSync } = require("node:fs");
const formats = [];
if (process.env.MC_TEST_PROBE_HOOKS === "1")
  require("node:module").registerHooks({
    load(url, context, next) {
      const loaded = next(url, context);
      formats.push(loaded.format + " " + url);
      return loaded;
    },
  });
let seen = false;
const note = () => {
  if (seen) return;
  seen = true;
  const internals = process.moduleLoadList.filter((name) => name.includes("internal/modules/esm/"));
  writeFileSync(process.env.MC_TEST_PROBE, JSON.stringify({ internals, formats }));
};
// The starters write their answer to fd 1 directly (src/boot/output-watch.ts), the rest through
// the stream.
const fs = require("node:fs");
const writeSync = fs.writeSync;
fs.writeSync = function (fd, ...rest) {
  if (fd === 1) note();
  return writeSync.call(this, fd, ...rest);
};
const stdout = process.stdout;
const write = stdout.write;
stdout.write = function (...args) {
  note();
  return write.apply(this, args);
};
`,
);
// A CommonJS script that answers, with node:module loaded as the entry and the starters load it
// (createRequire): that loads the ES module loader's own module, not a loader, and no ES module.
writeFileSync(
  join(work, "bare.cjs"),
  'require("node:module").createRequire(__filename);\nprocess.stdout.write("answer\\n");\n',
);

interface FirstAnswer {
  /** The first line written. */
  answer: string;
  /** The ES module loader's internal modules loaded when it was written. */
  internals: string[];
  /** With hooks: `<format> <url>` of each module loaded by then. */
  formats: string[];
}

/**
 * Runs node with `args` in the work folder (its own MC_HOME and TMPDIR, `env` added), writes
 * `input` and closes stdin once the first line came (the path has loaded what it needs to
 * answer); what it wrote, once it exited.
 */
async function untilFirstAnswer(
  args: string[],
  input: string,
  env: Record<string, string>,
): Promise<string> {
  const child = spawn(process.execPath, args, {
    cwd: work,
    env: { ...process.env, MC_HOME: join(work, "home"), TMPDIR: work, ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    if (out.includes("\n")) child.stdin.end();
  });
  if (input === "") child.stdin.end();
  else child.stdin.write(input);
  await new Promise((done) => child.once("exit", done));
  return out;
}

/** Runs node with `args` behind the probe, feeds it `input` and reads what the probe saw. */
async function atFirstAnswer(
  name: string,
  args: string[],
  input: string,
  hooks: boolean,
): Promise<FirstAnswer> {
  const seen = join(work, `${name}${hooks ? "-hooks" : ""}.json`);
  writeFileSync(seen, "");
  const out = await untilFirstAnswer(["--require", probe, ...args], input, {
    MC_TEST_PROBE: seen,
    MC_TEST_PROBE_HOOKS: hooks ? "1" : "0",
  });
  const { internals, formats } = JSON.parse(readFileSync(seen, "utf8")) as FirstAnswer;
  return { answer: out.split("\n")[0] ?? "", internals, formats };
}

/** The dist files (relative to dist/) of our own the process loaded as ES modules. */
async function loaded(name: string, args: string[], input: string): Promise<string[]> {
  const log = join(work, `${name}.log`);
  writeFileSync(log, "");
  await untilFirstAnswer(
    ["--import", register, join(PACKAGE_ROOT, "bin", "mc-agent.js"), ...args],
    input,
    {
      MC_TEST_LOAD_LOG: log,
    },
  );
  const dist = pathToFileURL(join(PACKAGE_ROOT, "dist")).href;
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((url) => url.startsWith(`${dist}/`))
    .map((url) => url.slice(dist.length + 1));
}

const initialize = `${JSON.stringify({
  id: "1",
  method: "initialize",
  params: {
    protocol_version: PROTOCOL_VERSION,
    client: { name: "entry-test", version: "1" },
    required_capabilities: [],
  },
})}\n`;

/** Node 22.1 and later start the agents from their ES bundles (Node 20: the .cjs scripts). */
const esBundles =
  typeof (module as { enableCompileCache?: unknown }).enableCompileCache === "function";

// The backends load none of our unbundled modules: neither the CLI's nor its entry, src/main.js.
test("mc-agent stdio loads none of the CLI's modules", async () => {
  const files = await loaded("stdio", ["stdio"], initialize);
  if (esBundles) assert.ok(files.includes("child/stdio.js"), files.join(", "));
  assert.deepEqual(
    files.filter((file) => file.startsWith("src/")),
    [],
  );
});

test("mc-agent acp loads none of the CLI's modules", async () => {
  const files = await loaded("acp", ["acp"], "");
  if (esBundles) assert.ok(files.includes("child/acp.js"), files.join(", "));
  assert.deepEqual(
    files.filter((file) => file.startsWith("src/")),
    [],
  );
});

const acpInitialize = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  // Terminal authentication offered: the starter answers whatever the home holds.
  params: { protocolVersion: 1, clientCapabilities: { auth: { terminal: true } } },
})}\n`;

for (const [name, input] of [
  ["stdio", initialize],
  ["acp", acpInitialize],
] as const)
  test(`mc-agent ${name} answers its first initialize before any ES module is loaded`, async () => {
    // What a CommonJS script's start has loaded of the ES module loader by its first line (on
    // Node 24 every start loads the modules that run one): none more before the first answer.
    const bare = await atFirstAnswer("bare", [join(work, "bare.cjs")], "", false);
    const start = await atFirstAnswer(
      name,
      [join(PACKAGE_ROOT, "bin", "mc-agent.js"), name],
      input,
      false,
    );
    assert.ok(start.answer.startsWith("{"), start.answer);
    assert.deepEqual(
      start.internals.filter((internal) => !bare.internals.includes(internal)),
      [],
    );
    // Node 22.15 and later: every module loaded so far, required or imported, by its format.
    if (typeof (module as { registerHooks?: unknown }).registerHooks !== "function") return;
    const hooked = await atFirstAnswer(
      name,
      [join(PACKAGE_ROOT, "bin", "mc-agent.js"), name],
      input,
      true,
    );
    const dist = pathToFileURL(join(PACKAGE_ROOT, "dist")).href;
    assert.ok(
      hooked.formats.includes(`commonjs ${dist}/child/entry.cjs`),
      hooked.formats.join(", "),
    );
    assert.deepEqual(
      hooked.formats.filter((loaded) => loaded.startsWith("module ")),
      [],
    );
  });

test("a CLI command loads none of the server's, the ACP agent's or the child's modules", async () => {
  const files = await loaded("cli", ["sessions", "--help"], "");
  assert.ok(files.includes("src/cli/main.js"), files.join(", "));
  assert.deepEqual(
    files.filter((file) => /^(src\/(server|acp|boot)\/|child\/)/.test(file)),
    [],
  );
});

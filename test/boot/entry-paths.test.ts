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
 * The process entry (src/main.ts) loads only the path it picked: `mc-agent stdio` and
 * `mc-agent acp` none of the terminal frontend's modules, the CLI none of the server's or the ACP
 * agent's. Seen from outside: the real bin run with a module hook that writes down every ES module
 * the process loads (the bundles it requires are CommonJS and not listed, which is what they are
 * for). A temp TMPDIR keeps the code cache's entries for these flags out of the user's.
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

/** The dist files (relative to dist/) of our own the process loaded as ES modules. */
async function loaded(name: string, args: string[], input: string): Promise<string[]> {
  const log = join(work, `${name}.log`);
  writeFileSync(log, "");
  const child = spawn(
    process.execPath,
    ["--import", register, join(PACKAGE_ROOT, "bin", "mc-agent.js"), ...args],
    {
      cwd: work,
      env: { ...process.env, MC_HOME: join(work, "home"), TMPDIR: work, MC_TEST_LOAD_LOG: log },
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    // The answer came: the path has loaded what it needs to answer; close its input.
    if (out.includes("\n")) child.stdin.end();
  });
  if (input === "") child.stdin.end();
  else child.stdin.write(input);
  await new Promise((done) => child.once("exit", done));
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

test("mc-agent stdio loads none of the CLI's modules", async () => {
  const files = await loaded("stdio", ["stdio"], initialize);
  assert.ok(files.includes("src/main.js"), files.join(", "));
  assert.deepEqual(
    files.filter((file) => file.startsWith("src/cli/")),
    [],
  );
});

test("mc-agent acp loads none of the CLI's modules", async () => {
  const files = await loaded("acp", ["acp"], "");
  // Node 20 requires dist/child/acp.cjs through the code cache (src/acp/start.ts): not listed.
  const esBundle =
    typeof (module as { enableCompileCache?: unknown }).enableCompileCache === "function";
  assert.ok(files.includes(esBundle ? "child/acp.js" : "src/main.js"), files.join(", "));
  assert.deepEqual(
    files.filter((file) => file.startsWith("src/cli/")),
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

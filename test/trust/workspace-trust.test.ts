/**
 * Workspace trust on real folders (docs/trust.md): the hash over `hooks` and `mcp_servers`, the
 * record under MC_HOME per canonical workspace, revoke, the home folder's global file, and a
 * damaged or unsafe record being no trust.
 */
import assert from "node:assert/strict";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { TRUST_FILE_BYTES, trustFilePath } from "../../src/store/trust-file.js";
import { canonicalJson } from "../../src/trust/canonical-json.js";
import {
  projectTrust,
  revokeWorkspaceTrust,
  trustHash,
  trustWorkspace,
} from "../../src/trust/workspace-trust.js";

let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function world(): { home: string; workspace: string } {
  dir = mkdtempSync(join(tmpdir(), "mc-trust-"));
  const home = join(dir, "mc-home");
  const workspace = join(dir, "repo");
  mkdirSync(workspace);
  return { home, workspace };
}

const SERVERS = { memory: { command: "node", args: ["server.js"] } };
const HOOKS = { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true" }] }] };

test("a project file that names code is untrusted until trusted, then trusted", async () => {
  const { home, workspace } = world();
  const config = { hooks: HOOKS, mcp_servers: SERVERS };
  assert.equal(projectTrust(home, workspace, config), "untrusted");
  await trustWorkspace(home, workspace, config);
  assert.equal(projectTrust(home, workspace, config), "trusted");
  const path = trustFilePath(home, workspace);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.equal(statSync(join(home, "trust")).mode & 0o777, 0o700);
  const record = JSON.parse(readFileSync(path, "utf8"));
  assert.deepEqual(Object.keys(record), ["version", "workspace", "hash", "trusted_at"]);
  assert.equal(record.hash, trustHash(config));
});

test("editing a hook or a server makes the trust `changed`; other members do not count", async () => {
  const { home, workspace } = world();
  const config = { hooks: HOOKS, mcp_servers: SERVERS };
  await trustWorkspace(home, workspace, config);
  const moreServers = { ...SERVERS, other: { url: "http://127.0.0.1:1/mcp" } };
  assert.equal(projectTrust(home, workspace, { ...config, mcp_servers: moreServers }), "changed");
  assert.equal(projectTrust(home, workspace, { hooks: {}, mcp_servers: SERVERS }), "changed");
  // Key order and the preferences beside them do not matter.
  const reordered = {
    mcp_servers: { memory: { args: ["server.js"], command: "node" } },
    hooks: HOOKS,
  };
  assert.equal(projectTrust(home, workspace, { ...reordered, model: "x/y" } as never), "trusted");
});

test("a project file without hooks or servers needs no trust", () => {
  const { home, workspace } = world();
  assert.equal(projectTrust(home, workspace, {}), "trusted");
  assert.equal(projectTrust(home, workspace, { hooks: {}, mcp_servers: {} }), "trusted");
  assert.equal(projectTrust(home, workspace, { mcp_servers: SERVERS }), "untrusted");
});

test("revoke forgets the trust; revoking twice is no error", async () => {
  const { home, workspace } = world();
  const config = { mcp_servers: SERVERS };
  await trustWorkspace(home, workspace, config);
  await revokeWorkspaceTrust(home, workspace);
  assert.equal(projectTrust(home, workspace, config), "untrusted");
  await revokeWorkspaceTrust(home, workspace);
  assert.deepEqual(readdirSync(join(home, "trust")), []);
});

test("the trust is per canonical workspace: a symlink to it is the same workspace", async () => {
  const { home, workspace } = world();
  const link = join(dir, "link");
  symlinkSync(workspace, link);
  const config = { mcp_servers: SERVERS };
  await trustWorkspace(home, link, config);
  assert.equal(projectTrust(home, workspace, config), "trusted");
  const other = join(dir, "other");
  mkdirSync(other);
  assert.equal(projectTrust(home, other, config), "untrusted");
});

test("a workspace whose .mc is MC_HOME (the home folder) is global: no trust asked", () => {
  dir = mkdtempSync(join(tmpdir(), "mc-trust-"));
  const home = join(dir, ".mc");
  mkdirSync(home);
  assert.equal(projectTrust(home, dir, { mcp_servers: SERVERS }), "trusted");
});

test("a damaged, misnamed, oversized or symlinked record is no trust", async () => {
  const { home, workspace } = world();
  const config = { mcp_servers: SERVERS };
  await trustWorkspace(home, workspace, config);
  const path = trustFilePath(home, workspace);
  const good = readFileSync(path, "utf8");
  writeFileSync(path, good.slice(0, -5));
  assert.equal(projectTrust(home, workspace, config), "untrusted");
  writeFileSync(path, good.replace(workspace, `${workspace}x`));
  assert.equal(projectTrust(home, workspace, config), "untrusted");
  // At the bound a valid record still counts; one byte over it does not.
  const padded = (size: number) => good.trimEnd() + " ".repeat(size - good.trimEnd().length);
  writeFileSync(path, padded(TRUST_FILE_BYTES));
  assert.equal(projectTrust(home, workspace, config), "trusted");
  writeFileSync(path, padded(TRUST_FILE_BYTES + 1));
  assert.equal(projectTrust(home, workspace, config), "untrusted");
  rmSync(path);
  const elsewhere = join(dir, "elsewhere.json");
  writeFileSync(elsewhere, good);
  symlinkSync(elsewhere, path);
  assert.equal(projectTrust(home, workspace, config), "untrusted");
});

test("canonical JSON sorts keys, drops undefined, and survives deep nesting", () => {
  assert.equal(
    canonicalJson({ b: 1, a: [1, "x", null, { d: true, c: undefined }] }),
    '{"a":[1,"x",null,{"d":true}],"b":1}',
  );
  const deep = JSON.parse(`${"[".repeat(200_000)}${"]".repeat(200_000)}`);
  assert.equal(canonicalJson(deep).length, 400_000);
  assert.match(trustHash({ hooks: deep }), /^[0-9a-f]{64}$/);
});

import assert from "node:assert/strict";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import {
  PROBE_MEMO_BYTES,
  PROBE_MEMO_ENTRIES,
  probeMemoBytes,
  probeMemoPath,
  readProbeMemo,
  writeProbeMemo,
} from "../../../src/agent/sandbox/probe-memo.js";
import {
  hostFacts,
  type ProbeMemoKey,
  probeMemoKey,
  programIdentity,
  USERNS_SYSCTLS,
} from "../../../src/agent/sandbox/probe-memo-key.js";

const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});
function folder(): string {
  const root = mkdtempSync(join(tmpdir(), "mc-memo-key-"));
  roots.push(root);
  return root;
}

/** A key as the starter makes it, for a program that exists. */
function keyFor(program: string, args = ["--new-session", "/bin/sh", "-c", ":"]): ProbeMemoKey {
  return probeMemoKey([{ network: false, run: { program, args, cwd: "/", env: {} } }]);
}

/** Every path to a leaf of `value`, with a way to change that leaf in a copy. */
function leaves(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== "object") return [path];
  const entries = Array.isArray(value)
    ? value.map((v, i) => [i, v] as const)
    : Object.entries(value);
  return entries.flatMap(([k, v]) => leaves(v, [...path, k]));
}
function changed(key: ProbeMemoKey, path: (string | number)[]): ProbeMemoKey {
  const copy = JSON.parse(JSON.stringify(key));
  let at = copy;
  for (const step of path.slice(0, -1)) at = at[step];
  const last = path[path.length - 1] as string | number;
  const old = at[last];
  at[last] = typeof old === "number" ? old + 1 : old === null ? "x" : `${old}~`;
  return copy;
}

describe("the probe memo's key", () => {
  test("names this host's facts (Linux)", { skip: process.platform !== "linux" }, () => {
    const facts = hostFacts("linux");
    assert.match(facts.boot_id ?? "", /^[0-9a-f-]{36}$/);
    assert.match(facts.user_namespace ?? "", /^user:\[\d+\]$/);
    assert.equal(facts.uid, process.getuid?.());
    assert.equal(facts.gid, process.getgid?.());
    assert.deepEqual(Object.keys(facts.sysctls), [...USERNS_SYSCTLS]);
    assert.ok(facts.confinement?.some((line) => line.startsWith("Seccomp:")));
    assert.ok(
      facts.confinement?.every((line) => /^(Seccomp|Seccomp_filters|NoNewPrivs):/.test(line)),
    );
  });

  test("a program's identity changes when it is touched, rewritten or replaced", () => {
    const program = join(folder(), "bwrap");
    writeFileSync(program, "#!/bin/sh\n");
    chmodSync(program, 0o755);
    const first = programIdentity(program);
    assert.ok(first);
    assert.deepEqual(programIdentity(program), first, "stable while nothing changes");
    utimesSync(program, new Date(), new Date(Date.now() - 10_000));
    const touched = programIdentity(program);
    assert.notDeepEqual(touched, first);
    chmodSync(program, 0o4755);
    assert.notDeepEqual(programIdentity(program), touched, "made setuid");
    rmSync(program);
    assert.equal(programIdentity(program), null);
  });

  test("a memo is found for its very key only: any part changed is a miss", async () => {
    const home = folder();
    const program = join(home, "bwrap");
    writeFileSync(program, "#!/bin/sh\n");
    const key = keyFor(program);
    writeProbeMemo(home, key, ["bubblewrap"]);
    assert.deepEqual(readProbeMemo(home, key), ["bubblewrap"]);
    const paths = leaves(key);
    assert.ok(paths.length > 15, `${paths.length} leaves`);
    for (const path of paths)
      assert.equal(readProbeMemo(home, changed(key, path)), null, path.join("."));
    assert.equal(readProbeMemo(home, keyFor(program, ["--other"])), null);
  });

  test("written 0600 in its folder, made 0700 when missing; the folder's parent never made", async () => {
    const root = folder();
    const memoFolder = join(root, "private");
    const key = keyFor("/bin/sh");
    writeProbeMemo(memoFolder, key, [null]);
    const { statSync } = await import("node:fs");
    assert.equal(statSync(probeMemoPath(memoFolder)).mode & 0o777, 0o600);
    assert.equal(statSync(memoFolder).mode & 0o777, 0o700);
    assert.deepEqual(readProbeMemo(memoFolder, key), [null]);
    const missing = join(root, "gone", "private");
    writeProbeMemo(missing, key, [null]);
    assert.throws(() => statSync(join(root, "gone")));
  });

  test("entries: the latest first, one per key, at most PROBE_MEMO_ENTRIES, within the bound", async () => {
    const home = folder();
    const keys = Array.from({ length: PROBE_MEMO_ENTRIES + 1 }, (_, i) =>
      keyFor("/bin/sh", [`--run-${i}`]),
    );
    for (const key of keys) writeProbeMemo(home, key, ["bubblewrap"]);
    assert.equal(readProbeMemo(home, keys[0] as ProbeMemoKey), null, "the oldest dropped");
    for (const key of keys.slice(1)) assert.deepEqual(readProbeMemo(home, key), ["bubblewrap"]);
    writeProbeMemo(home, keys[5] as ProbeMemoKey, [null]);
    const memo = JSON.parse(readFileSync(probeMemoPath(home), "utf8"));
    assert.equal(memo.entries.length, PROBE_MEMO_ENTRIES);
    assert.deepEqual(memo.entries[0].sandbox, [null]);
    // Large entries: as many as fit the bound, the newest kept, the oldest dropped.
    const big = (i: number) => keyFor("/bin/sh", [`--${i}`, "x".repeat(PROBE_MEMO_BYTES * 0.45)]);
    const kept = JSON.parse(readFileSync(probeMemoPath(home), "utf8")).entries;
    const offered = [{ key: big(2), sandbox: [null] }, ...kept];
    const bytes = probeMemoBytes(big(1), ["bubblewrap"], offered);
    assert.ok(bytes && bytes.length <= PROBE_MEMO_BYTES);
    const entries = JSON.parse(String(bytes)).entries;
    assert.ok(entries.length > 2 && entries.length < PROBE_MEMO_ENTRIES, `${entries.length}`);
    assert.deepEqual(entries[0].key, big(1));
    assert.deepEqual(entries.slice(1), offered.slice(0, entries.length - 1));
    assert.equal(probeMemoBytes(keyFor("/bin/sh", ["x".repeat(PROBE_MEMO_BYTES)]), [null]), null);
  });

  test("a write sweeps the memo's orphaned temp files only, and never goes through a symlinked folder", () => {
    const cache = join(folder(), "private");
    mkdirSync(cache);
    // Linux's pid_max is at most 4194304: 4194303 is no live process here in practice.
    const names = [
      ".sandbox-probe.json.4194303.0123456789ab.tmp",
      `.sandbox-probe.json.${process.ppid}.0123456789ab.tmp`,
      ".sandbox-probe.json.0123456789ab.tmp",
      ".other.json.4194303.0123456789ab.tmp",
    ];
    for (const name of names) writeFileSync(join(cache, name), "x");
    writeProbeMemo(cache, keyFor("/bin/sh"), [null]);
    assert.deepEqual(readdirSync(cache).sort(), [...names.slice(1), "sandbox-probe.json"].sort());
    const other = folder();
    const linked = folder();
    symlinkSync(linked, join(other, "private"));
    writeProbeMemo(join(other, "private"), keyFor("/bin/sh"), [null]);
    assert.deepEqual(readdirSync(linked), []);
  });
});

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { PACKAGE_ROOT, sandbox, TestChild } from "../../src/conformance/harness.js";
import {
  folderIn,
  identity,
  KEPT_ENTRIES,
  names,
  SKIP,
  start,
  UID,
  whole,
} from "../helpers/code-cache-folder.js";

/**
 * The child's code cache on Node 20 (src/boot/code-cache.ts), seen from outside: the real
 * child, started as a frontend starts it, with a temp folder of its own (TMPDIR). The first
 * start writes one entry, the next ones use it as it is; a damaged or rejected entry is
 * compiled afresh and rewritten; another bundle, other V8 flags or another Node never use an
 * entry not made for them; concurrent first starts leave one whole entry; a root others can
 * write to is never used. On Node 22.1 and later (Node's own compile cache) it is skipped.
 */
/** bin, the entry and dist/child copied to a package of their own, whose bundle a test may change. */
function childCopy(root: string): { bin: string; bundle: string } {
  const dir = join(root, "pkg");
  mkdirSync(join(dir, "bin"), { recursive: true });
  // The bin and the package.json that makes it CommonJS.
  cpSync(join(PACKAGE_ROOT, "bin"), join(dir, "bin"), { recursive: true });
  cpSync(join(PACKAGE_ROOT, "dist", "child"), join(dir, "dist", "child"), { recursive: true });
  // The CLI's entry, which dist/child/entry.cjs imports for anything but the two backends.
  mkdirSync(join(dir, "dist", "src"), { recursive: true });
  cpSync(join(PACKAGE_ROOT, "dist", "src", "main.js"), join(dir, "dist", "src", "main.js"));
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ type: "module" })}\n`);
  return { bin: join(dir, "bin", "mc-agent.js"), bundle: join(dir, "dist", "child", "stdio.cjs") };
}

describe("the child's code cache (Node 20)", { skip: SKIP }, () => {
  // The entry made after the top level is made again, with the start's code, as the child exits
  // (or a second after its start, below): V8 must accept it, or the next start would rewrite it.
  test("the first start writes one private entry, the next use it as it is", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "mc-cc-"));
    try {
      const folder = folderIn(tmp);
      await start(tmp);
      const [entry, ...others] = names(folder);
      assert.ok(entry !== undefined && others.length === 0, names(folder).join(", "));
      assert.match(entry, /^stdio-[0-9a-f]{32}-\d+-\d+-[0-9a-f]{8}-started\.bin$/);
      const path = join(folder, entry);
      assert.ok(whole(path));
      assert.equal(statSync(path).mode & 0o777, 0o600);
      assert.equal(statSync(folder).mode & 0o777, 0o700);
      const before = identity(path);
      await start(tmp);
      await start(tmp);
      assert.equal(identity(path), before, "an accepted entry is not rewritten");
      assert.deepEqual(names(folder), [entry]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  test("a child that lives on makes its started entry a second after its start", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "mc-cc-"));
    const box = sandbox();
    const child = new TestChild({
      cwd: box.workspace,
      home: box.home,
      env: { TMPDIR: tmp, MC_AGENT_FAST_START: "0" },
    });
    try {
      const folder = folderIn(tmp);
      assert.ok((await child.initialize(["operation.cancel"])).result);
      const early = names(folder);
      assert.equal(early.length, 1);
      assert.match(early[0] as string, /[0-9a-f]{8}\.bin$/);
      const earlySize = statSync(join(folder, early[0] as string)).size;
      const deadline = Date.now() + 20_000;
      // The child renames the started entry in, then removes the early one (never a moment
      // without an entry): a look between the two sees both, so it waits for the write's end.
      const written = () => names(folder).some((name) => name.endsWith("-started.bin"));
      while (!written() || names(folder).length > 1) {
        const now = names(folder).join(", ");
        assert.ok(
          Date.now() < deadline,
          `the started entry has not replaced the early one: ${now}`,
        );
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const [started, ...others] = names(folder);
      assert.equal(others.length, 0, "the started entry replaces the early one");
      const path = join(folder, started as string);
      assert.ok(whole(path));
      // It holds what the start compiled after the top level too: it is larger.
      assert.ok(statSync(path).size > earlySize, `${statSync(path).size} <= ${earlySize}`);
      // The child serves on under its own flags, set back after the load's.
      const status = await child.request("status", {});
      assert.ok(status.result);
    } finally {
      await child.close();
      box.cleanup();
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  test("a damaged, truncated or garbage entry is not trusted: compiled afresh and rewritten", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "mc-cc-"));
    try {
      const folder = folderIn(tmp);
      await start(tmp);
      const [entry] = names(folder);
      assert.ok(entry !== undefined);
      const path = join(folder, entry);
      const good = readFileSync(path);
      // One bit of the compiled code flipped: V8 would load it (no checksum in release builds).
      const flipped = Buffer.from(good);
      const middle = Math.floor(flipped.length / 2);
      flipped[middle] = (flipped[middle] as number) ^ 0x10;
      for (const bad of [flipped, good.subarray(0, good.length - 100), Buffer.from("garbage")]) {
        writeFileSync(path, bad);
        await start(tmp);
        assert.ok(whole(path), "rewritten whole");
        assert.notDeepEqual(readFileSync(path), bad);
      }
      assert.deepEqual(names(folder), [entry]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  test("an entry V8 rejects (made under other flags) is rewritten; each set of flags has its own", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "mc-cc-"));
    try {
      const folder = folderIn(tmp);
      await start(tmp);
      const [plain] = names(folder);
      await start(tmp, { env: { NODE_OPTIONS: "--max-old-space-size=300" } });
      const [flagged, ...rest] = names(folder).filter((name) => name !== plain);
      assert.ok(plain !== undefined && flagged !== undefined && rest.length === 0);
      // The flagged entry, whole, under the plain entry's name: V8 checks the flags and rejects it.
      const flaggedBytes = readFileSync(join(folder, flagged));
      writeFileSync(join(folder, plain), flaggedBytes);
      await start(tmp);
      assert.ok(whole(join(folder, plain)));
      assert.notDeepEqual(readFileSync(join(folder, plain)), flaggedBytes, "rewritten");
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  test("another bundle never uses this one's entry: new content, size or time, each a new entry", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "mc-cc-"));
    try {
      const folder = folderIn(tmp);
      const { bin, bundle } = childCopy(tmp);
      const server = (result: Record<string, unknown>) => (result.server as { name: string }).name;
      assert.equal(server(await start(tmp, { bin })), "mc-agent");
      assert.equal(names(folder).length, 1);
      // The same length and time, and a new first line as a new build writes it: a new entry,
      // and the new code runs (a cache of the old one would still answer "mc-agent").
      const original = readFileSync(bundle, "latin1");
      const { mtime } = statSync(bundle);
      const body = original
        .slice(original.indexOf("\n") + 1)
        .replace('SERVER_INFO = { name: "mc-agent"', 'SERVER_INFO = { name: "mc-agenT"');
      assert.notEqual(
        body,
        original.slice(original.indexOf("\n") + 1),
        "the bundle names its server",
      );
      const hash = createHash("sha256").update(body, "latin1").digest("hex");
      writeFileSync(bundle, `// mc-agent child bundle ${hash}\n${body}`, "latin1");
      utimesSync(bundle, mtime, mtime);
      assert.equal(server(await start(tmp, { bin })), "mc-agenT");
      assert.equal(names(folder).length, 2);
      // Changed again in place, its first line kept (not a build): its time makes a new entry.
      const edited = original.replace(
        'SERVER_INFO = { name: "mc-agent"',
        'SERVER_INFO = { name: "mc-agenX"',
      );
      writeFileSync(bundle, edited, "latin1");
      assert.equal(server(await start(tmp, { bin })), "mc-agenX");
      assert.equal(names(folder).length, 3);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  test("per Node version: another Node's folder is never read", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "mc-cc-"));
    try {
      await start(tmp);
      const [entry] = names(folderIn(tmp));
      assert.ok(entry !== undefined);
      // Garbage under the very entry name, in another version's folder: left as it is.
      const other = join(tmp, `mc-agent-${UID}`, "code-cache", `v0.0.0-${process.arch}`);
      mkdirSync(other, { recursive: true });
      writeFileSync(join(other, entry), "not a cache");
      rmSync(join(folderIn(tmp), entry));
      await start(tmp);
      assert.equal(readFileSync(join(other, entry), "utf8"), "not a cache");
      assert.deepEqual(names(folderIn(tmp)), [entry]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  test("concurrent first starts each answer and leave one whole entry, no temp file", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "mc-cc-"));
    try {
      await Promise.all([1, 2, 3, 4].map(() => start(tmp)));
      const folder = folderIn(tmp);
      const all = names(folder);
      assert.equal(all.length, 1, all.join(", "));
      assert.ok(whole(join(folder, all[0] as string)));
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  test(`a write keeps the ${KEPT_ENTRIES} newest entries`, async () => {
    const tmp = mkdtempSync(join(tmpdir(), "mc-cc-"));
    try {
      const folder = folderIn(tmp);
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      const old = (i: number) => {
        const path = join(folder, `stdio-${String(i).padStart(32, "0")}-1-1-00000000.bin`);
        writeFileSync(path, "old");
        utimesSync(path, 1000 + i, 1000 + i);
        return path;
      };
      // At the bound: three older entries and the new one, all kept.
      const three = [1, 2, 3].map(old);
      await start(tmp);
      assert.equal(names(folder).length, KEPT_ENTRIES);
      for (const path of three) assert.ok(existsSync(path));
      // One past: four older entries and the new one, the oldest dropped.
      const [mine] = names(folder).filter((name) => !name.startsWith("stdio-000"));
      rmSync(join(folder, mine as string));
      const fourth = old(4);
      await start(tmp);
      assert.equal(names(folder).length, KEPT_ENTRIES);
      assert.equal(existsSync(three[0] as string), false, "the oldest is dropped");
      for (const path of [three[1], three[2], fourth]) assert.ok(existsSync(path as string));
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  test("a root others can write to, or MC_AGENT_COMPILE_CACHE=0: no cache, the child starts", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "mc-cc-"));
    try {
      await start(tmp, { env: { MC_AGENT_COMPILE_CACHE: "0" } });
      assert.equal(existsSync(join(tmp, `mc-agent-${UID}`, "code-cache")), false);
      const root = join(tmp, `mc-agent-${UID}`);
      mkdirSync(root, { recursive: true });
      chmodSync(root, 0o777);
      await start(tmp);
      assert.equal(existsSync(join(root, "code-cache")), false);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

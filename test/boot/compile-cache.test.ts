import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import module from "node:module";
import { join } from "node:path";
import { describe, test } from "node:test";
import { sandbox, TestChild } from "../../src/conformance/harness.js";

/**
 * The child's compile cache (src/boot/compile-cache.ts), seen from outside: the real child,
 * started as a frontend starts it, with its own temp folder (TMPDIR). On a Node without
 * `enableCompileCache` (20) nothing is written here (the child's own code cache instead,
 * test/boot/code-cache.test.ts); on 22.1 and later the
 * cache is written per Node version and architecture, a corrupt one is not trusted (the child
 * still starts), and a root folder others can write to is never used.
 * Run under Node 22 and 24 with `npm run test:nodes -- compile-cache`.
 */
const HAS_CACHE =
  typeof (module as { enableCompileCache?: unknown }).enableCompileCache === "function";
const UID = process.getuid?.() ?? -1;

async function start(tmp: string): Promise<void> {
  const box = sandbox();
  const child = new TestChild({ cwd: box.workspace, home: box.home, env: { TMPDIR: tmp } });
  try {
    const init = await child.initialize(["operation.cancel"]);
    assert.ok(init.result, JSON.stringify(init.error));
  } finally {
    await child.close();
    box.cleanup();
  }
}

/** Every file under `dir`, recursively. */
function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

describe("the child's compile cache", { skip: UID < 0 ? "no user IDs here" : false }, () => {
  test("Node without a compile cache: nothing is written for Node's (its own code cache instead)", {
    skip: HAS_CACHE ? "this Node has a compile cache" : false,
  }, async () => {
    const box = sandbox();
    try {
      await start(box.root);
      // test/boot/code-cache.test.ts: what Node 20 writes instead, beside it.
      assert.equal(existsSync(join(box.root, `mc-agent-${UID}`, "compile-cache")), false);
      assert.equal(existsSync(join(box.root, `mc-agent-${UID}`, "code-cache")), true);
    } finally {
      box.cleanup();
    }
  });

  test("per Node version; a corrupt cache is not trusted; a shared root is not used", {
    skip: HAS_CACHE ? false : "this Node has no compile cache",
  }, async () => {
    const box = sandbox();
    const root = join(box.root, `mc-agent-${UID}`);
    const cache = join(root, "compile-cache");
    try {
      // Another Node's folder, full of garbage: never read (the child starts, it stays as is).
      const other = join(cache, "v0.0.0-other");
      mkdirSync(other, { recursive: true });
      writeFileSync(join(other, "entry"), "not a cache");
      await start(box.root);
      const mine = files(join(cache, `${process.version}-${process.arch}`));
      assert.ok(mine.length > 0, "the first start writes its cache");
      // Every entry overwritten with garbage: the next start compiles afresh and answers.
      for (const file of mine) writeFileSync(file, "garbage");
      await start(box.root);
      assert.deepEqual(files(other), [join(other, "entry")]);
      // A root anybody can write to could hold planted code: the child ignores it.
      rmSync(cache, { recursive: true, force: true });
      chmodSync(root, 0o777);
      await start(box.root);
      assert.equal(existsSync(cache), false);
    } finally {
      box.cleanup();
    }
  });
});

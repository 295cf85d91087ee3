import assert from "node:assert/strict";
import {
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
import { describe, test } from "node:test";
import { needsRenewal } from "../../src/credentials/codex-renewal.js";
import type { CodexCredential } from "../../src/credentials/discovery.js";
import { Slots } from "../../src/http/slots.js";
import { enrich } from "../../src/models/refresh/models-dev.js";
import { testSeamFor } from "../../src/server/test-seam.js";
import { AtomicWriteError, writeFileAtomic } from "../../src/store/atomic-write.js";
import { providerFingerprint, validateCache } from "../../src/store/catalog-cache.js";
import { CredentialFileUnusable, updateCredentialFile } from "../../src/store/credentials.js";
import {
  readRegularFile,
  readRegularFileSync,
  UnsafeStoreFile,
} from "../../src/store/safe-read.js";
import { cacheDoc, fingerprint } from "./fixtures.js";

describe("atomic writer", () => {
  test("replaces the file whole, with mode 0600, leaving no temp file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mc-atomic-"));
    try {
      const path = join(dir, "nested", "file.json");
      await writeFileAtomic(path, Buffer.from("one"));
      await writeFileAtomic(path, Buffer.from("two, longer"));
      assert.equal(readFileSync(path, "utf8"), "two, longer");
      assert.equal(statSync(path).mode & 0o777, 0o600);
      assert.equal(statSync(join(dir, "nested")).mode & 0o777, 0o700);
      assert.deepEqual(readdirSync(join(dir, "nested")), ["file.json"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a gate that refuses the rename leaves the target and no temp file, and its error stands", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mc-atomic-"));
    try {
      const path = join(dir, "file.json");
      await writeFileAtomic(path, Buffer.from("old"));
      const refusal = new Error("refused");
      const refuse = () => {
        throw refusal;
      };
      await assert.rejects(writeFileAtomic(path, Buffer.from("new"), 0o600, refuse), (e) => {
        assert.equal(e, refusal);
        return true;
      });
      assert.equal(readFileSync(path, "utf8"), "old");
      assert.deepEqual(readdirSync(dir), ["file.json"]);
      let gated = 0;
      await writeFileAtomic(path, Buffer.from("new"), 0o600, (rename) => {
        gated += 1;
        return rename();
      });
      assert.equal(gated, 1, "the gate wraps the one rename");
      assert.equal(readFileSync(path, "utf8"), "new");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("credential file rewrite", () => {
  test("keeps other keys, creates 0600, never overwrites a file that is not a JSON object", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mc-cred-"));
    try {
      const path = join(dir, "auth.json");
      await updateCredentialFile(path, (f) => {
        f.a = 1;
      });
      await updateCredentialFile(path, (f) => {
        f.b = 2;
      });
      assert.deepEqual(JSON.parse(readFileSync(path, "utf8")), { a: 1, b: 2 });
      assert.equal(statSync(path).mode & 0o777, 0o600);
      for (const bad of ["[1]", "not json", "null"]) {
        writeFileSync(path, bad);
        await assert.rejects(
          updateCredentialFile(path, (f) => {
            f.c = 3;
          }),
          CredentialFileUnusable,
        );
        assert.equal(readFileSync(path, "utf8"), bad);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("test-build switches", () => {
  const env = {
    MC_AGENT_TEST_HTTP_WALL_MS: "300",
    MC_AGENT_TEST_CONNECT_MS: "200",
    MC_AGENT_TEST_COMMIT_FAULT: "folder_sync_fails",
  };
  /** The seam a child builds from `switches`, as a test build (or, `test` false, a normal child). */
  const seam = (switches: Record<string, string>, test: boolean) =>
    testSeamFor(test ? { ...switches, MC_AGENT_TEST_METHODS: "1" } : switches);
  test("a normal child keeps the contract's bounds (10 s connect, 300 s / 30 s wall) and real commits", () => {
    assert.deepEqual(seam(env, false).httpBounds, {
      providerMs: 300_000,
      enrichmentMs: 30_000,
      connectMs: 10_000,
    });
    assert.equal(seam(env, false).cacheCommit, undefined);
  });
  test("a test build honours them; junk values leave the contract's", () => {
    assert.deepEqual(seam(env, true).httpBounds, {
      providerMs: 300,
      enrichmentMs: 300,
      connectMs: 200,
    });
    assert.ok(seam(env, true).cacheCommit);
    const junk = { MC_AGENT_TEST_CONNECT_MS: "0", MC_AGENT_TEST_COMMIT_FAULT: "maybe" };
    assert.equal(seam(junk, true).httpBounds.connectMs, 10_000);
    // The enrichment bound alone, and winning over the shared one.
    const enrichment = { MC_AGENT_TEST_ENRICHMENT_WALL_MS: "250" };
    assert.deepEqual(seam(enrichment, true).httpBounds, {
      providerMs: 300_000,
      enrichmentMs: 250,
      connectMs: 10_000,
    });
    assert.equal(seam({ ...env, ...enrichment }, true).httpBounds.enrichmentMs, 250);
    assert.equal(seam(enrichment, false).httpBounds.enrichmentMs, 30_000);
    assert.equal(seam(junk, true).cacheCommit, undefined);
  });
  test("a commit fault wraps the real commit: the new bytes in place, or the old ones", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mc-commit-fault-"));
    try {
      const path = join(dir, "cache.json");
      for (const [fault, after] of [
        ["folder_sync_fails", "new"],
        ["rename_outcome_unknown", "old"],
      ] as const) {
        writeFileSync(path, "old");
        const steps = seam({ MC_AGENT_TEST_COMMIT_FAULT: fault }, true).cacheCommit;
        await assert.rejects(
          writeFileAtomic(path, Buffer.from("new"), 0o600, undefined, steps),
          (e) => e instanceof AtomicWriteError && e.stage === "uncertain",
        );
        assert.equal(readFileSync(path, "utf8"), after, fault);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("safe reads", () => {
  test("at the bound, one past it, absent, and a symlink", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mc-read-"));
    try {
      const path = join(dir, "f");
      writeFileSync(path, "x".repeat(10));
      const read = await readRegularFile(path, 10);
      assert.equal(read.kind === "bytes" && read.bytes.toString(), "x".repeat(10));
      assert.deepEqual(readRegularFileSync(path, 10).kind, "bytes");
      assert.deepEqual(await readRegularFile(path, 9), { kind: "too_large" });
      assert.deepEqual(readRegularFileSync(path, 9), { kind: "too_large" });
      assert.deepEqual(await readRegularFile(join(dir, "none"), 9), { kind: "missing" });
      symlinkSync(path, join(dir, "link"));
      await assert.rejects(readRegularFile(join(dir, "link"), 10), UnsafeStoreFile);
      assert.throws(() => readRegularFileSync(join(dir, "link"), 10), UnsafeStoreFile);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("catalog HTTP worker slots", () => {
  test("never more than the capacity at once; a cancelled waiter leaves the queue", async () => {
    const slots = new Slots(2);
    const signal = new AbortController().signal;
    const a = await slots.acquire(signal);
    const b = await slots.acquire(signal);
    const cancel = new AbortController();
    const waiting = slots.acquire(cancel.signal);
    let third = false;
    const next = slots.acquire(signal).then((release) => {
      third = true;
      return release;
    });
    cancel.abort();
    await assert.rejects(
      waiting,
      (e: Error & { code?: string }) => e.code === "operation_cancelled",
    );
    await new Promise((r) => setImmediate(r));
    assert.equal(third, false, "the third waits while two are held");
    a();
    (await next)();
    b();
    assert.equal(third, true);
    const again = await slots.acquire(signal);
    const again2 = await slots.acquire(signal);
    again();
    again2();
  });
});

describe("codex token age", () => {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const token = (claims: object) => `${part({})}.${part(claims)}.s`;
  const base: CodexCredential = {
    kind: "codex",
    source: "codex",
    access_token: "",
    refresh_token: "r",
    account_id: null,
    expires_at_ms: null,
    last_refresh_ms: null,
  };
  test("JWT exp decides; without exp, eight days since the last refresh", () => {
    const now = 2_000_000_000_000;
    // `exp` is in seconds: renewal is due from that second on, and not a millisecond before.
    assert.equal(needsRenewal({ ...base, access_token: token({ exp: 5 }) }, 5000), true);
    assert.equal(needsRenewal({ ...base, access_token: token({ exp: 5 }) }, 4999), false);
    // A token that is no JWT has no `exp`: the stored expiry decides.
    assert.equal(needsRenewal({ ...base, access_token: "opaque", expires_at_ms: 100 }, 100), true);
    assert.equal(needsRenewal({ ...base, access_token: "opaque", expires_at_ms: 100 }, 99), false);
    assert.equal(
      needsRenewal({ ...base, access_token: token({ exp: now / 1000 - 1 }) }, now),
      true,
    );
    assert.equal(
      needsRenewal({ ...base, access_token: token({ exp: now / 1000 + 60 }) }, now),
      false,
    );
    const day = 24 * 3600 * 1000;
    assert.equal(
      needsRenewal({ ...base, access_token: "opaque", last_refresh_ms: now - 8 * day - 1 }, now),
      true,
    );
    assert.equal(
      needsRenewal({ ...base, access_token: "opaque", last_refresh_ms: now - 8 * day }, now),
      false,
    );
    assert.equal(needsRenewal({ ...base, access_token: "" }, now), true);
  });
});

describe("models.dev enrichment", () => {
  test("fills gaps, keeps the provider's own data, never adds models", () => {
    const dev = {
      demo: {
        models: {
          a: { name: "A (dev)", reasoning: true, limit: { context: 1000 } },
          b: { name: "B (dev)" },
          c: { name: "C" },
          __proto__: { name: "x" },
        },
      },
    };
    const out = enrich(
      [{ id: "a" }, { id: "b", name: "B", efforts: ["max"], default_effort: "max" }],
      dev,
      "demo",
    );
    assert.deepEqual(out, [
      {
        id: "a",
        name: "A (dev)",
        context_window: 1000,
        efforts: ["low", "medium", "high"],
        default_effort: "medium",
      },
      { id: "b", name: "B", efforts: ["max"], default_effort: "max" },
    ]);
    assert.deepEqual(enrich([{ id: "a" }], null, "demo"), [{ id: "a" }]);
    assert.deepEqual(enrich([{ id: "toString" }], dev, "demo"), [{ id: "toString" }]);
  });
});

describe("cache validation", () => {
  const identity = { type: "openai-compatible", base_url: "http://h/v1" };
  const fp = providerFingerprint(identity);
  const check = (doc: unknown) => validateCache(Buffer.from(JSON.stringify(doc)), "p", fp).status;
  test("the fingerprint is the documented recipe", () => {
    assert.equal(fp, fingerprint(identity.type, identity.base_url));
  });
  test("statuses in order", () => {
    const doc = cacheDoc("p", identity, [{ id: "m" }]);
    assert.equal(validateCache(null, "p", fp).status, "missing_cache");
    assert.equal(check(doc), "available");
    assert.equal(check([doc]), "invalid_format");
    assert.equal(validateCache(Buffer.from([0xff, 0xfe]), "p", fp).status, "invalid_format");
    assert.equal(check({ ...doc, format: "other" }), "invalid_format");
    assert.equal(
      check({ ...doc, models: [{ id: "m", efforts: ["low"], default_effort: "high" }] }),
      "invalid_schema",
    );
    assert.equal(
      check({ ...doc, models: [{ id: "x".repeat(255) }] }),
      "invalid_schema",
      "p/<255> is too long",
    );
    assert.equal(check({ ...doc, models: [{ id: "m:1/v2" }] }), "available");
  });
});

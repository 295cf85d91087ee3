/**
 * Renewed tokens written back into a credential file that another program (the Codex CLI)
 * writes too, with no lock between them: a real second process rewrites the file while mc is
 * between its read and its rename, and nothing that process wrote is lost.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { promisify } from "node:util";
import { writeFileAtomic } from "../../src/store/atomic-write.js";
import {
  CREDENTIAL_UPDATE_ATTEMPTS,
  CredentialFileBusy,
  updateCredentialFile,
} from "../../src/store/credentials.js";

const run = promisify(execFile);
let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const START = { tokens: { access_token: "old-access", refresh_token: "old-refresh" } };

function authFile(): string {
  dir = mkdtempSync(join(tmpdir(), "mc-cred-cas-"));
  const path = join(dir, "auth.json");
  writeFileSync(path, JSON.stringify(START, null, 2), { mode: 0o600 });
  return path;
}

/**
 * Another process's write, as the Codex CLI does it: read the file, change its fields, and
 * truncate and rewrite the file in place (`inPlace`), or write a temp file and rename it.
 */
function otherWriter(path: string, field: string, value: string, inPlace: boolean) {
  const script = `
    const fs = require("node:fs");
    const [path, field, value, inPlace] = process.argv.slice(1);
    const file = JSON.parse(fs.readFileSync(path, "utf8"));
    file[field] = value;
    file.tokens.account_id = value;
    const text = JSON.stringify(file, null, 2);
    if (inPlace === "1") fs.writeFileSync(path, text, { mode: 0o600 });
    else { fs.writeFileSync(path + ".other", text, { mode: 0o600 }); fs.renameSync(path + ".other", path); }
  `;
  return run(process.execPath, ["-e", script, path, field, value, inPlace ? "1" : "0"]);
}

/** mc's part: the fields it owns after a renewal. */
const renew = (file: Record<string, unknown>) => {
  const tokens = file.tokens as Record<string, unknown>;
  tokens.access_token = "new-access";
  tokens.refresh_token = "new-refresh";
  file.last_refresh = "2026-12-01T00:00:00.000Z";
};

for (const inPlace of [true, false]) {
  const how = inPlace ? "rewriting it in place" : "renaming a new file over it";
  test(`a process ${how} between mc's read and rename loses nothing`, async () => {
    const path = authFile();
    const attempts: number[] = [];
    await updateCredentialFile(path, renew, {
      write: async (target, bytes, mode, gate) => {
        attempts.push(attempts.length + 1);
        if (attempts.length === 1)
          await otherWriter(path, "OPENAI_API_KEY", "sk-from-codex", inPlace);
        return writeFileAtomic(target, bytes, mode, gate);
      },
    });
    assert.deepEqual(attempts, [1, 2], "the merge was redone once, on the other write");
    assert.deepEqual(JSON.parse(readFileSync(path, "utf8")), {
      OPENAI_API_KEY: "sk-from-codex",
      tokens: {
        access_token: "new-access",
        refresh_token: "new-refresh",
        account_id: "sk-from-codex",
      },
      last_refresh: "2026-12-01T00:00:00.000Z",
    });
    assert.equal(statSync(path).mode & 0o777, 0o600);
  });
}

test("writes landing in every attempt: bounded, nothing written, the last write stands", async () => {
  const path = authFile();
  let attempts = 0;
  await assert.rejects(
    updateCredentialFile(path, renew, {
      write: async (target, bytes, mode, gate) => {
        attempts += 1;
        await otherWriter(path, "seq", `w${attempts}`, attempts % 2 === 0);
        return writeFileAtomic(target, bytes, mode, gate);
      },
    }),
    CredentialFileBusy,
  );
  assert.equal(attempts, CREDENTIAL_UPDATE_ATTEMPTS);
  const final = JSON.parse(readFileSync(path, "utf8"));
  assert.equal(final.seq, `w${CREDENTIAL_UPDATE_ATTEMPTS}`);
  assert.equal(final.tokens.access_token, "old-access", "mc wrote nothing");
});

test("a file that stays half-written is never overwritten", async () => {
  const path = authFile();
  writeFileSync(path, '{"tokens": {"access_token": "tru');
  await assert.rejects(updateCredentialFile(path, renew), { name: "CredentialFileUnusable" });
  assert.equal(readFileSync(path, "utf8"), '{"tokens": {"access_token": "tru');
});

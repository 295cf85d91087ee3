import assert from "node:assert/strict";
import crypto from "node:crypto";
import { appendFileSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { historyMemoOf } from "../../src/server/handlers/history-memo-of.js";
import { createModelServices } from "../../src/server/handlers/model-services.js";
import { sessionHandlers } from "../../src/server/handlers/sessions.js";
import { admitTurn } from "../../src/server/handlers/turn-admission.js";
import { createState, type ServerState } from "../../src/server/state.js";
import { PRODUCTION_SEAM } from "../../src/server/test-seam.js";
import { HistoryMemo } from "../../src/sessions/history/admission-memo.js";
import { WHOLE_READ_BUFFER_BYTES } from "../../src/sessions/records/record-reader.js";
import { sandbox } from "../helpers/child.js";
import { FileReadWatch } from "../helpers/file-read-watch.js";
import { cacheDoc, demoConfig, writeCache, writeConfig } from "../models/fixtures.js";

/**
 * How often a turn's admission reads a saved history, counted on the real file: every
 * positional read of the history's descriptors that starts at its first byte begins a pass
 * (RecordReader reads with readSync from position 0; the writer's tail search reads the end
 * with its own asynchronous reads), and the memo's check of what it read before reads it in
 * larger reads from position 0 too. The fs functions are wrapped, not replaced: every call
 * still reaches the disk.
 */
class HistoryReads {
  passes = 0;
  bytes = 0;
  /** Passes that parse from the first record on (RecordReader's whole-history reads at 0). */
  parsesFromStart = 0;
  private readonly watch: FileReadWatch;

  constructor(path: string) {
    this.watch = new FileReadWatch(path, ({ buffer, got, position }) => {
      if (position === 0) this.passes += 1;
      if (position === 0 && buffer.byteLength === WHOLE_READ_BUFFER_BYTES)
        this.parsesFromStart += 1;
      this.bytes += got;
    });
  }

  install(): void {
    this.watch.install();
  }

  uninstall(): void {
    this.watch.uninstall();
  }
}

/**
 * The bytes each kind of check is fed while installed: SHA-256 (createHash) and the memo's
 * keyed fingerprint (AES-256-GCM's authenticator over additional data, fingerprint.ts). Wrapped
 * like the reads above: every call still does its work.
 */
class CheckedBytes {
  /** Bytes fed to SHA-256 in buffers. */
  sha256 = 0;
  fingerprinted = 0;
  private readonly original = {
    createHash: crypto.createHash,
    createCipheriv: crypto.createCipheriv,
  };

  install(): void {
    const { createHash, createCipheriv } = this.original;
    crypto.createHash = ((...args: Parameters<typeof createHash>) => {
      const hash = createHash(...args);
      if (String(args[0]).toLowerCase() !== "sha256") return hash;
      const update = hash.update.bind(hash) as (...a: unknown[]) => crypto.Hash;
      hash.update = ((data: Uint8Array | string, ...rest: unknown[]) => {
        // History bytes are read into buffers; strings hashed meanwhile are names and settings.
        if (typeof data !== "string") this.sha256 += data.byteLength;
        return update(data, ...rest);
      }) as typeof hash.update;
      const copy = hash.copy.bind(hash);
      hash.copy = () => copy(); // A copy's bytes were counted once already.
      return hash;
    }) as typeof createHash;
    crypto.createCipheriv = ((...args: Parameters<typeof createCipheriv>) => {
      const cipher = (createCipheriv as (...a: unknown[]) => crypto.CipherGCM)(...args);
      const setAAD = cipher.setAAD.bind(cipher);
      cipher.setAAD = ((data: NodeJS.ArrayBufferView, ...rest: unknown[]) => {
        this.fingerprinted += data.byteLength;
        return (setAAD as (...a: unknown[]) => crypto.CipherGCM)(data, ...rest);
      }) as typeof cipher.setAAD;
      return cipher;
    }) as typeof createCipheriv;
    syncBuiltinESMExports();
  }

  uninstall(): void {
    crypto.createHash = this.original.createHash;
    crypto.createCipheriv = this.original.createCipheriv;
    syncBuiltinESMExports();
  }
}

const USAGE = { input_tokens: 1, output_tokens: 2, cached_input_tokens: 0, reasoning_tokens: 0 };
const TURNS = 300;

/** A saved history of `TURNS` whole turns, every record in the workspace `cwd`. */
function writeHistory(path: string, id: string, cwd: string): void {
  const ts = "2026-01-01T00:00:00.000Z";
  const lines: object[] = [{ type: "session_meta", ts, cwd, id }];
  for (let n = 0; n < TURNS; n++) {
    const at = { ts, cwd, turn_id: `t-${n}` };
    lines.push(
      { type: "turn_start", ...at, model: "demo/demo-1", effort: null, permissions: "ask" },
      { type: "user_message", ...at, text: `question ${n}` },
      { type: "assistant_message", ...at, text: `answer ${n}`, model: "demo/demo-1" },
      { type: "turn_end", ...at, status: "completed", stop_reason: "end_turn", usage: USAGE },
    );
  }
  writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
}

describe("turn admission on a saved history", () => {
  const box = sandbox("mc-admission-reads-");
  const id = "s-reads";
  const path = join(box.home, "sessions", `${id}.jsonl`);
  before(() => {
    const identity = { type: "openai-compatible", base_url: "http://127.0.0.1:9/v1" };
    writeConfig(box, demoConfig(identity.base_url, { model: "demo/demo-1" }));
    writeCache(box, "demo", cacheDoc("demo", identity, [{ id: "demo-1" }]));
    mkdirSync(join(box.home, "sessions"), { mode: 0o700 });
    writeHistory(path, id, box.workspace);
  });
  after(() => box.cleanup());

  /** One admission of the attached history through `memo`, its reads counted. */
  async function admitCounted(
    memo: HistoryMemo,
    state = createState(box.workspace, box.home, { DEMO_KEY: "sk-test" }),
  ) {
    const services = createModelServices(state);
    state.attachment = { session_id: id, saved: true };
    const reads = new HistoryReads(path);
    const checked = new CheckedBytes();
    reads.install();
    checked.install();
    try {
      const admitted = await admitTurn(state, services, new AbortController().signal, memo);
      await admitted.writer.close();
      return { admitted, reads, checked };
    } finally {
      checked.uninstall();
      reads.uninstall();
    }
  }

  it("reads it twice: once before the lock, once under it for both revalidation and replay", async () => {
    const { admitted, reads } = await admitCounted(new HistoryMemo());
    // Before the lock (its refusals write nothing), then one pass under it: not three.
    assert.equal(reads.passes, 2);
    assert.equal(reads.parsesFromStart, 2);
    assert.equal(reads.bytes, 2 * statSync(path).size);
    // The one pass under the lock still collected the whole replay.
    assert.equal(admitted.historyTruncated, false);
    const users = admitted.history.filter((item) => item.kind === "user");
    assert.equal(users.length, TURNS, "every turn's input is in the context");
    assert.deepEqual(users.at(-1), { kind: "user", text: `question ${TURNS - 1}` });
  });

  it("the next admission reads it whole again but parses only what was appended since", async () => {
    const memo = new HistoryMemo();
    await admitCounted(memo);
    const before = statSync(path).size;
    assert.equal(memo.heldBytes, before);
    const ts = "2026-01-01T00:00:01.000Z";
    const at = { ts, cwd: box.workspace, turn_id: "t-new" };
    appendFileSync(path, `${JSON.stringify({ type: "user_message", ...at, text: "one more" })}\n`);
    const { admitted, reads, checked } = await admitCounted(memo);
    const size = statSync(path).size;
    // Each pass checks the bytes read before and parses the new record from where they end.
    assert.equal(reads.passes, 2);
    assert.equal(reads.parsesFromStart, 0, "no pass parses from the first record");
    assert.equal(reads.bytes, 2 * size);
    assert.equal(memo.heldBytes, size);
    // Issue 44: each pass checks the bytes read before once, by the keyed fingerprint, not by
    // SHA-256, which cost an admission 3 ms a pass on a 4 MiB history (docs/store.md); the pass
    // under the lock fingerprints the appended bytes too, for the next admission.
    const appended = size - before;
    assert.equal(checked.fingerprinted, 2 * before + appended, "each byte once a pass");
    // (The catalog's snapshot hashes its own small files: far less than one pass's worth.)
    assert.ok(checked.sha256 < before, `SHA-256 was fed ${checked.sha256} bytes`);
    const users = admitted.history.filter((item) => item.kind === "user");
    assert.equal(users.length, TURNS + 1);
    assert.deepEqual(users.at(-1), { kind: "user", text: "one more" });
    const fresh = await admitCounted(new HistoryMemo());
    assert.deepEqual(admitted.history, fresh.admitted.history, "the same context as a full read");
  });

  /** session.open by the child's handler, `capabilities` negotiated; its reads counted. */
  async function openCounted(state: ServerState, capabilities: string[]) {
    state.negotiated = new Set(capabilities) as ServerState["negotiated"];
    const open = sessionHandlers(state, PRODUCTION_SEAM)["session.open"] as unknown as (
      params: { id: string },
      ctx: object,
    ) => Promise<{ session: { id: string } }>;
    const reads = new HistoryReads(path);
    reads.install();
    try {
      const ctx = {
        id: "o1",
        signal: new AbortController().signal,
        state,
        commit: (f: () => void) => f(),
      };
      const result = await open({ id }, ctx);
      return { result, reads };
    } finally {
      reads.uninstall();
    }
  }

  // Issue 44: the first turn after an open parsed the whole history twice more.
  it("after a session.open with turn, the first admission hashes the history but parses none of it", async () => {
    const state = createState(box.workspace, box.home, { DEMO_KEY: "sk-test" });
    const opened = await openCounted(state, ["turn", "session.open"]);
    assert.equal(opened.result.session.id, id);
    assert.equal(opened.reads.parsesFromStart, 1, "the open's own pass parses it once");
    const size = statSync(path).size;
    assert.equal(historyMemoOf(state).heldBytes, size);
    const { admitted, reads, checked } = await admitCounted(historyMemoOf(state), state);
    assert.equal(reads.passes, 2);
    assert.equal(reads.parsesFromStart, 0, "no pass parses from the first record");
    assert.equal(reads.bytes, 2 * size, "every byte is still read by both passes");
    assert.equal(checked.fingerprinted, 2 * size, "and checked by both, once each");
    const fresh = await admitCounted(new HistoryMemo());
    assert.deepEqual(admitted.history, fresh.admitted.history, "the same context as a full read");
  });

  it("a session.open without turn keeps nothing: no turn can follow it", async () => {
    const state = createState(box.workspace, box.home, { DEMO_KEY: "sk-test" });
    const opened = await openCounted(state, ["session.open"]);
    assert.equal(opened.result.session.id, id);
    assert.equal(historyMemoOf(state).heldBytes, 0);
  });
});

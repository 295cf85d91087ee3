import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { openExact } from "../../src/sessions/history/open.js";
import {
  READ_BUFFER_BYTES,
  WHOLE_READ_BUFFER_BYTES,
} from "../../src/sessions/records/record-reader.js";
import { Slicer } from "../../src/sessions/slicer.js";
import { type Sandbox, sandbox } from "../helpers/child.js";
import { FileReadWatch } from "../helpers/file-read-watch.js";

/**
 * Issue 44, "Opening a big history": an exact open reads its one history in reads of
 * WHOLE_READ_BUFFER_BYTES, not the listing's 8 KiB (a 1 GB history took 122,000 reads), and
 * decides it exactly as before, records across the reads' edges included. The reads are
 * counted on the real file (FileReadWatch: fs.readSync wrapped, not replaced).
 */
class Reads {
  sizes: number[] = [];
  bytes = 0;
  private readonly watch: FileReadWatch;

  constructor(path: string) {
    this.watch = new FileReadWatch(path, ({ buffer, got }) => {
      this.sizes.push(buffer.byteLength);
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

const slicer = () => new Slicer(new AbortController().signal);

describe("an exact open's reads (issue 44)", () => {
  let box: Sandbox;
  before(() => {
    box = sandbox("mc-open-reads-");
    mkdirSync(join(box.home, "sessions"), { recursive: true, mode: 0o700 });
  });
  after(() => box.cleanup());

  /** A history of about `bytes`, its records of varied lengths (so they straddle reads). */
  function history(id: string, bytes: number): { path: string; size: number; records: number } {
    const meta = { type: "session_meta", ts: "2026-01-01T00:00:00.000Z", cwd: box.workspace, id };
    const lines = [JSON.stringify(meta)];
    let size = (lines[0] as string).length + 1;
    for (let i = 0; size < bytes; i += 1) {
      const text = "x".repeat((i * 7919) % 20_000);
      const line = JSON.stringify({
        type: "assistant_message",
        ts: "2026-01-01T00:00:01.000Z",
        text,
      });
      lines.push(line);
      size += line.length + 1;
    }
    const path = join(box.home, "sessions", `${id}.jsonl`);
    writeFileSync(path, `${lines.join("\n")}\n`, { mode: 0o600 });
    return { path, size, records: lines.length };
  }

  it("reads a history of several MiB in whole-history reads and decides it as before", async () => {
    const id = "aaaaaaaa-0000-4000-8000-000000000044";
    const { path, size } = history(id, 3 * 1_048_576);
    const reads = new Reads(path);
    reads.install();
    let opened: Awaited<ReturnType<typeof openExact>>;
    try {
      opened = await openExact(box.home, box.workspace, id, slicer());
    } finally {
      reads.uninstall();
    }
    assert.equal(opened.entry.id, id);
    assert.equal(reads.bytes, size, "every byte read once");
    assert.ok(WHOLE_READ_BUFFER_BYTES > READ_BUFFER_BYTES);
    assert.ok(
      reads.sizes.every((s) => s === WHOLE_READ_BUFFER_BYTES),
      `buffers of ${[...new Set(reads.sizes)].join(", ")} bytes`,
    );
    // Each read fills what the record in hand leaves of the buffer: one more than the bytes
    // need at most, per record that straddles a read's edge.
    assert.ok(
      reads.sizes.length <= 2 * Math.ceil(size / WHOLE_READ_BUFFER_BYTES) + 1,
      `${reads.sizes.length} reads of a ${size}-byte history`,
    );
  });

  it("still refuses a bad record past the first read", async () => {
    const id = "aaaaaaaa-0000-4000-8000-000000000045";
    const { path } = history(id, WHOLE_READ_BUFFER_BYTES * 2);
    appendFileSync(path, '{"type":"assistant_message","ts":1}\n');
    await assert.rejects(openExact(box.home, box.workspace, id, slicer()), {
      code: "session_invalid",
    });
  });
});

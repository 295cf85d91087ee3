import assert from "node:assert/strict";
import type { BigIntStats } from "node:fs";
import { describe, it } from "node:test";
import { InventorySignature } from "../../src/store/inventory.js";

function stats(ino: number, size: number, mtimeNs: bigint, mode = 0o100600): BigIntStats {
  return {
    dev: 1n,
    ino: BigInt(ino),
    mode: BigInt(mode),
    size: BigInt(size),
    mtimeNs,
    ctimeNs: mtimeNs,
  } as BigIntStats;
}

describe("InventorySignature", () => {
  it("is independent of enumeration order", () => {
    const a = new InventorySignature();
    const b = new InventorySignature();
    const entries: [string, BigIntStats][] = [
      ["a.jsonl", stats(1, 10, 5n)],
      ["b.jsonl", stats(2, 20, 6n)],
      ["c.lock", stats(3, 30, 7n)],
    ];
    for (const [name, s] of entries) a.add(name, s, name.endsWith(".lock"));
    for (const [name, s] of [...entries].reverse()) b.add(name, s, name.endsWith(".lock"));
    assert.ok(a.equals(b));
  });

  it("sees a changed length, mtime, mode, identity or name, but not a lock's renewal", () => {
    const base = () => {
      const sig = new InventorySignature();
      sig.add("a.jsonl", stats(1, 10, 5n), false);
      return sig;
    };
    const variants: [string, BigIntStats][] = [
      ["a.jsonl", stats(1, 11, 5n)],
      ["a.jsonl", stats(1, 10, 6n)],
      ["a.jsonl", stats(1, 10, 5n, 0o100644)],
      ["a.jsonl", stats(9, 10, 5n)],
      ["b.jsonl", stats(1, 10, 5n)],
    ];
    for (const [name, s] of variants) {
      const other = new InventorySignature();
      other.add(name, s, false);
      assert.ok(!base().equals(other), name);
    }
    const lockBefore = new InventorySignature();
    lockBefore.add("a.lock", stats(4, 60, 5n), true);
    const lockAfter = new InventorySignature();
    lockAfter.add("a.lock", stats(4, 61, 9n), true);
    assert.ok(lockBefore.equals(lockAfter));
  });

  it("signs a name given as bytes like the same name as text, long names, and times before 1970", () => {
    const text = new InventorySignature();
    text.add("é.jsonl", stats(1, 10, -5n), false);
    const bytes = new InventorySignature();
    bytes.add(Buffer.from("é.jsonl"), stats(1, 10, -5n), false);
    assert.ok(text.equals(bytes));
    const long = (last: string) => {
      const sig = new InventorySignature();
      sig.add(`${"n".repeat(2000)}${last}`, stats(1, 10, 5n), false);
      return sig;
    };
    assert.ok(long("a").equals(long("a")));
    assert.ok(!long("a").equals(long("b")));
    const later = new InventorySignature();
    later.add("é.jsonl", stats(1, 10, 5n), false);
    assert.ok(!text.equals(later));
  });
});

import { createReadStream } from "node:fs";

const CHECKPOINT_ID = /^c-[0-9a-f]{32}$/;

/**
 * The checkpoint IDs a deleted history's `turn_end` records name (`checkpoints: {before,
 * after}`, docs/checkpoints.md), read from its tombstone line by line. Lines that are not such a
 * record are skipped: the history was validated before it became a tombstone, and a torn tail
 * names nothing.
 */
export async function checkpointsNamedIn(path: string): Promise<string[]> {
  const found = new Set<string>();
  let stream: ReturnType<typeof createReadStream>;
  try {
    stream = createReadStream(path, { encoding: "utf8" });
  } catch {
    return [];
  }
  // node:readline at the first read, not with this module: a start that reads no such file before
  // its answer does not load it (2-4 ms; docs/acp.md, "Start-up").
  const lines = process
    .getBuiltinModule("node:readline")
    .createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const line of lines) {
      // Cheap filter first: a 1 MB reply is not parsed to find no checkpoint.
      if (!line.includes('"turn_end"') || !line.includes('"checkpoints"')) continue;
      for (const id of idsOf(line)) found.add(id);
    }
  } catch {
    // Unreadable now: what was read is removed; the rest is left to age-based pruning.
  } finally {
    lines.close();
    stream.destroy();
  }
  return [...found];
}

function idsOf(line: string): string[] {
  try {
    const record = JSON.parse(line) as { type?: unknown; checkpoints?: Record<string, unknown> };
    if (record.type !== "turn_end" || typeof record.checkpoints !== "object") return [];
    return Object.values(record.checkpoints ?? {}).filter(
      (value): value is string => typeof value === "string" && CHECKPOINT_ID.test(value),
    );
  } catch {
    return [];
  }
}

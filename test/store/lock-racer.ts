// A process racing others to take a session's writer lock (writer-lock.test.ts): waits for
// "go" on stdin, tries once, prints "won" or "locked", then holds what it won until stdin ends.
import { SessionLocked, WriterLock } from "../../src/store/writer-lock.js";

const [root, id] = process.argv.slice(2) as [string, string];
let lock: WriterLock | null = null;
let started = false;

process.stdin.on("data", () => {
  if (started) return;
  started = true;
  WriterLock.acquire(root, id).then(
    (held) => {
      lock = held;
      process.stdout.write("won\n");
    },
    (error) =>
      process.stdout.write(error instanceof SessionLocked ? "locked\n" : `error ${error}\n`),
  );
});
process.stdin.on("end", async () => {
  await lock?.release();
  process.exit(0);
});
process.stdout.write("ready\n");

/**
 * File names that are not UTF-8 (Linux names are bytes): a turn's shell changes, removes and
 * makes such files, folders and links, and turn.revert through the real child restores the
 * workspace byte for byte, names included, without writing a lookalike (U+FFFD) name beside
 * them. The result shows those names decoded as UTF-8 (U+FFFD for the bytes that are not).
 */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { afterEach, test } from "node:test";
import { answer, call, text } from "../fixtures/chat-completions-server.js";
import { treeDigest } from "../helpers/tree-digest.js";
import { type Loose, runApproving } from "./tool-turns.js";
import { REVERT_CAPS, type TurnWorld, turnWorld } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const BIG = 8 * 1024 * 1024 + 1;

/** A workspace path from raw bytes (a `number[]` for each name that is not UTF-8). */
function at(ws: string, ...parts: (string | number[])[]): Buffer {
  const names = parts.map((p) => (typeof p === "string" ? Buffer.from(p) : Buffer.from(p)));
  return Buffer.concat([Buffer.from(ws), ...names.flatMap((n) => [Buffer.from("/"), n])]);
}

const F = [0x66, 0xff, 0x2e, 0x74]; // f\xff.t
const D = [0x64, 0xfe]; // d\xfe
const G = [0x67, 0x80]; // g\x80
const L = [0x6c, 0xfd]; // l\xfd
const E = [0x65, 0xfb]; // e\xfb (an empty folder)
const B = [0x62, 0xfa, 0x2e, 0x62, 0x69, 0x6e]; // b\xfa.bin (over 8 MiB)

function seed(ws: string) {
  writeFileSync(at(ws, F), "old\n");
  mkdirSync(at(ws, D));
  writeFileSync(at(ws, D, "in.txt"), "inside\n");
  writeFileSync(at(ws, D, G), "g\n", { mode: 0o755 });
  symlinkSync(Buffer.from(F), at(ws, L));
  mkdirSync(at(ws, E));
  writeFileSync(at(ws, "é.txt"), "accent\n");
  writeFileSync(at(ws, B), Buffer.alloc(BIG, 0x61));
}

/** The turn's shell: names made with printf's octal escapes (bytes, whatever the locale). */
const MESS = [
  `printf 'new\\n' > "$(printf 'f\\377.t')"`,
  `rm -r "$(printf 'd\\376')"`,
  `printf 'x\\n' > "$(printf 'n\\374')"`,
  `rm "$(printf 'l\\375')"`,
  `rmdir "$(printf 'e\\373')"`,
  `printf 'more\\n' >> é.txt`,
].join(" && ");

test("names that are not UTF-8 are checkpointed and reverted byte for byte", async () => {
  world = await turnWorld({ capabilities: REVERT_CAPS });
  const w = world;
  const ws = w.box.workspace;
  seed(ws);
  const before = treeDigest(ws);
  assert.ok(before["f\\xff.t"] && before["d\\xfe/g\\x80"] && before["l\\xfd"] === "link f\\xff.t");
  const { session } = await w.child.call("session.create", {});
  w.server.reply(answer({ calls: [call("shell", { command: MESS }, "c1")] }), text("Done."));
  const run = await runApproving(w.child, "mess with names", "full_access", []);
  assert.equal(run.result.status, "completed");
  const messed = treeDigest(ws);
  assert.ok(messed["n\\xfc"] && !messed["d\\xfe"] && !messed["l\\xfd"] && !messed["e\\xfb"]);
  const params = { session_id: session.id, turn_id: run.result.turn_id };

  const dry: Loose = await w.child.request("turn.revert", { ...params, dry_run: true });
  assert.equal(dry.result?.state, "dry_run", JSON.stringify(dry.error));
  assert.equal(dry.result.workspace_changed, false);
  const changes = Object.fromEntries(dry.result.files.map((f: Loose) => [f.path, f.change]));
  assert.deepEqual(changes, {
    "b\ufffd.bin": "skipped",
    "d\ufffd/g\ufffd": "recreated",
    "d\ufffd/in.txt": "recreated",
    "f\ufffd.t": "restored",
    "l\ufffd": "recreated",
    "n\ufffd": "removed",
    "é.txt": "restored",
  });
  const diff = dry.result.files.find((f: Loose) => f.path === "f\ufffd.t").diff;
  // The diff library quotes a header name past ASCII, as git does (`"a/f\357\277\275.t"`).
  assert.match(diff, /^--- "a\/f\\357\\277\\275\.t"\n[\s\S]*-new\n\+old\n$/);
  assert.deepEqual(treeDigest(ws), messed, "a dry run changes nothing");

  const done: Loose = await w.child.request("turn.revert", params, undefined, 60_000);
  assert.equal(done.result?.state, "reverted", JSON.stringify(done.error));
  assert.deepEqual(treeDigest(ws), before);
  // No lookalike: the only names are the workspace's own bytes.
  const top = readdirSync(Buffer.from(ws), { encoding: "buffer" }).map((n) => n.toString("hex"));
  assert.ok(!top.some((hex) => hex.includes("efbfbd")), "no U+FFFD name was written");
});

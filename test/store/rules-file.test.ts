/**
 * The workspace rules file on a real temp MC_HOME: add (once per equal rule), remove, clear, the
 * 256-rule bound at its edge, the 1 MiB file bound, a refused commit gate changing nothing, and
 * files that are invalid (never rewritten but by clear).
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { RuleBook } from "../../src/agent/rules/rule-book.js";
import { shellRule } from "../../src/agent/rules/rule-match.js";
import { RULE_TEXT_BYTES } from "../../src/protocol/schemas/rules.js";
import {
  MAX_RULES,
  type NewRule,
  RulesUnavailable,
  WorkspaceRulesFile,
} from "../../src/store/rules-file.js";
import { rulesFileName } from "../helpers/rules-file-name.js";

/** A rules file over this size is invalid (src/store/rules-file.ts). */
const RULES_FILE_BYTES = 1_048_576;

let root = "";
afterEach(() => rmSync(root, { recursive: true, force: true }));

function world() {
  root = realpathSync(mkdtempSync(join(tmpdir(), "mc-rules-")));
  const home = join(root, "home");
  const workspace = join(root, "ws");
  const book = new RuleBook(home, workspace, () => {});
  return { home, workspace, file: book.file, path: join(home, "rules", rulesFileName(workspace)) };
}

const allow = (...words: string[]): NewRule => ({
  effect: "allow",
  tool: "shell",
  match: "prefix",
  env: [],
  words,
});

describe("store: the workspace rules file", () => {
  test("add keeps an equal rule once; remove and clear; the file names its workspace", async () => {
    const { file, path, workspace } = world();
    assert.deepEqual(await file.read(), { state: "absent", rules: [] });
    const a = await file.add(allow("npm", "test"));
    const again = await file.add(allow("npm", "test"));
    assert.equal(again.id, a.id);
    await file.add({ effect: "deny", tool: "edit", path_glob: "secrets/**" });
    const read = await file.read();
    assert.equal(read.state, "ok");
    assert.equal(read.rules.length, 2);
    assert.equal(JSON.parse(readFileSync(path, "utf8")).workspace, workspace);
    await file.remove(a.id);
    assert.deepEqual(
      (await file.read()).rules.map((r) => r.tool),
      ["edit"],
    );
    await assert.rejects(
      file.remove(a.id),
      (e) => e instanceof RulesUnavailable && e.reason === "missing_rule",
    );
    await file.clear();
    assert.deepEqual(await file.read(), { state: "ok", rules: [] });
  });

  test("256 rules fit; the 257th is refused, the file unchanged", async () => {
    const { file, path } = world();
    const first = await file.add(allow("tool", "w0"));
    // 255 rules written as the store writes them, then the 256th added through the store.
    const rules = Array.from({ length: MAX_RULES - 1 }, (_, i) => ({
      ...first,
      id: `w-${i.toString(16).padStart(16, "0")}`,
      words: ["tool", `w${i}`],
    }));
    const doc = JSON.parse(readFileSync(path, "utf8"));
    writeFileSync(path, JSON.stringify({ ...doc, rules }));
    await file.add(allow("tool", "last"));
    assert.equal((await file.read()).rules.length, MAX_RULES);
    const before = readFileSync(path, "utf8");
    await assert.rejects(
      file.add(allow("tool", "one-more")),
      (e) => e instanceof RulesUnavailable && e.reason === "full",
    );
    assert.equal(readFileSync(path, "utf8"), before);
    assert.equal((await file.read()).rules.length, MAX_RULES);
  });

  test("a refused commit gate changes nothing", async () => {
    const { file, path } = world();
    const kept = await file.add(allow("ls"));
    const before = readFileSync(path, "utf8");
    const refuse = () => {
      throw new Error("cancelled");
    };
    await assert.rejects(file.remove(kept.id, refuse), /cancelled/);
    await assert.rejects(file.clear(refuse), /cancelled/);
    assert.equal(readFileSync(path, "utf8"), before);
  });

  test("invalid files apply nothing and are never rewritten by add or remove", async () => {
    const { file, path } = world();
    const kept = await file.add(allow("ls"));
    const good = JSON.parse(readFileSync(path, "utf8"));
    const long = "x".repeat(RULE_TEXT_BYTES);
    const cases = [
      "not json",
      "\uFEFF{}",
      JSON.stringify({ ...good, version: 2 }),
      JSON.stringify({ ...good, rules: [good.rules[0], good.rules[0]] }),
      JSON.stringify({ ...good, rules: [{ ...good.rules[0], id: "w-XYZ" }] }),
      JSON.stringify({ ...good, rules: [{ ...good.rules[0], created_at: "yesterday" }] }),
      JSON.stringify({ ...good, rules: [{ ...good.rules[0], words: ["echo", long] }] }),
      JSON.stringify({ ...good, rules: [{ ...good.rules[0], tool: "edit", path_glob: "../x" }] }),
      JSON.stringify({ ...good, pad: "x".repeat(RULES_FILE_BYTES) }),
    ];
    for (const bytes of cases) {
      writeFileSync(path, bytes);
      assert.equal((await file.read()).state, "invalid", bytes.slice(0, 60));
      await assert.rejects(file.add(allow("cat")), RulesUnavailable);
      await assert.rejects(file.remove(kept.id), RulesUnavailable);
      assert.equal(readFileSync(path, "utf8"), bytes);
    }
    // The text bound at its edge: a rule of exactly RULE_TEXT_BYTES is kept, one byte more is not.
    const fits = "y".repeat(RULE_TEXT_BYTES - "echo ".length);
    assert.ok(shellRule("exact", [], ["echo", fits]));
    assert.equal(shellRule("exact", [], ["echo", `${fits}y`]), null);
    writeFileSync(
      path,
      JSON.stringify({ ...good, rules: [{ ...good.rules[0], words: ["echo", fits] }] }),
    );
    assert.equal((await file.read()).state, "ok");
  });

  test("another workspace's file under this name applies nothing", async () => {
    const { path, home } = world();
    const other = new WorkspaceRulesFile(home, "/some/other/ws");
    await other.add(allow("ls"));
    const theirs = readFileSync(join(home, "rules", rulesFileName("/some/other/ws")), "utf8");
    writeFileSync(path, theirs);
    const mine = new RuleBook(home, join(root, "ws"), () => {}).file;
    assert.equal((await mine.read()).state, "invalid");
  });
});

/**
 * The options a prefix rule covers (src/agent/rules/option-table.ts) are a table of a hundred-odd
 * specs: built at the first check of a command's options, not when the rules' modules load (an
 * editor's first session checks none: docs/acp.md, "Start-up").
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { OPTION_TABLE } from "../../../src/agent/rules/option-table.js";
import {
  allowCovers,
  ruleMatches,
  shellRule,
  subjectOf,
} from "../../../src/agent/rules/rule-match.js";
import { isBuilt, isLazy } from "../../../src/protocol/lazy.js";
import type { RuleOffer } from "../../../src/protocol/schemas/rules.js";

test("the option table is built at the first check of a command's options", () => {
  assert.ok(isLazy(OPTION_TABLE));
  assert.equal(isBuilt(OPTION_TABLE), false);
  const rule = shellRule("prefix", [], ["npm", "test"]) as RuleOffer;
  const command = (text: string) =>
    subjectOf({ kind: "command", command: text, path: null, diff: null });
  assert.equal(ruleMatches(rule, command("npm test -x")), true);
  assert.equal(isBuilt(OPTION_TABLE), false, "a match reads no option");
  assert.equal(allowCovers(rule, command("npm test --silent")), true);
  assert.equal(allowCovers(rule, command("npm test -x")), false);
  assert.equal(isBuilt(OPTION_TABLE), true);
});

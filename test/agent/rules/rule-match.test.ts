/**
 * Approval rule matching as a table: commands (simple, compound, quoted, with env assignments,
 * with paths) against rules, each with its verdict; and the rule each command would offer.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  allowCovers,
  globMatches,
  offerFor,
  ruleMatches,
  shellRule,
  subjectOf,
} from "../../../src/agent/rules/rule-match.js";
import { simpleCommand } from "../../../src/agent/rules/simple-command.js";
import {
  isPathGlob,
  RULES_PER_WORKSPACE,
  type RuleOffer,
} from "../../../src/protocol/schemas/rules.js";
import { MAX_RULES } from "../../../src/store/rules-file.js";

const cmd = (command: string) => subjectOf({ kind: "command", command, path: null, diff: null });
const prefix = (...words: string[]) => shellRule("prefix", [], words) as RuleOffer;
const exact = (...words: string[]) => shellRule("exact", [], words) as RuleOffer;

const NPM_TEST = prefix("npm", "test");
const GIT_STATUS = prefix("git", "status");
const CI_NPM_TEST = shellRule("prefix", ["CI=1"], ["npm", "test"]) as RuleOffer;
const SCRIPT = prefix("./scripts/check.sh");
const BASH_EXACT = exact("bash", "-c", "echo hi");
const LS = prefix("ls");

/** [command, rule, matches?] */
const TABLE: [string, RuleOffer, boolean][] = [
  // simple commands under a prefix rule
  ["npm test", NPM_TEST, true],
  ["npm test -- --watch=false", NPM_TEST, false],
  ["npm test src/app.test.ts", NPM_TEST, true],
  ["npm  test\t--coverage", NPM_TEST, false],
  ["npm test unit", NPM_TEST, true],
  ["npm tests", NPM_TEST, false],
  ["npm", NPM_TEST, false],
  ["npm run test", NPM_TEST, false],
  ["npx npm test", NPM_TEST, false],
  ["NPM test", NPM_TEST, false],
  // quoting: bash's words, not the bytes
  ["'npm' test", NPM_TEST, true],
  ['"npm" "test" -x', NPM_TEST, false],
  ['"npm" "test" -s', NPM_TEST, true],
  ["np'm' te\"st\"", NPM_TEST, true],
  ["npm 'test --x'", NPM_TEST, false],
  ["npm\\ test", NPM_TEST, false],
  ["npm test 'a; rm -rf ~'", NPM_TEST, true],
  ['npm test "&& curl x | sh"', NPM_TEST, true],
  // compound commands never match
  ["npm test && curl x | sh", NPM_TEST, false],
  ["npm test; rm -rf ~", NPM_TEST, false],
  ["npm test || true", NPM_TEST, false],
  ["npm test | tee log", NPM_TEST, false],
  ["npm test &", NPM_TEST, false],
  ["npm test > out.txt", NPM_TEST, false],
  ["npm test 2>&1", NPM_TEST, false],
  ["npm test < input", NPM_TEST, false],
  ["npm test <<EOF", NPM_TEST, false],
  ["npm test $(curl x)", NPM_TEST, false],
  ["npm test `curl x`", NPM_TEST, false],
  ['npm test "$(curl x)"', NPM_TEST, false],
  ["npm test $HOME", NPM_TEST, false],
  ["(npm test)", NPM_TEST, false],
  ["{ npm test; }", NPM_TEST, false],
  ["npm test\nrm -rf ~", NPM_TEST, false],
  ["npm test \\\n--x", NPM_TEST, false],
  ["npm test 'unterminated", NPM_TEST, false],
  ["npm test # comment", NPM_TEST, false],
  ["npm\u00a0test", NPM_TEST, false],
  ["npm test\u2028rm -rf ~", NPM_TEST, false],
  ["npm test <(ls)", NPM_TEST, false],
  ["! npm test", NPM_TEST, false],
  ["time npm test", NPM_TEST, false],
  // a `$` inside single quotes is literal: still simple
  ["npm test '$HOME'", NPM_TEST, true],
  // env assignments must be the rule's exactly
  ["CI=1 npm test", NPM_TEST, false],
  ["CI=1 npm test", CI_NPM_TEST, true],
  ["CI=1 npm test --ci", CI_NPM_TEST, false],
  ["CI=1 npm test unit", CI_NPM_TEST, true],
  ["CI=2 npm test", CI_NPM_TEST, false],
  ["npm test", CI_NPM_TEST, false],
  ["CI=1 DEBUG=1 npm test", CI_NPM_TEST, false],
  ["LD_PRELOAD=/tmp/x.so npm test", NPM_TEST, false],
  ["npm test CI=1", NPM_TEST, true],
  // paths
  ["./scripts/check.sh", SCRIPT, true],
  ["./scripts/check.sh --fast src/", SCRIPT, false],
  ["./scripts/check.sh src/", SCRIPT, true],
  ["./scripts/check.sh fast", SCRIPT, false],
  ["scripts/check.sh", SCRIPT, false],
  ["./scripts/check.sh; rm x", SCRIPT, false],
  ["ls", LS, true],
  ["ls -la /etc", LS, true],
  ["ls src/*.ts", LS, true],
  ["/bin/ls", LS, false],
  ["git status", GIT_STATUS, true],
  ["git status --short", GIT_STATUS, true],
  ["git push", GIT_STATUS, false],
  ["git -C /tmp status", GIT_STATUS, false],
  // exact rules
  ["bash -c 'echo hi'", BASH_EXACT, true],
  ['bash -c "echo hi"', BASH_EXACT, true],
  ["bash -c 'echo hi' extra", BASH_EXACT, false],
  ["bash -c 'rm -rf ~'", BASH_EXACT, false],
  ["bash", BASH_EXACT, false],
];

const GIT = prefix("git");
const GIT_DIFF = prefix("git", "diff");
const GIT_LOG = prefix("git", "log");
const NPM_RUN = prefix("npm", "run");
const NPM_RUN_BUILD = prefix("npm", "run", "build");
const MAKE_TEST = prefix("make", "test");
const GO_TEST = prefix("go", "test");
const GO_BUILD = prefix("go", "build");
const PYTEST = prefix("pytest");
const CARGO_TEST = prefix("cargo", "test");
const RUN = prefix("./run.sh");

/** Options that execute or write: a prefix rule never covers them (issue 35, item 6). */
const OPTIONS: [string, RuleOffer, boolean][] = [
  ["git diff --stat", GIT_DIFF, true],
  ["git diff HEAD~1 --name-only -U5", GIT_DIFF, true],
  ["git diff -- --output=x", GIT_DIFF, true],
  ["git diff --output=/tmp/any", GIT_DIFF, false],
  ["git diff --output /tmp/any", GIT_DIFF, false],
  ["git diff --out=/tmp/any", GIT_DIFF, false],
  ["git diff --ext-diff", GIT_DIFF, false],
  ["git diff --textconv", GIT_DIFF, false],
  ["git diff -sO/tmp/x", GIT_DIFF, false],
  ["git log -5 --oneline", GIT_LOG, true],
  ["git log -n5 --format=%H", GIT_LOG, true],
  ["git log --output=x", GIT_LOG, false],
  // A rule `git` (kept before, from `git -C . status`) covers no subcommand and no -c/-C.
  ["git", GIT, true],
  ["git --version", GIT, true],
  ["git status", GIT, false],
  ["git -c alias.x='!touch pwned' x", GIT, false],
  ["git -C . status", GIT, false],
  ["git -C /tmp status", GIT_STATUS, false],
  ["git --no-pager status", GIT, false],
  ["git status --porcelain=v2 -uno", GIT_STATUS, true],
  ["npm test --script-shell=./evil.sh", NPM_TEST, false],
  ["npm test --script-shell ./evil.sh", NPM_TEST, false],
  ["npm test -- --script-shell=./evil.sh", NPM_TEST, false],
  ["npm test --silent", NPM_TEST, true],
  ["npm run build --silent", NPM_RUN_BUILD, true],
  ["npm run build --script-shell=x", NPM_RUN_BUILD, false],
  ["npm run build", NPM_RUN, false],
  ["npm run", NPM_RUN, true],
  ["make test -j4 -k", MAKE_TEST, true],
  ["make test -f evil.mk", MAKE_TEST, false],
  ["make test --eval=x", MAKE_TEST, false],
  ["make test SHELL=/tmp/x", MAKE_TEST, false],
  ["make test install", MAKE_TEST, false],
  ["make test -C /elsewhere", MAKE_TEST, false],
  ["go test -run TestX -count=1 ./...", GO_TEST, true],
  ["go test -exec ./evil ./...", GO_TEST, false],
  ["go test -toolexec=./evil ./...", GO_TEST, false],
  ["go test -coverprofile=/etc/x ./...", GO_TEST, false],
  ["go build -o /usr/local/bin/x", GO_BUILD, false],
  ["go build -ldflags=-extld=./evil", GO_BUILD, false],
  ["pytest -k fast -x tests/", PYTEST, true],
  ["pytest -p evil", PYTEST, false],
  ["pytest -o addopts=-pevil", PYTEST, false],
  ["pytest --basetemp=/", PYTEST, false],
  ["pytest -c /tmp/evil.ini", PYTEST, false],
  ["cargo test --release -p core", CARGO_TEST, true],
  ["cargo test --config build.rustc-wrapper=./evil", CARGO_TEST, false],
  ["cargo test -- --nocapture", CARGO_TEST, false],
  ["rg -n pat src", prefix("rg"), true],
  ["rg --pre=./evil pat", prefix("rg"), false],
  ["rg -z pat", prefix("rg"), false],
  ["sort -o /etc/passwd f", prefix("sort"), false],
  ["sort --compress-program=./evil f", prefix("sort"), false],
  ["sort -rn f", prefix("sort"), true],
  ["tree -o out.txt", prefix("tree"), false],
  ["tree -L 2", prefix("tree"), true],
  ["rm -rf build", prefix("rm"), true],
  ["rm --no-preserve-root -rf /", prefix("rm"), false],
  ["cp -t /etc a", prefix("cp"), false],
  ["ls -la --color=always src", LS, true],
  ["ls --colour", LS, false],
  ["./run.sh ./x", RUN, true],
  ["./run.sh fast", RUN, false],
  ["./run.sh --fast", RUN, false],
  ["./run.sh -- x", RUN, false],
];

describe("approval rules: matching", () => {
  test(`a table of ${TABLE.length} commands against rules`, () => {
    assert.ok(TABLE.length >= 40);
    const wrong = TABLE.filter(
      ([command, rule, verdict]) => allowCovers(rule, cmd(command)) !== verdict,
    );
    assert.deepEqual(
      wrong.map(
        ([command, rule, verdict]) => `${JSON.stringify(command)} vs ${rule.text}: want ${verdict}`,
      ),
      [],
    );
  });

  test(`${OPTIONS.length} commands with options a rule must or must not cover`, () => {
    const wrong = OPTIONS.filter(
      ([command, rule, verdict]) => allowCovers(rule, cmd(command)) !== verdict,
    );
    assert.deepEqual(
      wrong.map(
        ([command, rule, verdict]) => `${JSON.stringify(command)} vs ${rule.text}: want ${verdict}`,
      ),
      [],
    );
  });

  test("the rule each command offers: program plus subcommand words, up to an option or a path", () => {
    const offers: [string, string | null, ("prefix" | "exact")?][] = [
      ["npm test", "npm test", "prefix"],
      ["npm test -- --watch=false", "npm test -- --watch=false", "exact"],
      ["npm run build:prod --silent", "npm run build:prod", "prefix"],
      ["npm test src/a.test.ts", "npm test", "prefix"],
      ["cargo test --release", "cargo test", "prefix"],
      ["git commit -m 'fix it'", "git commit", "prefix"],
      ["git -C sub status", "git -C sub status", "exact"],
      ["git -C . status", "git -C . status", "exact"],
      ["git --no-pager log", "git --no-pager log", "exact"],
      ["git diff --output=/tmp/x", "git diff --output=/tmp/x", "exact"],
      ["git diff --stat HEAD", "git diff", "prefix"],
      ["npm test --script-shell=./evil.sh", "npm test --script-shell=./evil.sh", "exact"],
      ["git", "git", "prefix"],
      ["ls -la src", "ls", "prefix"],
      ["rg --pre ./x pat", "rg --pre ./x pat", "exact"],
      ["npm install lodash", "npm install lodash", "prefix"],
      ["pytest tests/unit -k fast", "pytest", "prefix"],
      ["go test ./...", "go test", "prefix"],
      ["make CC=clang all", "make CC=clang all", "exact"],
      ["make test -j4", "make test", "prefix"],
      ["ls ~", "ls", "prefix"],
      ["cat README.md", "cat", "prefix"],
      ["git checkout v1.2", "git checkout", "prefix"],
      ["CI=1 npm test --ci", "CI=1 npm test --ci", "exact"],
      ["CI=1 npm test unit", "CI=1 npm test unit", "prefix"],
      ["./run.sh fast", "./run.sh fast", "prefix"],
      ["echo 'a b'", "echo", "prefix"],
      ["bash -c 'echo hi'", "bash -c 'echo hi'", "exact"],
      ["/usr/bin/sudo apt install x", "/usr/bin/sudo apt install x", "exact"],
      ["python3 -m pytest", "python3 -m pytest", "exact"],
      ["node --test", "node --test", "exact"],
      ["env FOO=1 npm test", "env FOO=1 npm test", "exact"],
      ["xargs rm", "xargs rm", "exact"],
      ["find . -name x -delete", "find . -name x -delete", "exact"],
      ["npm test && curl x | sh", null],
      ["echo $HOME", null],
      ["FOO=1", null],
      ["if true; then ls; fi", null],
      [`echo ${"x".repeat(64)} b`, `echo ${"x".repeat(64)} b`, "prefix"],
      [`echo ${"x".repeat(65)} b`, "echo", "prefix"],
      ["echo 'it''s'", "echo its", "prefix"],
      ['echo "it\'s" x', "echo", "prefix"],
      ["./x.sh it's", null],
      [`bash -c '${"x".repeat(2000)}'`, null],
    ];
    for (const [command, text, match] of offers) {
      const offer = offerFor(cmd(command));
      const label = command.slice(0, 60);
      if (text === null) {
        assert.equal(offer, null, label);
        continue;
      }
      assert.equal(offer?.tool, "shell", label);
      if (offer?.tool !== "shell") continue;
      assert.equal(offer.text, text, label);
      assert.equal(offer.match, match, label);
      // The rule a command offers always covers that command.
      assert.ok(allowCovers(offer, cmd(command)), label);
    }
  });

  test("the simple-command reader: words with quotes removed, env assignments apart", () => {
    assert.deepEqual(simpleCommand(`A=1 B="x y" npm 'te st' "q" --z=1`), {
      env: ["A=1", "B=x y"],
      words: ["npm", "te st", "q", "--z=1"],
    });
    assert.deepEqual(simpleCommand("ls *.ts"), { env: [], words: ["ls", "*.ts"] });
    assert.equal(simpleCommand("*.sh"), null, "a glob as the program");
    assert.equal(simpleCommand("   "), null);
    assert.equal(simpleCommand(`echo ${"x".repeat(9000)}`), null, "over SIMPLE_COMMAND_CHARS");
  });

  test("the store's rule bound is the protocol's (the store restates it)", () => {
    assert.equal(MAX_RULES, RULES_PER_WORKSPACE);
  });

  test("edit rules: the whole workspace, or a path glob", () => {
    const edit = (path: string) => subjectOf({ kind: "edit", command: null, path, diff: "d" });
    const whole = offerFor(edit("a.ts")) as RuleOffer;
    assert.deepEqual(whole, { tool: "edit", path_glob: null, text: "every edit in the workspace" });
    assert.ok(ruleMatches(whole, edit("deep/b.ts")));
    assert.equal(ruleMatches(whole, cmd("npm test")), false, "an edit rule allows no command");
    assert.equal(ruleMatches(NPM_TEST, edit("npm")), false, "a command rule allows no edit");
    const globs: [string, string, boolean][] = [
      ["src/**", "src/a.ts", true],
      ["src/**", "src/deep/er/a.ts", true],
      ["src/**", "srcx/a.ts", false],
      ["src/*.ts", "src/a.ts", true],
      ["src/*.ts", "src/deep/a.ts", false],
      ["**/*.md", "README.md", true],
      ["**/*.md", "docs/x/y.md", true],
      ["**/*.md", "docs/y.mdx", false],
      ["docs/?.md", "docs/a.md", true],
      ["docs/?.md", "docs/ab.md", false],
      ["a.ts", "a.ts", true],
      ["a.ts", "b/a.ts", false],
      ["src/(x)+.ts", "src/(x)+.ts", true],
      ["src/(x)+.ts", "src/xx.ts", false],
    ];
    for (const [glob, path, verdict] of globs)
      assert.equal(globMatches(glob, path), verdict, `${glob} vs ${path}`);
    for (const bad of ["/etc/*", "../x", "a//b", "a/./b", "a\\b", "a**b/c", "x\ny", ""])
      assert.equal(isPathGlob(bad), false, JSON.stringify(bad));
  });
});

/**
 * Deny rules read through respellings (issue 35, item 7): paths, redirections, every part of a
 * compound command, substitutions, env assignments, wrappers and `bash -c`; where the program
 * cannot be told, `unsure` (the call asks). A table of commands against a deny rule on `rm`
 * (and a few others), each with its verdict.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { scanCommands } from "../../../src/agent/rules/command-scan.js";
import { denyVerdict } from "../../../src/agent/rules/deny-match.js";
import { shellRule, subjectOf } from "../../../src/agent/rules/rule-match.js";
import type { KeptRule } from "../../../src/protocol/schemas/rules.js";

const deny = (match: "prefix" | "exact", words: string[], env: string[] = []): KeptRule =>
  ({
    ...shellRule(match, env, words),
    id: "w-0000000000000000",
    effect: "deny",
    scope: "workspace",
    created_at: "2026-01-01T00:00:00.000Z",
  }) as KeptRule;
const RM = deny("prefix", ["rm"]);
const GIT_PUSH = deny("prefix", ["git", "push"]);
const CI_DEPLOY = deny("prefix", ["./deploy.sh"], ["CI=1"]);

type Verdict = "deny" | "unsure" | "none";
const verdict = (rule: KeptRule, command: string): Verdict => {
  const found = denyVerdict(
    [rule],
    subjectOf({ kind: "command", command, path: null, diff: null }),
  );
  return found === null ? "none" : found === "unsure" ? "unsure" : "deny";
};

const RM_TABLE: [string, Verdict][] = [
  // the respellings
  ["rm -rf x", "deny"],
  ["/bin/rm -rf x", "deny"],
  ["/usr/bin/rm -rf x", "deny"],
  ["./rm x", "deny"],
  ["rm -rf x 2>/dev/null", "deny"],
  ["2>/dev/null rm -rf x", "deny"],
  [">/dev/null rm x", "deny"],
  ["rm x &>/dev/null", "deny"],
  ["true; rm -rf x", "deny"],
  ["true && rm -rf x", "deny"],
  ["false || rm -rf x", "deny"],
  ["ls | rm x", "deny"],
  ["ls |& rm x", "deny"],
  ["sleep 1 & rm x", "deny"],
  ["(rm x)", "deny"],
  ["{ rm x; }", "deny"],
  ["echo $(rm -rf x)", "deny"],
  ['echo "$(rm -rf x)"', "deny"],
  ["echo `rm -rf x`", "deny"],
  ['echo "`rm x`"', "deny"],
  ["echo $(echo $(rm x))", "deny"],
  ["cat <(rm x)", "deny"],
  ["FOO=1 rm -rf x", "deny"],
  ["A=1 B=2 /bin/rm x", "deny"],
  ["command rm -rf x", "deny"],
  ["command -p rm x", "deny"],
  ["builtin rm x", "deny"],
  ["env rm x", "deny"],
  ["env -i FOO=1 rm x", "deny"],
  ["env -u HOME rm x", "deny"],
  ["env -S 'rm -rf x'", "deny"],
  ["exec rm x", "deny"],
  ["exec -a name rm x", "deny"],
  ["nice rm x", "deny"],
  ["nice -n 10 rm x", "deny"],
  ["nice -5 rm x", "deny"],
  ["nohup rm x", "deny"],
  ["time rm x", "deny"],
  ["time -p rm x", "deny"],
  ["timeout 5 rm x", "deny"],
  ["timeout -s KILL 5s rm x", "deny"],
  ["stdbuf -oL rm x", "deny"],
  ["setsid rm x", "deny"],
  ["sudo rm x", "deny"],
  ["sudo -u root -E rm x", "deny"],
  ["sudo FOO=1 rm x", "deny"],
  ["sudo -- rm x", "deny"],
  ["xargs rm < list", "deny"],
  ["ls | xargs -0 -n 1 rm -f", "deny"],
  ["ls | xargs -I{} rm {}", "deny"],
  ["find . -name x -exec rm {} \\;", "deny"],
  ["find . -execdir rm -f {} +", "deny"],
  ["bash -c 'rm -rf x'", "deny"],
  ["sh -c 'true; rm x'", "deny"],
  ["bash -lc 'rm x'", "deny"],
  ["bash -o pipefail -c 'rm x'", "deny"],
  ["bash -c \"bash -c 'rm x'\"", "deny"],
  ["eval rm x", "deny"],
  ["eval 'rm x'", "deny"],
  ["watch -n 1 rm x", "deny"],
  ["su -c 'rm x'", "deny"],
  ["flock /tmp/l rm x", "deny"],
  ["flock /tmp/l -c 'rm x'", "deny"],
  ["busybox rm x", "deny"],
  ["r\\m x", "deny"],
  ["'rm' x", "deny"],
  ['"r"m x', "deny"],
  ["r\\\nm x", "deny"],
  ["true\nrm x", "deny"],
  ["if true; then rm x; fi", "deny"],
  ["while false; do rm x; done", "deny"],
  ["! rm x", "deny"],
  ["f() { rm x; }; f", "deny"],
  ["case a in a) rm x;; esac", "deny"],
  ["ls # rm x\nrm y", "deny"],
  ["cat <<EOF\n$(rm x)\nEOF", "deny"],
  // what does not run rm
  ["ls -la", "none"],
  ["echo rm -rf x", "none"],
  ["echo 'rm -rf x'", "none"],
  ["git rm x", "none"],
  ["rmdir x", "none"],
  ["ls # ; rm x", "none"],
  ["echo '$(rm x)'", "none"],
  ["command -v ls", "none"],
  ["bash script.sh", "none"],
  ["echo $HOME", "none"],
  ['echo "$' + '{HOME}"', "none"],
  ["ls $(pwd)", "none"],
  ["[ -f x ]", "none"],
  ["[ -f x ] && rm x", "deny"],
  // where the program cannot be told: asked
  ["$X -rf x", "unsure"],
  ["r$X x", "unsure"],
  ['"$CMD" x', "unsure"],
  ["$(echo rm) x", "unsure"],
  ["`echo rm` x", "unsure"],
  ["/bin/r? x", "unsure"],
  ["/bin/r* x", "unsure"],
  ["{rm,-rf,x}", "unsure"],
  ["$'\\x72m' x", "unsure"],
  ["echo rm x | bash", "unsure"],
  ["bash < script", "unsure"],
  ["bash -s", "unsure"],
  ["env $CMD", "unsure"],
  ["xargs $X", "unsure"],
  ["sudo -Q rm x", "unsure"],
  ["env --weird rm x", "unsure"],
  ["strace rm x", "unsure"],
  ['bash -c "$X"', "unsure"],
  ["eval $X", "unsure"],
  ["echo 'open", "unsure"],
  ["echo $(rm x", "unsure"],
  ['echo "$' + '{x:-$(rm x)}"', "unsure"],
  [`${"bash -c '".repeat(12)}rm x${"'".repeat(12)}`, "unsure"],
];

describe("deny rules read through respellings", () => {
  test(`a deny rule on rm against ${RM_TABLE.length} commands`, () => {
    const wrong = RM_TABLE.filter(([command, want]) => verdict(RM, command) !== want).map(
      ([command, want]) => `${JSON.stringify(command)}: want ${want}, got ${verdict(RM, command)}`,
    );
    assert.deepEqual(wrong, []);
  });

  test("a prefix rule's further words are found past options and their values", () => {
    const table: [KeptRule, string, Verdict][] = [
      [GIT_PUSH, "git push", "deny"],
      [GIT_PUSH, "git push --force origin main", "deny"],
      [GIT_PUSH, "git -C . push", "deny"],
      [GIT_PUSH, "git -c x=y push", "deny"],
      [GIT_PUSH, "/usr/bin/git --no-pager push", "deny"],
      [GIT_PUSH, "cd sub && git push", "deny"],
      [GIT_PUSH, "git log push", "none"],
      [GIT_PUSH, "git commit -m push", "none"],
      [GIT_PUSH, "git pull", "none"],
      [CI_DEPLOY, "CI=1 ./deploy.sh", "deny"],
      [CI_DEPLOY, "CI=1 DEBUG=1 /w/deploy.sh prod", "deny"],
      [CI_DEPLOY, "env CI=1 ./deploy.sh", "deny"],
      [CI_DEPLOY, "./deploy.sh", "none"],
      [deny("exact", ["rm", "-rf", "build"]), "/bin/rm -rf build 2>/dev/null", "deny"],
      [deny("exact", ["rm", "-rf", "build"]), "rm -rf build dist", "none"],
    ];
    for (const [rule, command, want] of table)
      assert.equal(verdict(rule, command), want, `${rule.text} vs ${command}`);
  });

  test("no shell deny rule: nothing to be unsure about; the scan is bounded", () => {
    const allowOnly = { ...RM, effect: "allow" } as KeptRule;
    const subject = subjectOf({ kind: "command", command: "$X x", path: null, diff: null });
    assert.equal(denyVerdict([allowOnly], subject), null);
    assert.equal(scanCommands("x".repeat(70_000)).unsure, true);
    assert.deepEqual(
      scanCommands("a; b | c").commands.map((c) => c.words[0]),
      ["a", "b", "c"],
    );
  });
});

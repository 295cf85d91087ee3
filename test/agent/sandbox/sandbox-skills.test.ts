/**
 * The user's skills inside the sandbox (docs/skills.md, "In a turn"): MC_HOME is hidden, but its
 * `skills` folder (and the Claude and Codex ones) stays readable and is never writable; a skills
 * folder that is a symlink is not kept (its target could be anything).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { bwrapArgs } from "../../../src/agent/sandbox/bwrap.js";
import { sandboxPolicy } from "../../../src/agent/sandbox/policy.js";
import { seatbeltProfile } from "../../../src/agent/sandbox/seatbelt.js";
import { findOnPath } from "../../../src/agent/tools/find-on-path.js";
import { cleanTrees, tree } from "./sandbox-tree.js";

afterEach(cleanTrees);

const BWRAP = process.platform === "linux" ? findOnPath("bwrap", process.env) : null;

function withSkill(t: ReturnType<typeof tree>) {
  const skill = join(t.home, "skills", "mine");
  mkdirSync(skill, { recursive: true });
  writeFileSync(join(skill, "SKILL.md"), "the skill\n");
  writeFileSync(join(t.home, "secret"), "s");
  mkdirSync(join(t.user, ".codex", "skills"));
  return sandboxPolicy({
    workspace: t.workspace,
    home: t.home,
    env: { HOME: t.user },
    network: false,
  });
}

describe("user skills in the sandbox", () => {
  test("the policy keeps MC_HOME/skills and ~/.codex/skills, not a symlinked skills folder", () => {
    const t = tree();
    const policy = withSkill(t);
    assert.deepEqual(policy.keptUnderHidden, [
      join(t.home, "skills"),
      join(t.user, ".codex", "skills"),
    ]);
    const args = bwrapArgs(policy, ["/bin/sh"]);
    const hide = args.indexOf(t.home);
    const keep = args.lastIndexOf(join(t.home, "skills"));
    assert.ok(hide > 0 && keep > hide, "bound read-only after MC_HOME is hidden");
    assert.deepEqual(args.slice(keep - 2, keep + 1), [
      "--ro-bind",
      join(t.home, "skills"),
      join(t.home, "skills"),
    ]);
    assert.match(
      seatbeltProfile(policy, "/tmp/x"),
      /\(allow file-read\* \(subpath "[^"]+\/mc-home\/skills"\)\)\n/,
    );
    const linked = tree();
    mkdirSync(join(linked.root, "elsewhere"));
    symlinkSync(join(linked.root, "elsewhere"), join(linked.home, "skills"));
    const policy2 = sandboxPolicy({
      workspace: linked.workspace,
      home: linked.home,
      env: { HOME: linked.user },
      network: false,
    });
    assert.deepEqual(policy2.keptUnderHidden, []);
  });

  test("run for real: a skill's file reads, MC_HOME's other files stay hidden, nothing is written", {
    skip: BWRAP ? false : "no bwrap on PATH here",
  }, () => {
    const t = tree();
    const policy = withSkill(t);
    const script =
      "cat ../mc-home/skills/mine/SKILL.md; " +
      "cat ../mc-home/secret 2>/dev/null || echo home-hidden; " +
      "echo x > ../mc-home/skills/mine/SKILL.md 2>/dev/null || echo skill-read-only";
    const run = spawnSync(BWRAP as string, bwrapArgs(policy, ["/bin/sh", "-c", script]), {
      encoding: "utf8",
      cwd: policy.workspace,
    });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, "the skill\nhome-hidden\nskill-read-only\n");
    assert.equal(readFileSync(join(t.home, "skills", "mine", "SKILL.md"), "utf8"), "the skill\n");
  });
});

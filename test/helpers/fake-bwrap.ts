import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { probeMemoPath } from "../../src/agent/sandbox/probe-memo.js";
import { type Sandbox, sandbox } from "../../src/conformance/harness.js";

/**
 * A world whose `bwrap` on PATH is a fake that starts or fails as a file says, without itself
 * changing (its identity is part of the probe memo's key), and counts its runs; with a TMPDIR of
 * its own, under which the probe memo lives (the private cache folder). For the probe memo's
 * tests, stdio's and ACP's.
 */
export interface FakeBwrapWorld {
  box: Sandbox;
  /** PATH with the fake first, and the world's TMPDIR. */
  env: Record<string, string>;
  /** Whether the fake bwrap starts (it fails as bwrap does without user namespaces otherwise). */
  starts(ok: boolean): void;
  /** How long the fake bwrap takes before it starts or fails, in seconds. */
  takes(seconds: number): void;
  /** How many times the fake bwrap has run (a counted world's; else 0). */
  runs(): number;
  bwrap: string;
  /** The memo's file. */
  memo: string;
}

/** `counted`: each run leaves a line in a file of the world's root (which then changes). */
export function fakeBwrapWorld(prefix: string, boxes: Sandbox[], counted = false): FakeBwrapWorld {
  const box = sandbox(prefix);
  boxes.push(box);
  const dir = join(box.root, "fake-bin");
  mkdirSync(dir);
  const outcome = join(box.root, "bwrap-outcome");
  const delay = join(box.root, "bwrap-delay");
  const count = join(box.root, "bwrap-runs");
  const bwrap = join(dir, "bwrap");
  writeFileSync(
    bwrap,
    `#!/bin/sh\n${counted ? `echo run >> "${count}"\n` : ""}[ -f "${delay}" ] && sleep "$(cat "${delay}")"\n[ "$(cat "${outcome}")" = ok ] && exit 0\necho "bwrap: No permissions to creating new namespace" >&2\nexit 1\n`,
  );
  chmodSync(bwrap, 0o755);
  const starts = (ok: boolean) => writeFileSync(outcome, ok ? "ok" : "no");
  starts(true);
  const tmp = join(box.root, "tmp");
  mkdirSync(tmp);
  return {
    box,
    env: { PATH: `${dir}:${process.env.PATH ?? ""}`, TMPDIR: tmp },
    starts,
    takes: (seconds) => writeFileSync(delay, String(seconds)),
    runs: () => {
      try {
        return readFileSync(count, "utf8").split("\n").filter(Boolean).length;
      } catch {
        return 0;
      }
    },
    bwrap,
    memo: probeMemoPath(join(tmp, `mc-agent-${process.getuid?.()}`)),
  };
}

import { SEED_CAPABILITIES } from "../protocol/capabilities.js";
import { tailChars } from "../protocol/text-cut.js";
import { type ChildOptions, type Sandbox, sandbox, TestChild } from "./harness.js";

/**
 * A conformance case: one requirement of the contract, checked black-box against a child
 * command. The project's own tests register these same cases with node:test, and
 * `mc-agent conformance` runs them against any command: one source for both.
 */
export type Tier = "MUST" | "SHOULD" | "INFO";

export interface ConformanceCase {
  /** Stable ID, e.g. "base.frames.oversized". */
  id: string;
  tier: Tier;
  /** Where in the contract, and the sentence it checks. */
  clause: string;
  title: string;
  /** Needs the test-only methods (skipped against foreign children that lack them). */
  needsTestMethods?: boolean;
  run(ctx: CaseContext): Promise<void>;
}

export interface CaseContext {
  /** A fresh temp root with `home` (MC_HOME) and `workspace` (the child's cwd). */
  box: Sandbox;
  /** Spawns a child of the command under test in the box. */
  spawn(options?: Partial<ChildOptions>): TestChild;
  /** Spawns and initializes with the given capabilities (default: all ten). */
  ready(capabilities?: string[], options?: Partial<ChildOptions>): Promise<TestChild>;
}

export interface CaseOutcome {
  id: string;
  tier: Tier;
  title: string;
  clause: string;
  ok: boolean;
  skipped?: boolean;
  error?: string;
  /** The wire transcript of every child the case spawned (frames in and out), on failure. */
  transcript?: string[];
  stderrTail?: string;
  ms: number;
}

export interface RunOptions {
  /** The child command; default this package's own `mc-agent stdio`. */
  command?: string[];
  /** Whether the command under test offers the test-only methods. */
  testMethods?: boolean;
  /** Extra environment for every child the case spawns (a case's own `env` wins). */
  env?: Record<string, string>;
}

/** Runs one case in a fresh sandbox; never throws (failures come back in the outcome). */
export async function runCase(c: ConformanceCase, options: RunOptions = {}): Promise<CaseOutcome> {
  const started = Date.now();
  const base = { id: c.id, tier: c.tier, title: c.title, clause: c.clause };
  if (c.needsTestMethods && options.testMethods === false) {
    return { ...base, ok: true, skipped: true, ms: 0 };
  }
  const box = sandbox("mc-conf-");
  const children: TestChild[] = [];
  const spawnChild = (extra: Partial<ChildOptions> = {}) => {
    const child = new TestChild({
      cwd: box.workspace,
      home: box.home,
      testMethods: options.testMethods ?? true,
      ...(options.command ? { command: options.command } : {}),
      ...extra,
      ...(options.env ? { env: { ...options.env, ...extra.env } } : {}),
    });
    children.push(child);
    return child;
  };
  const ctx: CaseContext = {
    box,
    spawn: spawnChild,
    async ready(capabilities = [...SEED_CAPABILITIES], extra = {}) {
      const child = spawnChild(extra);
      const init = await child.initialize(capabilities);
      if (!init.result) throw new Error(`initialize failed: ${JSON.stringify(init.error)}`);
      return child;
    },
  };
  try {
    await c.run(ctx);
    for (const child of children) await child.close();
    return { ...base, ok: true, ms: Date.now() - started };
  } catch (error) {
    for (const child of children) child.kill();
    return {
      ...base,
      ok: false,
      error: error instanceof Error ? error.message : String(error),
      transcript: children.flatMap((child) => child.transcript),
      stderrTail: children.map((child) => tailChars(child.stderr, 2000)).join("\n"),
      ms: Date.now() - started,
    };
  } finally {
    box.cleanup();
  }
}

import {
  type CaseContext,
  type CaseOutcome,
  type ConformanceCase,
  type RunOptions,
  runCase,
  type Tier,
} from "./case.js";
import type { TestChild } from "./harness.js";
import { allCases } from "./registry.js";
import { settleSkip } from "./skip.js";
import { auditWire } from "./wire-audit.js";

/**
 * Runs the registered conformance cases against one child command, one case at a time (each in
 * a fresh child and a fresh temp MC_HOME), and audits every exchange of every case on top of
 * what the case itself asserts.
 */
interface SuiteOptions extends RunOptions {
  /** Only cases of these tiers (default all). */
  tiers?: Tier[];
  /** Only cases whose ID or title contains this substring. */
  filter?: string;
  /** Called after each case, for streaming reports. */
  onOutcome?: (outcome: CaseOutcome) => void;
  /** The cases to run (default: the registry). */
  cases?: ConformanceCase[];
}

export interface SuiteSummary {
  total: number;
  passed: number;
  failed: number;
  skipped: number;
  /** MUST cases that failed: any makes the run fail. */
  mustFailed: number;
  ok: boolean;
  ms: number;
}

export interface SuiteReport {
  command: string[] | null;
  testMethods: boolean;
  summary: SuiteSummary;
  cases: CaseOutcome[];
}

export function selectCases(
  cases: ConformanceCase[],
  options: Pick<SuiteOptions, "tiers" | "filter">,
): ConformanceCase[] {
  const needle = options.filter?.toLowerCase();
  return cases.filter(
    (c) =>
      (!options.tiers || options.tiers.length === 0 || options.tiers.includes(c.tier)) &&
      (!needle || c.id.toLowerCase().includes(needle) || c.title.toLowerCase().includes(needle)),
  );
}

export async function runSuite(options: SuiteOptions = {}): Promise<SuiteReport> {
  const started = Date.now();
  const testMethods = options.testMethods ?? options.command === undefined;
  const run: RunOptions = { testMethods, ...(options.command ? { command: options.command } : {}) };
  const outcomes: CaseOutcome[] = [];
  for (const c of selectCases(options.cases ?? allCases(), options)) {
    const outcome = settleSkip(await runCase(audited(c), run));
    outcomes.push(outcome);
    options.onOutcome?.(outcome);
  }
  return {
    command: options.command ?? null,
    testMethods,
    summary: summarize(outcomes, Date.now() - started),
    cases: outcomes,
  };
}

export function summarize(outcomes: CaseOutcome[], ms: number): SuiteSummary {
  const failed = outcomes.filter((o) => !o.ok);
  const mustFailed = failed.filter((o) => o.tier === "MUST").length;
  return {
    total: outcomes.length,
    passed: outcomes.filter((o) => o.ok && !o.skipped).length,
    failed: failed.length,
    skipped: outcomes.filter((o) => o.skipped).length,
    mustFailed,
    ok: mustFailed === 0,
    ms,
  };
}

/** Late duplicates are caught only if they arrive; give a misbehaving child a moment. */
const SETTLE_MS = 30;

/** The case, plus the wire audit over every child it spawned once it has passed its own checks. */
export function audited(c: ConformanceCase): ConformanceCase {
  return {
    ...c,
    async run(ctx) {
      const children: TestChild[] = [];
      const watched: CaseContext = {
        box: ctx.box,
        spawn(options) {
          const child = ctx.spawn(options);
          children.push(child);
          return child;
        },
        async ready(capabilities, options) {
          const child = await ctx.ready(capabilities, options);
          children.push(child);
          return child;
        },
      };
      await c.run(watched);
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      const forbidden = [ctx.box.root, ctx.box.home, ctx.box.workspace];
      const problems = children.flatMap((child) =>
        auditWire({ sent: child.sent, received: child.frames, forbidden }),
      );
      if (problems.length > 0) throw new Error(`wire audit: ${problems.slice(0, 5).join("\n")}`);
    },
  };
}

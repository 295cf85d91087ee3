import type { ConformanceCase } from "../case.js";
import { TURN_ADMISSION_CASES } from "./turns-admission.js";
import { TURN_AUDIT_FRAMES_CASES } from "./turns-audit-frames.js";
import { TURN_AUDIT_KILL_CASES } from "./turns-audit-kill.js";
import { TURN_AUDIT_LIFECYCLE_CASES } from "./turns-audit-lifecycle.js";
import { TURN_AUDIT_PATH_CASES } from "./turns-audit-paths.js";
import { TURN_AUDIT_PROCESS_CASES } from "./turns-audit-process.js";
import { TURN_AUDIT_RESULT_CASES } from "./turns-audit-results.js";
import { TURN_COMPACTION_CASES } from "./turns-compaction.js";
import { TURN_FLOW_CASES } from "./turns-flow.js";
import { TURN_PERSISTENCE_CASES } from "./turns-persistence.js";
import { TURN_RULES_CASES } from "./turns-rules.js";
import { TURN_RULES_AUDIT_CASES } from "./turns-rules-audit.js";
import { TURN_RUNNING_CASES } from "./turns-running.js";
import { TURN_SANDBOXED_CASES } from "./turns-sandboxed.js";
import { TURN_STEERING_CASES } from "./turns-steering.js";
import { TURN_WIRE_CASES } from "./turns-wire.js";

/** The `turn` extension's cases (shared/design/turns.md, docs/turns.md), by area. */
export const TURN_CASES: ConformanceCase[] = [
  ...TURN_ADMISSION_CASES,
  ...TURN_FLOW_CASES,
  ...TURN_RUNNING_CASES,
  ...TURN_STEERING_CASES,
  ...TURN_PERSISTENCE_CASES,
  ...TURN_COMPACTION_CASES,
  ...TURN_WIRE_CASES,
  ...TURN_AUDIT_PATH_CASES,
  ...TURN_AUDIT_RESULT_CASES,
  ...TURN_AUDIT_LIFECYCLE_CASES,
  ...TURN_AUDIT_FRAMES_CASES,
  ...TURN_AUDIT_KILL_CASES,
  ...TURN_AUDIT_PROCESS_CASES,
  ...TURN_SANDBOXED_CASES,
  ...TURN_RULES_CASES,
  ...TURN_RULES_AUDIT_CASES,
];

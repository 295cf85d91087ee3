import type { ConformanceCase } from "../case.js";
import { ADMISSION_CASES } from "./base-admission.js";
import { FRAME_CASES } from "./base-frames.js";
import { LIFECYCLE_CASES } from "./base-lifecycle.js";

/** The base protocol's cases: frames, request IDs, admission, initialize, status, shutdown, cancel. */
export const BASE_CASES: ConformanceCase[] = [
  ...FRAME_CASES,
  ...ADMISSION_CASES,
  ...LIFECYCLE_CASES,
];

/**
 * A fast, exact check of an `initialize` result, as status-check.ts is of a `status` one. The
 * `InitializeResult` schema is built on its first use (lazy.ts) with every extension's
 * parameter schema in it, about 2.5 ms of CPU for the one result a child checks; the in-process
 * engine of each ACP session checks it on the path to `session/new`'s answer (docs/acp.md,
 * "Start-up"). This checks what that schema checks (strict keys, the literals, safe integers,
 * the enums) and returns the result rebuilt in the schema's key order, as the parse would;
 * anything it does not accept returns null and goes to the schema itself, which decides.
 * test/protocol/initialize-result-check.test.ts holds it to the schema's verdicts and output.
 */
import { CHECKPOINT_UNAVAILABLE_REASONS } from "./checkpoints.js";
import type { InitializeResult } from "./lifecycle.js";
import { DECISIONS, PERMISSIONS, SANDBOX_KINDS, TOOL_NAMES } from "./turns.js";

type Checked = Record<string, unknown>;

/** A plain object (what the engine builds); anything else is left to the schema. */
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;

/**
 * `value`'s members in `keys`' order when it has own keys among `keys` only, each `required`
 * one among them, and `check` accepts every value (an own key holding `undefined` is left to
 * the schema); else undefined.
 */
function strict(
  value: unknown,
  keys: readonly string[],
  required: readonly string[],
  check: (key: string, member: unknown) => unknown,
): Checked | undefined {
  if (!isRecord(value)) return undefined;
  const own = Object.keys(value);
  if (own.some((key) => !keys.includes(key))) return undefined;
  if (required.some((key) => !Object.hasOwn(value, key))) return undefined;
  const out: Checked = {};
  for (const key of keys) {
    if (!Object.hasOwn(value, key)) continue;
    const member = check(key, value[key]);
    if (member === undefined) return undefined;
    out[key] = member;
  }
  return out;
}

/** z.number().int(): a safe integer. */
const int = (value: unknown) =>
  typeof value === "number" && Number.isSafeInteger(value) ? value : undefined;

/** An array whose every item `item` accepts, as a new array. */
function every(value: unknown, item: (member: unknown) => boolean): unknown[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: unknown[] = [];
  for (let i = 0; i < value.length; i += 1) {
    if (!Object.hasOwn(value, i) || !item(value[i])) return undefined;
    out.push(value[i]);
  }
  return out;
}

const oneOf = (list: readonly string[]) => (value: unknown) =>
  typeof value === "string" && list.includes(value);

/** An object of safe integers under exactly `keys`. */
const ints = (keys: readonly string[]) => (value: unknown) =>
  strict(value, keys, keys, (_key, member) => int(member));

const LIMITS = ints([
  "frame_bytes",
  "child_requests",
  "active_requests",
  "discovery_sessions",
  "history_bytes",
  "page_entries",
  "page_bytes",
  "cleanup_ms",
]);

const DISCOVER_INTS = [
  "step_directory_entries",
  "step_lines",
  "step_bytes",
  "record_bytes",
  "step_ms",
  "page_entries",
  "page_bytes",
];
const DISCOVER_KEYS = ["consistency", "ordering", ...DISCOVER_INTS];
const discover = (value: unknown) =>
  strict(value, DISCOVER_KEYS, DISCOVER_KEYS, (key, member) => {
    if (key === "consistency") return member === "provisional_until_complete" ? member : undefined;
    if (key === "ordering") return member === "directory" ? member : undefined;
    return int(member);
  });

const REFRESH_KEYS = ["providers_per_request", "cache_bytes", "models", "preferences"];
const refresh = (value: unknown) =>
  strict(value, REFRESH_KEYS, REFRESH_KEYS, (key, member) =>
    key === "preferences" ? (member === "unchanged" ? member : undefined) : int(member),
  );

const RULES = ints(["rule_text_bytes", "rules_per_workspace", "path_glob_bytes"]);
const CHECKPOINT_KEYS = ["available", "reason"];
const checkpoints = (value: unknown) =>
  strict(value, CHECKPOINT_KEYS, CHECKPOINT_KEYS, (key, member) => {
    if (key === "available") return typeof member === "boolean" ? member : undefined;
    return member === null || oneOf(CHECKPOINT_UNAVAILABLE_REASONS)(member) ? member : undefined;
  });

const TURN_INTS = [
  "input_bytes",
  "max_steps",
  "event_bytes",
  "tool_output_bytes",
  "tool_stream_bytes",
  "shell_timeout_ms",
];
const TURN_REQUIRED = [...TURN_INTS, "permissions", "tools", "sandbox"];
const TURN_KEYS = [...TURN_REQUIRED, "decisions", "rules", "checkpoints"];
/** `undefined` for "not accepted"; a member's own value `null` is kept as it is. */
const turn = (value: unknown) =>
  strict(value, TURN_KEYS, TURN_REQUIRED, (key, member) => {
    switch (key) {
      case "permissions":
        return every(member, oneOf(PERMISSIONS));
      case "tools":
        return every(member, oneOf(TOOL_NAMES));
      case "sandbox":
        return member === null || oneOf(SANDBOX_KINDS)(member) ? member : undefined;
      case "decisions":
        return every(member, oneOf(DECISIONS));
      case "rules":
        return RULES(member);
      case "checkpoints":
        return checkpoints(member);
      default:
        return int(member);
    }
  });

/** The extensions in the schema's order (extensions.ts EXTENSION_NAMES), each optional. */
const EXTENSION_KEYS = ["session.discover", "model.refresh", "turn"];
const extensions = (value: unknown) =>
  strict(value, EXTENSION_KEYS, [], (key, member) =>
    key === "session.discover"
      ? discover(member)
      : key === "model.refresh"
        ? refresh(member)
        : turn(member),
  );

const SERVER_KEYS = ["name", "version"];
const RESULT_KEYS = ["protocol_version", "server", "capabilities", "limits", "extensions"];

/** The result as `InitializeResult` parses it when it is a valid one, else null. */
export function checkInitializeResult(value: unknown): InitializeResult | null {
  const checked = strict(value, RESULT_KEYS, RESULT_KEYS, (key, member) => {
    switch (key) {
      case "protocol_version":
        return member === 1 ? member : undefined;
      case "server":
        return strict(member, SERVER_KEYS, SERVER_KEYS, (_key, text) =>
          typeof text === "string" ? text : undefined,
        );
      case "capabilities":
        return every(member, (item) => typeof item === "string");
      case "limits":
        return LIMITS(member);
      default:
        return extensions(member);
    }
  });
  return checked === undefined ? null : (checked as InitializeResult);
}

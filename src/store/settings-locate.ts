import {
  findNodeAtLocation,
  type Node,
  type ParseError,
  parse,
  parseTree,
  printParseErrorCode,
} from "jsonc-parser";
import type { LocatedFault, SettingsFault } from "./settings-fault.js";

/**
 * Turns a fault into a rule and a 1-based line and column (columns count UTF-16 code units, as
 * editors do). jsonc-parser is loaded only here: a child with valid settings never needs it.
 * Validity itself was decided by JSON.parse and the schema; this only says where.
 */
export function locateFault(fault: SettingsFault): LocatedFault {
  const none = { reason: fault.reason, rule: null, line: null, column: null };
  if (fault.text === null) return none;
  const at = fault.reason === "syntax" ? syntaxError(fault.text) : schemaError(fault);
  if (!at) return none;
  return { reason: fault.reason, rule: at.rule, ...position(fault.text, at.offset) };
}

function syntaxError(text: string): { rule: string; offset: number } | null {
  if (text.trim() === "") return { rule: "empty_file", offset: 0 };
  const errors: ParseError[] = [];
  parse(text, errors, { allowTrailingComma: false, disallowComments: true });
  const first = errors[0];
  if (!first) return null;
  // Pointed at the comma itself, not at the bracket after it where the parser noticed.
  if (trailingComma(text, first.offset))
    return { rule: "trailing_comma", offset: text.slice(0, first.offset).lastIndexOf(",") };
  return { rule: snakeCase(printParseErrorCode(first.error)), offset: first.offset };
}

/** A value or name expected right after a comma, at a closing bracket: a trailing comma. */
function trailingComma(text: string, offset: number): boolean {
  const closer = text[offset];
  if (closer !== "}" && closer !== "]") return false;
  const before = text.slice(0, offset).trimEnd();
  return before.endsWith(",");
}

const SCHEMA_RULES: Record<string, string> = {
  unrecognized_keys: "unknown_key",
  invalid_type: "wrong_type",
  invalid_format: "invalid_value",
  invalid_value: "invalid_value",
  too_small: "invalid_value",
  invalid_key: "invalid_name",
};

function schemaError(fault: SettingsFault): { rule: string; offset: number } | null {
  const issue = fault.issue;
  const root = fault.text === null ? undefined : parseTree(fault.text);
  if (!issue || !root) return null;
  const rule =
    issue.rule ??
    (issue.code === "too_big"
      ? nodeAt(root, issue.path)?.type === "array"
        ? "too_many"
        : "invalid_value"
      : (SCHEMA_RULES[issue.code] ?? "invalid_value"));
  const key = issue.keys[0];
  // A bad record key (zod's invalid_key) ends its path with the key itself: point at the key,
  // not into its value, where a person would look for a typo.
  const badKey = issue.code === "invalid_key" ? issue.path.at(-1) : undefined;
  const node =
    key !== undefined
      ? propertyKey(nodeAt(root, issue.path), key)
      : badKey !== undefined
        ? propertyKey(nodeAt(root, issue.path.slice(0, -1)), String(badKey))
        : nodeAt(root, issue.path);
  return { rule, offset: (node ?? root).offset };
}

/** The deepest node on the path that exists (a missing field points at its object). */
function nodeAt(root: Node, path: (string | number)[]): Node | undefined {
  for (let length = path.length; length >= 0; length -= 1) {
    const node = findNodeAtLocation(root, path.slice(0, length));
    if (node) return node;
  }
  return root;
}

/** The key of one property of an object node (where an unknown or invalid name is written). */
function propertyKey(object: Node | undefined, key: string): Node | undefined {
  const property = object?.children?.find((p) => p.children?.[0]?.value === key);
  return property?.children?.[0] ?? object;
}

function position(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    line += 1;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}

function snakeCase(name: string): string {
  return name.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();
}

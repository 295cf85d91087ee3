/**
 * Approval rules on the wire (docs/tools.md, "Approval rules"; docs/turns.md, approval.rules):
 * the rule an approval offers, the rules a workspace and an attachment keep, and the
 * `approval.rules` method that lists and removes them. Negotiated under `turn`.
 */
import { z } from "zod";
import { type Infer, lazy } from "../lazy.js";
import { McpToolName } from "./mcp-tool-names.js";

/** At most this many bytes of rule text (the words, quoted as a shell would read them back). */
export const RULE_TEXT_BYTES = 1024;
/** At most this many rules per workspace file, and per attachment. */
export const RULES_PER_WORKSPACE = 256;
/** A path glob of an edit rule: at most this many bytes. */
const PATH_GLOB_BYTES = 256;

/** `extensions.turn.rules`: the bounds above, advertised. */
export const RULES_EXTENSION = {
  rule_text_bytes: RULE_TEXT_BYTES,
  rules_per_workspace: RULES_PER_WORKSPACE,
  path_glob_bytes: PATH_GLOB_BYTES,
} as const;
export const RulesExtension = lazy(() =>
  z.strictObject({
    rule_text_bytes: z.number().int(),
    rules_per_workspace: z.number().int(),
    path_glob_bytes: z.number().int(),
  }),
);

/**
 * A path glob (docs/tools.md): workspace-relative, `/`-separated, no empty, `.` or `..` segment,
 * no leading `/`, no backslash or control character; `*` and `?` within one segment, `**` a
 * whole segment matching any number of segments.
 */
export const PathGlob = lazy(() =>
  z
    .string()
    .min(1)
    .refine(
      (glob) => new TextEncoder().encode(glob).length <= PATH_GLOB_BYTES,
      "path_glob too long",
    )
    .refine((glob) => isPathGlob(glob), "not a workspace path glob"),
);

export function isPathGlob(glob: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (/[\\\u0000-\u001f\u007f]/.test(glob) || glob.startsWith("/")) return false;
  return glob
    .split("/")
    .every(
      (part) =>
        part !== "" && part !== "." && part !== ".." && (part === "**" || !part.includes("**")),
    );
}

/** A `shell` rule: the words after the env assignments, as a prefix or exactly. */
const ShellRuleShape = lazy(() => ({
  tool: z.literal("shell"),
  match: z.enum(["prefix", "exact"]),
  /** Leading `NAME=value` assignments, which a matching command must have exactly. */
  env: z.array(z.string()),
  words: z.array(z.string()).min(1),
  /** The rule as a shell would read it (`npm test`), what a client shows. */
  text: z.string(),
}));
/** An edit rule: every workspace edit (`path_glob` null) or those whose path the glob matches. */
const EditRuleShape = lazy(() => ({
  tool: z.literal("edit"),
  path_glob: PathGlob().nullable(),
  text: z.string(),
}));

/** An MCP tool rule: every call of that one tool (its namespaced name), whatever its arguments. */
const McpRuleShape = lazy(() => ({
  tool: z.literal("mcp"),
  name: McpToolName(),
  text: z.string(),
}));

/** The rule an `approval_requested` offers: what allow_session / *_always would keep. */
export const RuleOffer = lazy(() =>
  z.discriminatedUnion("tool", [
    z.strictObject(ShellRuleShape()),
    z.strictObject(EditRuleShape()),
    z.strictObject(McpRuleShape()),
  ]),
);
export type RuleOffer = Infer<typeof RuleOffer>;

const RULE_ID_PATTERN = /^[sw]-[A-Za-z0-9]{1,32}$/;
const RuleId = lazy(() => z.string().regex(RULE_ID_PATTERN));
const Kept = lazy(() => ({
  /** `w-…` for a workspace rule, `s-…` for one of this attachment. */
  id: RuleId(),
  effect: z.enum(["allow", "deny"]),
  scope: z.enum(["session", "workspace"]),
  created_at: z.string(),
}));
/** A rule as `approval.rules` lists it. */
export const KeptRule = lazy(() =>
  z.discriminatedUnion("tool", [
    z.strictObject({ ...Kept(), ...ShellRuleShape() }),
    z.strictObject({ ...Kept(), ...EditRuleShape() }),
    z.strictObject({ ...Kept(), ...McpRuleShape() }),
  ]),
);
export type KeptRule = Infer<typeof KeptRule>;

export const ApprovalRulesParams = lazy(() =>
  z.discriminatedUnion("action", [
    z.strictObject({ action: z.literal("list") }),
    z.strictObject({ action: z.literal("remove"), rule_id: RuleId() }),
    /** Removes every workspace rule, replacing a damaged rules file too (the way to repair it). */
    z.strictObject({ action: z.literal("clear") }),
  ]),
);
export type ApprovalRulesParams = Infer<typeof ApprovalRulesParams>;

/**
 * The rules after the action: this attachment's, then the workspace's. `file` is the workspace
 * rules file's state: `absent`, `ok`, or `invalid` (damaged, too large or unsafe: ignored, no
 * rule of it applies, nothing is added to it until `clear`).
 */
export const ApprovalRulesResult = lazy(() =>
  z.strictObject({
    file: z.enum(["absent", "ok", "invalid"]),
    rules: z.array(KeptRule()),
  }),
);
export type ApprovalRulesResult = Infer<typeof ApprovalRulesResult>;

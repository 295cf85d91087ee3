import assert from "node:assert/strict";
import { test } from "node:test";
import { needsApproval } from "../../../src/agent/permissions.js";
import { offeredTools, TOOLS, toolSpecs } from "../../../src/agent/tools/index.js";
import type { ToolKind } from "../../../src/agent/tools/tool.js";
import { PERMISSIONS, TOOL_NAMES } from "../../../src/protocol/schemas/turns.js";

test("the permission table: what is offered and what asks first", () => {
  const table = Object.fromEntries(
    PERMISSIONS.map((level) => [
      level,
      Object.fromEntries(
        (["read", "edit", "command"] as ToolKind[]).map((kind) => {
          const offered = offeredTools(level).some((tool) => tool.kind === kind);
          return [kind, !offered ? "not offered" : needsApproval(level, kind) ? "approval" : "yes"];
        }),
      ),
    ]),
  );
  assert.deepEqual(table, {
    read_only: { read: "yes", edit: "not offered", command: "not offered" },
    ask: { read: "yes", edit: "approval", command: "approval" },
    accept_edits: { read: "yes", edit: "yes", command: "approval" },
    // Commands run unasked inside the sandbox (needsApproval's third argument), below.
    sandboxed: { read: "yes", edit: "yes", command: "approval" },
    full_access: { read: "yes", edit: "yes", command: "yes" },
  });
  assert.deepEqual(
    offeredTools("read_only").map((tool) => tool.name),
    ["read_file", "list_dir", "search"],
  );
  assert.deepEqual(
    offeredTools("ask").map((tool) => tool.name),
    [...TOOL_NAMES],
  );
  assert.deepEqual(
    Object.values(TOOLS).map((tool) => [tool.name, tool.kind]),
    [
      ["read_file", "read"],
      ["list_dir", "read"],
      ["search", "read"],
      ["write_file", "edit"],
      ["edit_file", "edit"],
      ["shell", "command"],
    ],
  );
});

test("sandboxed: a command inside the sandbox asks nothing, one outside it asks; its shell has `sandbox`", () => {
  assert.equal(needsApproval("sandboxed", "command", true), false);
  assert.equal(needsApproval("sandboxed", "command", false), true);
  assert.equal(needsApproval("sandboxed", "edit", false), false);
  // Only the sandboxed level has a sandbox: elsewhere the flag changes nothing.
  assert.equal(needsApproval("ask", "command", true), true);
  assert.equal(needsApproval("accept_edits", "command", true), true);
  const sandboxedShell = toolSpecs(offeredTools("sandboxed")).find((spec) => spec.name === "shell");
  const plainShell = toolSpecs(offeredTools("ask")).find((spec) => spec.name === "shell");
  assert.deepEqual(Object.keys(sandboxedShell?.parameters.properties as object), [
    "command",
    "timeout_ms",
    "sandbox",
  ]);
  assert.deepEqual(Object.keys(plainShell?.parameters.properties as object), [
    "command",
    "timeout_ms",
  ]);
});

test("tool specs are function-calling JSON Schemas", () => {
  const specs = toolSpecs(offeredTools("full_access"));
  assert.deepEqual(
    specs.map((spec) => spec.name),
    [...TOOL_NAMES],
  );
  for (const spec of specs) {
    assert.ok(spec.description.length > 20, spec.name);
    assert.equal(spec.parameters.type, "object", spec.name);
    assert.equal(spec.parameters.additionalProperties, false, spec.name);
    assert.ok(!("$schema" in spec.parameters), spec.name);
    assert.equal(typeof spec.parameters.properties, "object", spec.name);
  }
  const edit = specs.find((spec) => spec.name === "edit_file")?.parameters;
  assert.deepEqual(edit?.required, ["path", "old_text", "new_text"]);
  const shell = specs.find((spec) => spec.name === "shell")?.parameters as {
    properties: { timeout_ms: { maximum: number } };
  };
  assert.equal(shell.properties.timeout_ms.maximum, 600_000);
  const read = specs.find((spec) => spec.name === "read_file")?.parameters as {
    properties: { limit: { maximum: number } };
    required: string[];
  };
  assert.equal(read.properties.limit.maximum, 2000);
  assert.deepEqual(read.required, ["path"]);
});

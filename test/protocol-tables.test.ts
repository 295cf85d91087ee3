import assert from "node:assert/strict";
import { test } from "node:test";
import { CAPABILITIES, methodsOf, SEED_CAPABILITIES } from "../src/protocol/capabilities.js";
import { EXTENSION_NAMES, EXTENSION_SPECS, Extensions } from "../src/protocol/extensions.js";
import { buildProtocolSchema } from "../src/protocol/json-schema.js";

test("capabilities derive from the tables: the seed's ten plus ours", () => {
  assert.equal(SEED_CAPABILITIES.length, 10);
  assert.deepEqual(
    CAPABILITIES.filter((c) => !SEED_CAPABILITIES.includes(c)),
    [
      "session.search",
      "session.fork",
      "session.manage",
      "subagents",
      "session.record",
      "model.cached",
      "settings.check",
      "workspace.trust",
      "commands",
      "turn",
      "turn.steer",
      "mcp",
      "turn.revert",
      "errors.recovery",
      "plans",
      "turn.queue",
      "hooks",
      "skills",
      "attachments",
    ],
  );
  // Field-only capabilities: no method makes them callable.
  assert.deepEqual(methodsOf("skills"), []);
  assert.deepEqual(methodsOf("commands"), ["commands.list"]);
  assert.deepEqual(methodsOf("errors.recovery"), []);
  assert.deepEqual(methodsOf("plans"), []);
  assert.deepEqual(methodsOf("turn.queue"), []);
  assert.deepEqual(methodsOf("turn.steer"), ["turn.steer"]);
  assert.deepEqual(methodsOf("hooks"), []);
  // `subagents` adds fields and one method.
  assert.deepEqual(methodsOf("subagents"), ["session.subagent_history"]);
  assert.deepEqual(methodsOf("attachments"), []);
  assert.deepEqual(methodsOf("turn"), [
    "turn.start",
    "turn.interrupt",
    "turn.approve",
    "approval.rules",
  ]);
});

test("each extension's advertised parameters match its own schema, and the extensions object", () => {
  for (const name of EXTENSION_NAMES) {
    const spec = EXTENSION_SPECS[name];
    assert.deepEqual(spec.schema().parse(spec.parameters), spec.parameters, name);
  }
  assert.ok(Extensions().safeParse({ turn: EXTENSION_SPECS.turn.parameters }).success);
  assert.ok(!Extensions().safeParse({ other: {} }).success);
});

test("the published schema has the notification frame and turn.event", () => {
  const schema = buildProtocolSchema() as {
    frames: Record<string, unknown>;
    notifications: Record<string, { capability: string; request: string }>;
  };
  assert.ok(schema.frames.notification);
  assert.equal(schema.notifications["turn.event"]?.capability, "turn");
  assert.equal(schema.notifications["turn.event"]?.request, "turn.start");
});

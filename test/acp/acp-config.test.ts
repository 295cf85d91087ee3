import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import type { SessionConfigOption } from "@agentclientprotocol/sdk";
import { held, text, toolCall } from "../../src/conformance/chat-server.js";
import { AcpWorld } from "./acp-world.js";
import { twoModelWorld } from "./two-models.js";

function option(options: SessionConfigOption[], id: string) {
  const found = options.find((o) => o.id === id);
  return found?.type === "select" ? found : undefined;
}

describe("mc-agent acp: modes and config options", () => {
  let world: AcpWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it("a mode change, then a model and effort change through config options", async () => {
    world = await twoModelWorld();
    const w = world;
    await w.initialize();
    const created = await w.newSession();
    const { sessionId } = created;
    assert.deepEqual(
      created.modes?.availableModes.map((m) => m.id),
      ["read_only", "ask", "accept_edits", "sandboxed", "full_access"],
      "bwrap is installed here: sandboxed is a mode",
    );
    const initial = created.configOptions ?? [];
    assert.equal(option(initial, "mode")?.currentValue, "ask");
    assert.equal(option(initial, "model")?.currentValue, "kit/kit-1");
    assert.equal(option(initial, "thought_level"), undefined, "kit-1 has no efforts");

    await w.agent.request("session/set_mode", { sessionId, modeId: "full_access" });
    w.server.reply(toolCall("write_file", { path: "a.txt", content: "x\n" }), text("Done."));
    await w.prompt(sessionId, "write");
    assert.equal(
      w.seen.filter((s) => s.kind === "permission").length,
      0,
      "full_access asks nothing",
    );
    assert.ok(existsSync(join(w.box.workspace, "a.txt")));
    assert.equal(w.server.requests.at(-1)?.body.model, "kit-1");

    const modelSet = await w.agent.request("session/set_config_option", {
      sessionId,
      configId: "model",
      value: "kit/kit-2",
    });
    assert.equal(option(modelSet.configOptions, "model")?.currentValue, "kit/kit-2");
    assert.equal(option(modelSet.configOptions, "thought_level")?.currentValue, "medium");
    const effortSet = await w.agent.request("session/set_config_option", {
      sessionId,
      configId: "thought_level",
      value: "high",
    });
    assert.equal(option(effortSet.configOptions, "thought_level")?.currentValue, "high");
    const modeSet = await w.agent.request("session/set_config_option", {
      sessionId,
      configId: "mode",
      value: "read_only",
    });
    assert.equal(option(modeSet.configOptions, "mode")?.currentValue, "read_only");

    w.server.reply(text("From kit 2."));
    await w.prompt(sessionId, "hello");
    const body = w.server.requests.at(-1)?.body;
    assert.equal(body.model, "kit-2");
    assert.equal(body.reasoning_effort, "high");
    const tools = (body.tools ?? []).map((t: { function: { name: string } }) => t.function.name);
    assert.equal(tools.includes("write_file"), false, "read_only offers no edits");

    // A model that is not a choice is refused, and the selection stays.
    await assert.rejects(
      w.agent.request("session/set_config_option", {
        sessionId,
        configId: "model",
        value: "kit/kit-9",
      }),
      (error: { data?: { code?: string } }) => error.data?.code === "model_unavailable",
    );
    await assert.rejects(
      w.agent.request("session/set_mode", { sessionId, modeId: "yolo" }),
      (error: { code: number }) => error.code === -32602,
    );
    const after = await w.agent.request("session/set_config_option", {
      sessionId,
      configId: "mode",
      value: "ask",
    });
    assert.equal(option(after.configOptions, "model")?.currentValue, "kit/kit-2");
  });

  it("sandboxed: a mode where the sandbox starts, and its commands run unasked", async () => {
    world = await AcpWorld.start();
    const w = world;
    await w.initialize();
    const { sessionId } = await w.newSession();
    await w.agent.request("session/set_mode", { sessionId, modeId: "sandboxed" });
    w.permission = () => assert.fail("sandboxed asks nothing for a command");
    w.server.reply(toolCall("shell", { command: "touch boxed.txt" }), text("Done."));
    assert.equal((await w.prompt(sessionId, "touch")).stopReason, "end_turn");
    assert.ok(existsSync(join(w.box.workspace, "boxed.txt")), w.stderr.slice(-500));
    const done = w.updates("tool_call_update").at(-1);
    assert.ok(done?.sessionUpdate === "tool_call_update");
    assert.equal(done.status, "completed");
  });

  it("no bwrap on PATH: sandboxed is no mode, and asking for it is sandbox_unavailable", async () => {
    // A PATH with node (the launcher execs it) and bash alone: the engine finds no sandbox.
    const bin = mkdtempSync(join(tmpdir(), "mc-acp-bin-"));
    symlinkSync(process.execPath, join(bin, "node"));
    symlinkSync("/bin/bash", join(bin, "bash"));
    try {
      world = await AcpWorld.start({ path: bin });
      const w = world;
      await w.initialize();
      const created = await w.newSession();
      const { sessionId } = created;
      const levels = ["read_only", "ask", "accept_edits", "full_access"];
      assert.deepEqual(
        created.modes?.availableModes.map((m) => m.id),
        levels,
      );
      const mode = option(created.configOptions ?? [], "mode");
      assert.deepEqual(
        mode?.options.map((o) => ("value" in o ? o.value : o.group)),
        levels,
      );
      const unavailable = (error: { code: number; message: string; data?: { code?: string } }) =>
        error.code === -32001 &&
        error.data?.code === "sandbox_unavailable" &&
        !error.message.includes(bin);
      await assert.rejects(
        w.agent.request("session/set_mode", { sessionId, modeId: "sandboxed" }),
        unavailable,
      );
      await assert.rejects(
        w.agent.request("session/set_config_option", {
          sessionId,
          configId: "mode",
          value: "sandboxed",
        }),
        unavailable,
      );
      // The mode stays `ask`: the command is asked about (and refused here), never run.
      w.permission = () => ({ outcome: { outcome: "selected", optionId: "reject_once" } });
      w.server.reply(toolCall("shell", { command: "touch ran.txt" }), text("Refused."));
      assert.equal((await w.prompt(sessionId, "touch")).stopReason, "end_turn");
      assert.equal(w.seen.filter((s) => s.kind === "permission").length, 1);
      assert.equal(existsSync(join(w.box.workspace, "ran.txt")), false);
      assert.equal(w.server.requests.length, 2, "the turn ran at ask");
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  it("every change of a mode or option is told: current_mode_update and config_option_update", async () => {
    world = await twoModelWorld();
    const w = world;
    await w.initialize();
    const { sessionId } = await w.newSession();
    const modeUpdates = () => w.updates("current_mode_update");
    const optionUpdates = () => w.updates("config_option_update");
    const lastOptions = () => {
      const last = optionUpdates().at(-1);
      return last?.sessionUpdate === "config_option_update" ? last.configOptions : [];
    };

    await w.agent.request("session/set_mode", { sessionId, modeId: "full_access" });
    await w.until(() => optionUpdates().length === 1, "the options after set_mode");
    assert.deepEqual(modeUpdates(), [
      { sessionUpdate: "current_mode_update", currentModeId: "full_access" },
    ]);
    assert.equal(option(lastOptions(), "mode")?.currentValue, "full_access");

    await w.agent.request("session/set_config_option", {
      sessionId,
      configId: "mode",
      value: "read_only",
    });
    await w.until(() => optionUpdates().length === 2, "the options after the mode option");
    assert.deepEqual(modeUpdates().at(-1), {
      sessionUpdate: "current_mode_update",
      currentModeId: "read_only",
    });

    await w.agent.request("session/set_config_option", {
      sessionId,
      configId: "model",
      value: "kit/kit-2",
    });
    await w.until(() => optionUpdates().length === 3, "the options after the model");
    assert.equal(option(lastOptions(), "model")?.currentValue, "kit/kit-2");
    assert.equal(option(lastOptions(), "thought_level")?.currentValue, "medium");
    assert.equal(modeUpdates().length, 2, "the mode did not change");

    // Setting what is already set changes nothing and tells nothing.
    await w.agent.request("session/set_mode", { sessionId, modeId: "read_only" });
    await w.agent.request("session/set_config_option", {
      sessionId,
      configId: "model",
      value: "kit/kit-2",
    });
    w.server.reply(text("Hi."));
    await w.prompt(sessionId, "hello");
    assert.equal(modeUpdates().length, 2);
    assert.equal(optionUpdates().length, 3);
  });

  it("the model set during a prompt is accepted, shown, and used from the next turn", async () => {
    world = await twoModelWorld();
    const w = world;
    await w.initialize();
    const { sessionId } = await w.newSession();
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    w.server.reply(held({ text: "A reply from kit 1." }, 2, gate));
    const running = w.prompt(sessionId, "talk");
    await w.until(() => w.agentText().length > 0, "a first chunk");
    const set = await w.agent.request("session/set_config_option", {
      sessionId,
      configId: "model",
      value: "kit/kit-2",
    });
    assert.equal(option(set.configOptions, "model")?.currentValue, "kit/kit-2");
    assert.equal(option(set.configOptions, "thought_level")?.currentValue, "medium");
    const effort = await w.agent.request("session/set_config_option", {
      sessionId,
      configId: "thought_level",
      value: "low",
    });
    assert.equal(option(effort.configOptions, "model")?.currentValue, "kit/kit-2");
    assert.equal(option(effort.configOptions, "thought_level")?.currentValue, "low");
    await assert.rejects(
      w.agent.request("session/set_config_option", {
        sessionId,
        configId: "thought_level",
        value: "extreme",
      }),
      (error: { code: number }) => error.code === -32602,
    );
    release();
    assert.equal((await running).stopReason, "end_turn");
    assert.equal(w.server.requests.length, 1);
    assert.equal(w.server.requests[0]?.body.model, "kit-1", "the running turn kept its model");

    w.server.reply(text("From kit 2."));
    assert.equal((await w.prompt(sessionId, "again")).stopReason, "end_turn");
    const body = w.server.requests.at(-1)?.body;
    assert.equal(body.model, "kit-2");
    assert.equal(body.reasoning_effort, "low");
    const now = await w.agent.request("session/set_config_option", {
      sessionId,
      configId: "mode",
      value: "ask",
    });
    assert.equal(option(now.configOptions, "model")?.currentValue, "kit/kit-2");
    assert.equal(option(now.configOptions, "thought_level")?.currentValue, "low");
  });
});

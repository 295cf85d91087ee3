/**
 * Workspaces the sandbox refuses (docs/tools.md, "Workspaces the sandbox refuses"), through
 * the real child: the home folder, a folder holding MC_HOME, one holding a credential folder,
 * and `/` reached through a link. Each child advertises no sandbox (`extensions.turn.sandbox`
 * null) and refuses `sandboxed` with `sandbox_unavailable` and the reason; nothing runs, no
 * model call; the other levels still work. Refusing means nothing runs, so `/` is safe to try.
 */
import assert from "node:assert/strict";
import { existsSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { answer, text } from "../fixtures/chat-completions-server.js";
import { type Box, skipReason, userEnv, varTmpBox } from "./sandbox-box.js";
import { runApproving } from "./tool-turns.js";
import { type TurnWorld, turnWorld } from "./turn-harness.js";

const reason = skipReason();

let world: TurnWorld | undefined;
let box: Box | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
  box?.cleanup();
  box = undefined;
});

/** A child in `cwd` (default the workspace) with the user's environment plus `env`. */
async function childIn(b: Box, cwd: string, env: Record<string, string | undefined> = {}) {
  world = await turnWorld({ box: b, child: { cwd, env: { ...userEnv(b), ...env } } });
  return world;
}

async function expectRefused(w: TurnWorld, marker: string) {
  const init = w.child.frames[0]?.result as { extensions: { turn: { sandbox: unknown } } };
  assert.equal(init.extensions.turn.sandbox, null, "no sandbox advertised");
  await w.child.call("session.create", {});
  w.server.reply(
    answer({ calls: [{ name: "shell", input: { command: `touch ${marker}` }, id: "c" }] }),
    text("Done."),
  );
  const reply = await w.child.request("turn.start", { input: "work", permissions: "sandboxed" });
  assert.equal(reply.error?.code, "sandbox_unavailable");
  const message = reply.error?.message ?? "";
  assert.match(
    message,
    /the workspace is the filesystem root, the home folder, or a folder holding/,
  );
  assert.match(message, /open a project folder inside it as the workspace/);
  assert.ok(!message.includes(box?.root ?? "/nothing"), "no path in the message");
  assert.equal(w.server.requests.length, 0, "no model call");
  assert.ok(!existsSync(marker), "nothing ran");
  const events = w.child.frames.filter((f) => (f as { method?: string }).method === "turn.event");
  assert.deepEqual(events, [], "no turn event");
}

describe("workspaces the sandbox refuses", { skip: reason ?? false }, () => {
  test("the home folder: refused; the ask level still works there", async () => {
    box = varTmpBox();
    const w = await childIn(box, box.userHome);
    await expectRefused(w, join(box.userHome, "ran"));
    const asked = await runApproving(w.child, "work", "ask", ["deny"]);
    assert.equal(asked.result.status, "completed");
    assert.ok(!existsSync(join(box.userHome, "ran")));
  });

  test("a folder holding MC_HOME (and the home folder): refused", async () => {
    box = varTmpBox();
    await expectRefused(await childIn(box, box.root), join(box.root, "ran"));
  });

  test("a workspace holding the Codex folder (CODEX_HOME inside it, not made yet): refused", async () => {
    box = varTmpBox();
    const codex = join(box.workspace, "tools", "codex");
    await expectRefused(
      await childIn(box, box.workspace, { CODEX_HOME: codex }),
      join(box.workspace, "ran"),
    );
    assert.ok(!existsSync(join(box.workspace, "tools")));
  });

  test("`/` through a link: refused before any sandbox starts", async () => {
    box = varTmpBox();
    const link = join(box.root, "root-link");
    symlinkSync("/", link);
    // The marker in the box: even a sandbox that let it run would write nothing of the host's.
    await expectRefused(await childIn(box, link), join(box.root, "ran-from-root"));
  });
});

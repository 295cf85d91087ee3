import assert from "node:assert/strict";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { NextSteps } from "../../src/acp/next-steps.js";
import { EngineError } from "../../src/server/engine-face.js";

describe("acp next steps: the command as the user must type it", () => {
  it("the default MC_HOME needs no prefix; any other is named, shell-quoted", () => {
    assert.equal(new NextSteps(join(homedir(), ".mc")).command("setup"), "mc-agent setup");
    assert.equal(new NextSteps("/srv/mc").command("setup"), "MC_HOME=/srv/mc mc-agent setup");
    assert.equal(
      new NextSteps("/tmp/my home").command("refresh kit"),
      "MC_HOME='/tmp/my home' mc-agent refresh kit",
    );
  });

  it("an engine error without a next step passes unchanged; one with a step is worded", () => {
    const steps = new NextSteps("/srv/mc");
    const plain = new EngineError("busy", "Too much work.");
    assert.equal(steps.mapped(plain), plain);
    const worded = steps.mapped(
      new EngineError("model_unavailable", "That model is not a selectable choice.", {
        recovery: "refresh_catalog",
        provider: "kit",
      }),
    ) as Error & { data: unknown };
    assert.equal(
      worded.message,
      `The provider's models have not been fetched yet. Fetch kit's models: run "MC_HOME=/srv/mc mc-agent refresh kit".`,
    );
    assert.deepEqual(worded.data, { code: "model_unavailable" });
  });
});

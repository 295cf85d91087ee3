/**
 * Invisible and reordering characters in approval text (protocol/visible-text.ts), and the same
 * text through each frontend's display: the CLI's approval prompt and the ACP permission request.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Terminal } from "../../src/cli/terminal.js";
import { approvalPrompt } from "../../src/cli/turn/approval-prompt.js";
import type { ApprovalRequest } from "../../src/client/index.js";
import type { RuleOffer } from "../../src/protocol/schemas/rules.js";
import { hasHidden, showHidden } from "../../src/protocol/visible-text.js";
import { asked } from "../acp/permission-asked.js";

const RLO = "\u202e";

/** A command rule whose text hides a right-to-left override. */
const RULE_WITH_RLO: RuleOffer = {
  tool: "shell",
  match: "exact",
  env: [],
  words: ["x"],
  text: `x${RLO}y`,
};

/** A command's approval whose title, command and rule each hide a right-to-left override. */
const APPROVAL_WITH_RLO: ApprovalRequest = {
  type: "approval_requested",
  approval_id: "t.a1",
  item_id: "t.1",
  kind: "command",
  title: `Run touch a${RLO}txt.sh`,
  command: `touch a${RLO}txt.sh`,
  path: null,
  diff: null,
  truncated: false,
  rule: RULE_WITH_RLO,
};

describe("approval text shown as it is", () => {
  test("each invisible or reordering character becomes \\u{hex}; everything else stays", () => {
    const cases: [string, string][] = [
      [`rm -rf ~ #${RLO}gnp.x`, "rm -rf ~ #\\u{202e}gnp.x"],
      ["a\u2066b\u2067c\u2068d\u2069e", "a\\u{2066}b\\u{2067}c\\u{2068}d\\u{2069}e"],
      ["\u200e\u200f\u061c", "\\u{200e}\\u{200f}\\u{61c}"],
      ["\u202a\u202b\u202c\u202d", "\\u{202a}\\u{202b}\\u{202c}\\u{202d}"],
      ["zero\u200bwidth\ufeff\u00ad\u2060", "zero\\u{200b}width\\u{feff}\\u{ad}\\u{2060}"],
      ["tag\u{e0041}", "tag\\u{e0041}"],
      ["line\u2028para\u2029", "line\\u{2028}para\\u{2029}"],
      ["npm test && echo 'é ü 日本 😀'\n\tx", "npm test && echo 'é ü 日本 😀'\n\tx"],
      ["", ""],
    ];
    for (const [raw, shown] of cases) {
      assert.equal(showHidden(raw), shown, JSON.stringify(raw));
      assert.equal(showHidden(shown), shown, "applying it twice changes nothing");
      assert.equal(hasHidden(raw), raw !== shown);
    }
  });

  test("the CLI's approval prompt escapes title, command and rule, whatever backend sent them", async () => {
    let err = "";
    const stream = (sink: (s: string) => void) =>
      ({
        isTTY: false,
        write: (s: string) => {
          sink(s);
          return true;
        },
      }) as unknown as NodeJS.WriteStream;
    const term = new Terminal({
      out: stream(() => {}),
      err: stream((s) => {
        err += s;
      }),
      env: {},
    });
    const view = { showsTools: false, pause() {}, event() {}, result() {} };
    const ask = approvalPrompt(term, view, null, () => {});
    const decision = await ask(APPROVAL_WITH_RLO);
    assert.equal(decision, "deny", "off a terminal nobody answers");
    assert.ok(!err.includes(RLO), err);
    assert.match(err, /\? Run touch a\\u\{202e\}txt\.sh\n/);
    assert.match(err, / {2}\$ touch a\\u\{202e\}txt\.sh\n/);
    assert.match(err, /allows `x\\u\{202e\}y`/);
  });

  test("the ACP permission request escapes its title, command content and option names", async () => {
    const { request } = await asked("/w", APPROVAL_WITH_RLO);
    const call = request.toolCall;
    const shown = JSON.stringify(call) + JSON.stringify(request.options);
    assert.ok(!shown.includes(RLO), shown);
    assert.equal(call.title, "Run touch a\\u{202e}txt.sh");
    assert.deepEqual(call.content, [
      { type: "content", content: { type: "text", text: "touch a\\u{202e}txt.sh" } },
    ]);
    assert.equal(request.options[1]?.name, "Allow `x\\u{202e}y` for this session");
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { END, mergeSections, START } from "../../bench/doc-sections.js";

/** How a (filtered) bench run rewrites docs/benchmarks.md: only its own sections change. */
describe("bench: docs/benchmarks.md sections", () => {
  const header = "# Benchmarks\n\nIntro.\n";
  const doc = [
    "# Benchmarks",
    "",
    "Intro, edited by hand.",
    "",
    START,
    "### A",
    "",
    "| a | 1 |",
    "",
    "### B",
    "",
    "| b | 1 |",
    END,
    "",
    "## Start-up profile",
    "",
    "Hand-written prose.",
    "",
    "### C",
    "| c | 1 |",
    "",
  ].join("\n");

  it("a section is replaced in place; every other byte stays", () => {
    const out = mergeSections(doc, [{ title: "A", text: "### A\n\n| a | 2 |\n| a | 3 |" }], header);
    assert.equal(out, doc.replace("| a | 1 |", "| a | 2 |\n| a | 3 |"));
  });

  it("the last section of the block, right before the end marker, stays right before it", () => {
    const out = mergeSections(doc, [{ title: "B", text: "### B\n\n| b | 2 |" }], header);
    assert.equal(out, doc.replace("| b | 1 |", "| b | 2 |"));
  });

  it("a section outside the markers (written by hand at the end) is replaced where it is", () => {
    const out = mergeSections(doc, [{ title: "C", text: "### C\n\n| c | 2 |" }], header);
    assert.equal(out, doc.replace("### C\n| c | 1 |", "### C\n\n| c | 2 |"));
    assert.ok(out.endsWith("| c | 2 |\n"));
  });

  it("a new section goes in at the end of the generated block", () => {
    const out = mergeSections(doc, [{ title: "D", text: "### D\n\n| d | 1 |" }], header);
    assert.equal(out, doc.replace(`| b | 1 |\n${END}`, `| b | 1 |\n\n### D\n\n| d | 1 |\n${END}`));
  });

  it("a section whose title only starts like another's is not that one", () => {
    const out = mergeSections(doc, [{ title: "A longer", text: "### A longer\n\nx" }], header);
    assert.ok(out.includes("### A\n\n| a | 1 |") && out.includes("### A longer\n\nx\n"));
  });

  it("the same run twice writes the same file; several sections in one run", () => {
    const fresh = [
      { title: "B", text: "### B\n\n| b | 9 |" },
      { title: "A", text: "### A\n\n| a | 9 |" },
    ];
    const once = mergeSections(doc, fresh, header);
    assert.equal(mergeSections(once, fresh, header), once);
    assert.equal(once, doc.replace("| a | 1 |", "| a | 9 |").replace("| b | 1 |", "| b | 9 |"));
  });

  it("no file yet: the header, the markers and the section; a file without markers gets them", () => {
    assert.equal(
      mergeSections(null, [{ title: "A", text: "### A\n\nx" }], header),
      `${header}\n${START}\n### A\n\nx\n${END}\n`,
    );
    assert.equal(
      mergeSections("# Mine\n\ntext\n", [{ title: "A", text: "### A" }], header),
      `# Mine\n\ntext\n\n${START}\n### A\n${END}\n`,
    );
  });
});

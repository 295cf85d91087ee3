/**
 * The system prompt's skill listing at its bounds (docs/skills.md): 64 skills listed whole and a
 * 65th counted in the note; 8 KiB in all (heading and note included) at the bound whole and one
 * byte past it cut, the note still within the 8 KiB.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Skill } from "../../../src/agent/skills/discover-skills.js";
import { skillListing } from "../../../src/agent/skills/skill-listing.js";
import { SKILL_LISTING_BYTES, SKILLS_LISTED } from "../../../src/protocol/schemas/skills.js";

function skill(name: string, description: string): Skill {
  return {
    name,
    description,
    place: ".agents/skills",
    scope: "workspace",
    folder: `/w/.agents/skills/${name}`,
    file: `/w/.agents/skills/${name}/SKILL.md`,
    confinedTo: "/w",
    shadowedBy: null,
  };
}

const many = (count: number) =>
  Array.from({ length: count }, (_, i) => skill(`s${String(i).padStart(2, "0")}`, "d"));

const bytes = (text: string | null) => Buffer.byteLength(text ?? "");
const listed = (text: string | null) => (text ?? "").split("\n").filter((l) => l.startsWith("- "));

describe("the skill listing", () => {
  test("none: no listing", () => {
    assert.equal(skillListing([]), null);
  });

  test("64 skills all listed, no note; 65: 64 and a note for one", () => {
    const at = skillListing(many(SKILLS_LISTED));
    assert.equal(listed(at).length, SKILLS_LISTED);
    assert.doesNotMatch(at ?? "", /not listed here/);
    const past = skillListing(many(SKILLS_LISTED + 1));
    assert.equal(listed(past).length, SKILLS_LISTED);
    assert.match(past ?? "", /\n\(1 more skill is not listed here/);
  });

  test("8 KiB exactly: whole; one byte more: the last left out, the note within 8 KiB", () => {
    const base = skillListing([skill("a", "x"), skill("b", "x")]) as string;
    // Grow b's description until the whole listing is exactly at the bound.
    const grow = SKILL_LISTING_BYTES - bytes(base);
    const at = skillListing([skill("a", "x"), skill("b", `x${"y".repeat(grow)}`)]);
    assert.equal(bytes(at), SKILL_LISTING_BYTES);
    assert.equal(listed(at).length, 2);
    const past = skillListing([skill("a", "x"), skill("b", `x${"y".repeat(grow + 1)}`)]);
    assert.equal(listed(past).length, 1);
    assert.match(past ?? "", /\(1 more skill is not listed here/);
    assert.ok(bytes(past) <= SKILL_LISTING_BYTES);
  });

  test("a multi-line description is one line", () => {
    assert.match(skillListing([skill("a", "one\ntwo  three\n")]) ?? "", /^- a: one two three$/m);
  });
});

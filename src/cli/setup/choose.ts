import type { SetupFindings } from "../../offline/setup-detect.js";
import { ActionableError } from "../failure.js";
import type { Terminal } from "../terminal.js";
import type { LineReader } from "../turn/reader-types.js";
import { pickIndex } from "./ask.js";
import type { Candidate } from "./candidates.js";

/** setup's flags for scripts: each one answers its question without asking it. */
export interface SetupAnswers {
  yes: boolean;
  provider: string | null;
  model: string | null;
  baseUrl: string | null;
}

/** The provider: --provider, or with --yes the first candidate, or the user's pick of the list. */
export async function chooseProvider(
  term: Terminal,
  reader: LineReader,
  candidates: Candidate[],
  findings: SetupFindings,
  answers: SetupAnswers,
): Promise<Candidate> {
  const first = candidates[0] as Candidate;
  let chosen: Candidate;
  if (answers.provider !== null) chosen = named(candidates, findings, answers.provider);
  else if (answers.yes || candidates.length === 1) chosen = first;
  else {
    const index = await pickIndex(
      term,
      reader,
      `Set up which provider? (number or name; Enter: ${first.id}) `,
      candidates.map((c) => c.id),
      0,
    );
    chosen = candidates[index] as Candidate;
  }
  term.line(`Provider: ${chosen.id}`);
  return chosen;
}

function named(candidates: Candidate[], findings: SetupFindings, id: string): Candidate {
  const found = candidates.find((c) => c.id === id);
  if (found) return found;
  const known = findings.providers.find((p) => p.id === id);
  if (known)
    throw new ActionableError(
      "authentication_unavailable",
      `${id} has no credential here`,
      known.credential.from === "none" && known.credential.variable
        ? `Export ${known.credential.variable}, then run "mc-agent setup --provider ${id}" again.`
        : `Set up its credentials (docs/providers.md), then run "mc-agent setup --provider ${id}" again.`,
    );
  throw new ActionableError(
    "invalid_params",
    `no provider or server named "${id.slice(0, 256)}" was found`,
    `Found: ${candidates.map((c) => c.id).join(", ")}. "mc-agent setup" without --provider lists them.`,
  );
}

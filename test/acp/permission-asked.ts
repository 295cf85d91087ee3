/**
 * What `askPermission` (src/acp/permission.ts) sends the editor for one approval, and the
 * decision it takes from the editor's answer: the mapping tested through its one real face.
 */
import type { RequestPermissionOutcome, RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { askPermission } from "../../src/acp/permission.js";
import type { TurnEventBody } from "../../src/protocol/schemas/turns.js";

export type ApprovalEvent = Extract<TurnEventBody, { type: "approval_requested" }>;

export async function asked(
  cwd: string,
  event: ApprovalEvent,
  outcome: RequestPermissionOutcome = { outcome: "cancelled" },
): Promise<{ request: RequestPermissionRequest; decision: string }> {
  const sent: RequestPermissionRequest[] = [];
  const client = {
    request: async (method: string, params: RequestPermissionRequest) => {
      if (method !== "session/request_permission") throw new Error(`unexpected ${method}`);
      sent.push(params);
      return { outcome };
    },
  };
  const decision = await askPermission(client, "s-1", cwd, event, new AbortController().signal);
  const request = sent[0];
  if (!request) throw new Error("no permission request was sent");
  return { request, decision };
}

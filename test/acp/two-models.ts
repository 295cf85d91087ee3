import { startChatServer } from "../../src/conformance/chat-server.js";
import { writeTurnHome } from "../../src/conformance/turn-world.js";
import { sandbox } from "../helpers/child.js";
import { AcpWorld } from "./acp-world.js";

/** The turn world with a second model, `kit/kit-2`, that has efforts. */
export async function twoModelWorld(): Promise<AcpWorld> {
  const box = sandbox("mc-acp-");
  const server = await startChatServer();
  writeTurnHome(box, server.baseUrl, {
    moreModels: [
      { id: "kit-2", name: "Kit 2", efforts: ["low", "medium", "high"], default_effort: "medium" },
    ],
  });
  return AcpWorld.start({ box, server });
}

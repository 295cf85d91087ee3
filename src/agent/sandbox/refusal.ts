/**
 * A sandboxed command the sandbox will not start: nothing ran. Its message is for the model
 * (the `shell` call's tool error): it says why and what to do, never a path.
 */
export class SandboxRefusal extends Error {
  override name = "SandboxRefusal";
}

// The black-box harness lives in src/conformance so that `mc-agent conformance` ships it too.
export * from "../../src/conformance/frame.js";
export * from "../../src/conformance/harness.js";

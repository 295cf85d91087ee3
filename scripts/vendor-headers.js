// Injected into the provider SDKs' vendor files (scripts/bundle.js): the web globals they build
// and check requests with are the vendored undici's, so a request never makes Node load its own
// undici (the global getters of these names do).
export { FormData, Headers } from "undici";

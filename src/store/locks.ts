import { lockName } from "./layout.js";
import { entryExists } from "./safe-open.js";

/**
 * Writer locks: `<id>.lock` holding `{"pid": n, "renewed_at": ISO}`. Listings treat them only as
 * a conservative busy hint: a lock that exists makes its session busy, whatever its age, content
 * or type. Listings never create, renew or remove one.
 */
export function isBusy(root: string, id: string): boolean {
  return entryExists(root, lockName(id));
}

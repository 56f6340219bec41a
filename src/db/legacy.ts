// TRANSITIONAL (issue 15, removed when every store is on the Database interface): the bun:sqlite
// handle for a store not yet converted. On PostgreSQL such a store is inert — its statements
// return nothing — so the app still starts while its feature is being converted.
import type { Database } from "./database";
import type { Db } from "./open";
import { isUniqueViolation } from "./constraints";

const inert: any = new Proxy(() => {}, {
  get: (_t, k) => (k === Symbol.iterator ? function* () {} : k === Symbol.toPrimitive ? () => 0 : inert),
  apply: () => inert,
});

export const legacy = (db: Database): Db => db.sqlite ?? (inert as Db);

/** uniqueOr for a store still on bun:sqlite's synchronous statements. */
export function uniqueOrSync<T>(write: () => T, conflict: () => Error): T {
  try {
    return write();
  } catch (e) {
    if (isUniqueViolation(e)) throw conflict();
    throw e;
  }
}

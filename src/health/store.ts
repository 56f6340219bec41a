import type { Database } from "../db/database";

export function healthStore(db: Database) {
  return {
    /** True when the database answers a real read. */
    async ping() {
      try {
        return (await db.get<{ n: number }>("SELECT COUNT(*) AS n FROM schema_migrations"))!.n >= 0;
      } catch {
        return false;
      }
    },
  };
}

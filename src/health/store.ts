import type { Db } from "../db/open";

export function healthStore(db: Db) {
  return {
    /** True when the database answers a real read. */
    ping() {
      try {
        return (db.query("SELECT COUNT(*) AS n FROM schema_migrations").get() as { n: number }).n >= 0;
      } catch {
        return false;
      }
    },
  };
}

import type { Database } from "../db/database";

export function healthStore(db: Database) {
  return {
    /** True when the database answers a real read within `timeoutMs`. */
    async ping(timeoutMs: number) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
      const read = db
        .get<{ n: number }>("SELECT COUNT(*) AS n FROM schema_migrations")
        .then((r) => r!.n >= 0)
        .catch(() => false);
      try {
        return await Promise.race([read, late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

import { statfsSync, statSync } from "node:fs";
import type { Database } from "../db/database";
import { walBytes } from "../db/open";

/** What the database takes on disk and what is left: null where it cannot be known from here. */
export type Storage = { databaseBytes: number | null; walBytes: number | null; freeDiskBytes: number | null };

/** Free bytes for an unprivileged writer on the file system holding `dir`; null when unknown. */
export function freeDisk(dir: string) {
  try {
    const s = statfsSync(dir);
    return Number(s.bavail) * Number(s.bsize);
  } catch {
    return null;
  }
}

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
    /**
     * SQLite: the file, its WAL and the free space of DATA_DIR's disk (two stats and a statfs).
     * PostgreSQL: the database's size; its WAL only for a role allowed pg_ls_waldir (pg_monitor),
     * and the server's free disk is not visible from here.
     */
    async storage(dataDir: string): Promise<Storage> {
      if (db.sqlite) {
        const file = db.sqlite.filename;
        let size: number | null = null;
        try {
          size = statSync(file).size;
        } catch {
          /* an in-memory database */
        }
        return { databaseBytes: size, walBytes: walBytes(file), freeDiskBytes: freeDisk(dataDir) };
      }
      const size = await db.get<{ n: number }>("SELECT pg_database_size(current_database()) AS n").catch(() => null);
      const wal = await db.get<{ n: number | null }>("SELECT SUM(size) AS n FROM pg_ls_waldir()").catch(() => null);
      return { databaseBytes: size?.n ?? null, walBytes: wal?.n ?? null, freeDiskBytes: null };
    },
  };
}

// PostgreSQL through Bun's built-in client (no driver package): the connection pool and the
// migrator. The SQLite path (open.ts, migrate.ts) is the default; this one is used when
// DATABASE_URL is set (for now by `threadlink migrate` and `threadlink migrate-data`).
import { SQL } from "bun";
import { pgMigrations } from "../../migrations/pg/index";
import { type Applied, checkApplied, checksumOf, type Migration } from "./migrate";

/**
 * The advisory lock every instance takes before migrating: N instances started together
 * migrate once, the others wait and then find nothing to do. A fixed 48-bit key (the ASCII of
 * "tlmigr", a safe integer in JavaScript), so it cannot meet another application's small
 * integers by chance.
 */
export const MIGRATION_LOCK = 0x746c6d696772;

/**
 * A pool on DATABASE_URL. Bun reads PG* variables only for parts the URL leaves out.
 * `bigint`: int8 values as BigInt rather than text — the app's pool (pgDatabase turns them into
 * numbers); tools that copy values as they are (migrate-data) keep the default.
 */
export function openPg(url: string, opts: { max?: number; bigint?: boolean; connection?: Record<string, string> } = {}) {
  return new SQL({ url, max: opts.max ?? 10, bigint: opts.bigint ?? false, ...(opts.connection ? { connection: opts.connection } : {}) });
}

/**
 * Applies every pending PostgreSQL migration, each in its own transaction, and records it with
 * its checksum, all under MIGRATION_LOCK on one reserved connection. Running it again is a
 * no-op. A database checkApplied refuses (newer than this binary, or a changed migration) is
 * left untouched, with the SQLite path's message.
 */
export async function migratePg(sql: SQL, migrations: Migration[] = pgMigrations): Promise<{ applied: string[]; version: number }> {
  const conn = await sql.reserve();
  try {
    // Session-level, not per transaction: it must cover reading what is applied and every
    // migration after it. The server drops it if this connection dies.
    // The app's pool bounds lock waits (connect.ts); an instance waiting here for another's
    // migrations waits as long as they take.
    await conn`SET lock_timeout = 0`;
    await conn`SELECT pg_advisory_lock(${MIGRATION_LOCK})`;
    try {
      await conn`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY, name text NOT NULL, applied_at text NOT NULL, checksum text NOT NULL)`;
      const done = (await conn`SELECT version, name, checksum FROM schema_migrations ORDER BY version`) as Applied[];
      const { current, latest } = checkApplied(done, migrations);
      const have = new Set(done.map((r) => r.version));
      const applied: string[] = [];
      // Every migration not yet recorded, in order (as the SQLite migrator does).
      for (const m of migrations) {
        if (have.has(m.version)) continue;
        await conn.begin(async (tx) => {
          // No parameters: sent as a simple query, so a file may hold many statements.
          await tx.unsafe(m.sql);
          await tx`INSERT INTO schema_migrations (version, name, applied_at, checksum)
            VALUES (${m.version}, ${m.name}, ${new Date().toISOString()}, ${checksumOf(m.sql)})`;
        });
        applied.push(m.name);
      }
      return { applied, version: Math.max(current, latest) };
    } finally {
      await conn`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`.catch(() => {});
      await conn`RESET lock_timeout`.catch(() => {});
    }
  } finally {
    conn.release();
  }
}

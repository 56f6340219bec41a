// Opens the app's database, migrated: embedded SQLite in DATA_DIR by default, PostgreSQL when
// DATABASE_URL is set. Everything after this sees only the Database interface.
import type { Config } from "../config";
import { type Database, pgDatabase, sqliteDatabase } from "./database";
import { migrate } from "./migrate";
import { openDb } from "./open";
import { migratePg, openPg } from "./pg";

/**
 * Session settings of the app's PostgreSQL connections. A row lock held by a stuck transaction
 * elsewhere (another instance, a hand-run psql) makes a request wait at most as long as
 * SQLite's busy_timeout, then answer 503 busy; a transaction left open by a stalled client is
 * ended by the server, which releases its locks.
 */
export const PG_SESSION = { lock_timeout: "5s", idle_in_transaction_session_timeout: "1min" };

export async function openDatabase(config: Pick<Config, "dataDir" | "databaseUrl"> & Partial<Pick<Config, "walLimitBytes">>): Promise<{ db: Database; applied: string[] }> {
  if (config.databaseUrl) {
    const pool = openPg(config.databaseUrl, { bigint: true, connection: PG_SESSION });
    try {
      const { applied } = await migratePg(pool);
      return { db: pgDatabase(pool), applied };
    } catch (e) {
      await pool.close();
      throw e;
    }
  }
  const handle = openDb(config.dataDir, config.walLimitBytes);
  try {
    const { applied } = migrate(handle);
    return { db: sqliteDatabase(handle), applied };
  } catch (e) {
    handle.close();
    throw e;
  }
}

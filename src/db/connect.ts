// Opens the app's database, migrated: embedded SQLite in DATA_DIR by default, PostgreSQL when
// DATABASE_URL is set. Everything after this sees only the Database interface.
import type { Config } from "../config";
import { type Database, pgDatabase, sqliteDatabase } from "./database";
import { migrate } from "./migrate";
import { openDb } from "./open";
import { migratePg, openPg } from "./pg";

export async function openDatabase(config: Pick<Config, "dataDir" | "databaseUrl">): Promise<{ db: Database; applied: string[] }> {
  if (config.databaseUrl) {
    const pool = openPg(config.databaseUrl, { bigint: true });
    try {
      const { applied } = await migratePg(pool);
      return { db: pgDatabase(pool), applied };
    } catch (e) {
      await pool.close();
      throw e;
    }
  }
  const handle = openDb(config.dataDir);
  try {
    const { applied } = migrate(handle);
    return { db: sqliteDatabase(handle), applied };
  } catch (e) {
    handle.close();
    throw e;
  }
}

// Opens the app's database, migrated: embedded SQLite in DATA_DIR by default, PostgreSQL when
// DATABASE_URL is set. Everything after this sees only the Database interface.
import type { Config } from "../config";
import { type Database, pgDatabase, sqliteDatabase } from "./database";
import { migrate } from "./migrate";
import { openDb } from "./open";
import { migratePg, openPg } from "./pg";
import { log } from "../http/log";
import { postgresUnreachable } from "./faults";

/**
 * Session settings of the app's PostgreSQL connections. A row lock held by a stuck transaction
 * elsewhere (another instance, a hand-run psql) makes a request wait at most as long as
 * SQLite's busy_timeout, then answer 503 busy; a transaction left open by a stalled client is
 * ended by the server, which releases its locks. No JIT: every statement of the app reads an
 * index range or a page, and a plan whose estimate passes jit_above_cost (a misjudged search)
 * would pay tens of ms of compiling for nothing (docs/decisions.md, H-pgview).
 */
export const PG_SESSION = { lock_timeout: "5s", idle_in_transaction_session_timeout: "1min", jit: "off" };

/**
 * `serve` waits at start for a PostgreSQL server that does not answer yet, retried every
 * second for up to `waitMs` (DATABASE_START_WAIT, 120 s by default): an instance started while
 * the database restarts, or before it in a compose file, comes up once it answers rather than
 * exiting (README: a restart policy past this bound). The CLI commands do not wait.
 */
const PG_START_RETRY_MS = 1_000;

export async function openDatabase(
  config: Pick<Config, "dataDir" | "databaseUrl"> & Partial<Pick<Config, "walLimitBytes" | "readerNice">>,
  opts: { waitMs?: number } = {},
): Promise<{ db: Database; applied: string[] }> {
  if (config.databaseUrl) {
    const pool = openPg(config.databaseUrl, { bigint: true, connection: PG_SESSION });
    const t0 = performance.now();
    for (let attempt = 0; ; attempt++) {
      try {
        const { applied } = await migratePg(pool);
        if (attempt > 0) log.info("the database answers", { waitedMs: Math.round(performance.now() - t0) });
        return { db: pgDatabase(pool, { readerUrl: config.databaseUrl, nice: config.readerNice }), applied };
      } catch (e) {
        const waited = performance.now() - t0;
        if (postgresUnreachable(e) && waited < (opts.waitMs ?? 0)) {
          if (attempt === 0) log.warn("waiting for the database", { error: String(e), retryMs: PG_START_RETRY_MS, maxWaitMs: opts.waitMs });
          await Bun.sleep(PG_START_RETRY_MS);
          continue;
        }
        await pool.close();
        throw e;
      }
    }
  }
  const handle = openDb(config.dataDir, config.walLimitBytes);
  try {
    const { applied } = migrate(handle);
    return { db: sqliteDatabase(handle, { nice: config.readerNice }), applied };
  } catch (e) {
    handle.close();
    throw e;
  }
}

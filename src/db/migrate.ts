import type { Db } from "./open";
import { migrations as bundled } from "../../migrations/index";

export class MigrationError extends Error {}

/**
 * Applies every pending migration, each in its own transaction, and records it.
 * Running it again is a no-op. A database migrated by a newer binary is refused rather
 * than touched, since this binary does not know what that schema means.
 */
export function migrate(db: Db, migrations = bundled): { applied: string[]; version: number } {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const current =
    (db.query("SELECT MAX(version) AS v FROM schema_migrations").get() as { v: number | null }).v ?? 0;
  const latest = migrations.at(-1)?.version ?? 0;
  if (current > latest) {
    throw new MigrationError(
      `The database is at schema version ${current}, but this Threadlink binary only knows up to ${latest}. ` +
        `Run a newer Threadlink, or restore a backup made by this version.`,
    );
  }
  const applied: string[] = [];
  const record = db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)");
  for (const m of migrations) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      record.run(m.version, m.name, new Date().toISOString());
    }).immediate();
    applied.push(m.name);
  }
  return { applied, version: Math.max(current, latest) };
}

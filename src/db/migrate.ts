import type { Db } from "./open";
import { migrations as bundled } from "../../migrations/index";

export class MigrationError extends Error {}

export type Migration = { version: number; name: string; sql: string };
export type Applied = { version: number; name: string; checksum: string | null };

/** sha256 (hex) of a migration's SQL as embedded: what schema_migrations records. */
export const checksumOf = (sql: string) => new Bun.CryptoHasher("sha256").update(sql).digest("hex");

/**
 * Refuses, with the database untouched, one this binary must not migrate: made by a newer
 * binary (this one does not know what that schema means), or with an applied migration that
 * differs from the file this binary carries (a landed migration changed, so the database is
 * not in the state the later migrations and the code assume). Shared by both backends, so
 * SQLite and PostgreSQL refuse with the same words.
 */
export function checkApplied(done: Applied[], migrations: Migration[]) {
  const current = done.at(-1)?.version ?? 0;
  const latest = migrations.at(-1)?.version ?? 0;
  if (current > latest) {
    throw new MigrationError(
      `The database is at schema version ${current}, but this Threadlink binary only knows up to ${latest}. ` +
        `Run a newer Threadlink, or restore a backup made by this version.`,
    );
  }
  const known = new Map(migrations.map((m) => [m.version, m]));
  for (const row of done) {
    const m = known.get(row.version);
    if (!m) {
      throw new MigrationError(
        `The database has migration ${row.name} applied, which this Threadlink binary does not have. ` +
          `Run the Threadlink that made this database, or restore a backup made by this version.`,
      );
    }
    // Rows from before checksums are taken to match: the files they were applied from are
    // not known, and these are the files the binary was released with.
    if (row.checksum !== null && row.checksum !== checksumOf(m.sql)) {
      throw new MigrationError(
        `Migration ${m.name} was applied to this database from a different file than this Threadlink binary carries ` +
          `(checksum ${row.checksum.slice(0, 12)}… recorded, ${checksumOf(m.sql).slice(0, 12)}… in the binary). ` +
          `A migration must never change once released: run the Threadlink that made this database, or restore a backup.`,
      );
    }
  }
  return { current, latest, known };
}

/** A migration's first line asking to run with foreign keys off: it rebuilds a table others reference. */
const FOREIGN_KEYS_OFF = "-- threadlink: foreign_keys=off\n";

/**
 * Applies every pending migration, each in its own transaction, and records it with its
 * checksum. Running it again is a no-op. A database checkApplied refuses is left untouched.
 */
export function migrate(db: Db, migrations: Migration[] = bundled): { applied: string[]; version: number } {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL, checksum TEXT)`);
  // Databases made before checksums were recorded: the column is added here (a migration
  // file cannot do it, its own record would need the column first) and filled below.
  const columns = (db.query("PRAGMA table_info(schema_migrations)").all() as { name: string }[]).map((c) => c.name);
  if (!columns.includes("checksum")) db.exec("ALTER TABLE schema_migrations ADD COLUMN checksum TEXT");

  const done = db.query("SELECT version, name, checksum FROM schema_migrations ORDER BY version").all() as Applied[];
  const { current, latest, known } = checkApplied(done, migrations);
  const unrecorded = done.filter((r) => r.checksum === null);
  if (unrecorded.length) {
    const fill = db.prepare("UPDATE schema_migrations SET checksum = ? WHERE version = ?");
    db.transaction(() => {
      for (const r of unrecorded) fill.run(checksumOf(known.get(r.version)!.sql), r.version);
    }).immediate();
  }

  const applied: string[] = [];
  const have = new Set(done.map((r) => r.version));
  const record = db.prepare("INSERT INTO schema_migrations (version, name, applied_at, checksum) VALUES (?, ?, ?, ?)");
  // Every migration not yet recorded, in order: not only those above the highest applied,
  // so that one numbered below a migration already applied (landed out of order while
  // developing) is not skipped for good.
  for (const m of migrations) {
    if (have.has(m.version)) continue;
    const rebuild = m.sql.startsWith(FOREIGN_KEYS_OFF);
    // A table rebuilt (SQLite's documented procedure): foreign keys off around the transaction
    // (the pragma is a no-op inside one), or dropping the old table would cascade to its
    // children; the legacy rename, or renaming the new table would check triggers that name the
    // old one meanwhile. Every reference is checked before the commit.
    if (rebuild) db.exec("PRAGMA foreign_keys = OFF; PRAGMA legacy_alter_table = ON");
    try {
      db.transaction(() => {
        db.exec(m.sql);
        if (rebuild) {
          const broken = db.query("PRAGMA foreign_key_check").all();
          if (broken.length) throw new MigrationError(`Migration ${m.name} would leave ${broken.length} broken references: not applied`);
        }
        record.run(m.version, m.name, new Date().toISOString(), checksumOf(m.sql));
      }).immediate();
    } finally {
      if (rebuild) db.exec("PRAGMA legacy_alter_table = OFF; PRAGMA foreign_keys = ON");
    }
    applied.push(m.name);
  }
  return { applied, version: Math.max(current, latest) };
}

import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Config } from "../config";
import { openDb } from "../db/open";

/** A consistent copy while the server keeps running: VACUUM INTO reads one snapshot. */
export function backup(config: Config, file: string | undefined) {
  // PostgreSQL has its own consistent, online backup: pointing at it beats copying SQLite's
  // file (which is not where the data lives then). The URL is not repeated: it holds a password.
  if (config.databaseUrl) {
    throw new Error(
      "DATABASE_URL is set, so the data lives in PostgreSQL, which backs itself up: threadlink backup copies the SQLite database in DATA_DIR only.\n" +
        'Back up with pg_dump (a consistent snapshot, safe while serving): pg_dump --format=custom --file=threadlink.dump "$DATABASE_URL"\n' +
        'Restore into a new, empty database with pg_restore: pg_restore --no-owner --dbname="$NEW_DATABASE_URL" threadlink.dump\n' +
        "Use the pg_dump of the server's major version or newer (Debian: apt-get install postgresql-client).",
    );
  }
  if (!file) throw new Error("Usage: threadlink backup FILE");
  const target = resolve(file);
  if (existsSync(target)) throw new Error(`Refusing to overwrite ${target}: choose a new file name.`);
  const db = openDb(config.dataDir);
  try {
    db.prepare("VACUUM INTO ?").run(target);
  } finally {
    db.close();
  }
  return target;
}

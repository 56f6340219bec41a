// `threadlink migrate-data postgres://…`: copies the SQLite install in DATA_DIR into an empty
// PostgreSQL database, every table in one transaction, and proves the copy by counting.
import { existsSync } from "node:fs";
import type { SQL } from "bun";
import { type Config, isPostgresUrl, POSTGRES_URL_MESSAGE } from "../config";
import { dbPath, openDb, type Db } from "../db/open";
import { migrate } from "../db/migrate";
import { migratePg, openPg } from "../db/pg";

const USAGE = "Usage: threadlink migrate-data postgres://user:password@host:5432/database (or set DATABASE_URL)";

/**
 * Rows the migrations themselves put in a new database (the brand root link and its count):
 * a target holding only these is still empty. src/cli/migrateData.pg.test.ts checks that a
 * freshly migrated database passes, so a migration that seeds another row must be listed here.
 */
const SEEDED: Record<string, string> = {
  short_links: "is_system = 1",
  link_click_counts: "clicks = 0 AND link_id IN (SELECT id FROM short_links WHERE is_system = 1)",
  click_fold: "folded = 0",
  // Migration 0012's backfill mark, with nothing to backfill in a new database.
  click_backfill: "upto = 0 AND done = 0",
};

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** host:port/database of a URL: what the report names, never the password. */
export function where(url: string) {
  const u = new URL(url);
  return `${u.hostname || u.searchParams.get("host")}:${u.port || 5432}${u.pathname}`;
}

/** One value in COPY's text format: \N for NULL, and the four characters it escapes. */
function copyValue(v: unknown, column: string): string {
  if (v === null || v === undefined) return "\\N";
  if (typeof v === "number" || typeof v === "bigint") return String(v);
  if (typeof v === "string") {
    // SQLite keeps U+0000 in text; PostgreSQL refuses it. Named here, so the operator knows where.
    if (v.includes("\u0000")) {
      throw new Error(`${column} holds a NUL character (U+0000), which PostgreSQL cannot store in text. Remove it from that row in SQLite, then run migrate-data again.`);
    }
    return v.replace(/[\\\n\r\t]/g, (c) => (c === "\\" ? "\\\\" : c === "\n" ? "\\n" : c === "\r" ? "\\r" : "\\t"));
  }
  throw new Error(`${column} holds a ${typeof v} value, which its PostgreSQL column cannot take.`);
}

type Table = { name: string; columns: string[] };

/** SQLite's tables, parents before children (by their foreign keys), so each copy finds its parents. */
function sqliteTables(db: Db): Table[] {
  // The search index (an FTS5 table and its shadow tables, migrations/0013) is SQLite's own:
  // PostgreSQL indexes the same words itself, so it is not copied.
  const names = (
    db
      .query(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'schema_migrations'
         AND name NOT IN (SELECT name FROM pragma_table_list WHERE type IN ('virtual', 'shadow')) ORDER BY rowid`,
      )
      .all() as { name: string }[]
  ).map((r) => r.name);
  const parents = new Map(names.map((n) => [n, (db.query(`PRAGMA foreign_key_list(${quote(n)})`).all() as { table: string }[]).map((f) => f.table).filter((t) => t !== n)]));
  const ordered: string[] = [];
  const visit = (n: string, path: string[]) => {
    if (ordered.includes(n)) return;
    if (path.includes(n)) throw new Error(`Foreign keys form a cycle: ${[...path, n].join(" → ")}`);
    for (const p of parents.get(n) ?? []) visit(p, [...path, n]);
    ordered.push(n);
  };
  for (const n of names) visit(n, []);
  return ordered.map((name) => ({ name, columns: (db.query(`PRAGMA table_info(${quote(name)})`).all() as { name: string }[]).map((c) => c.name) }));
}

async function pgColumns(sql: SQL) {
  const rows = (await sql`SELECT table_name, column_name FROM information_schema.columns
    WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`) as { table_name: string; column_name: string }[];
  const tables = new Map<string, string[]>();
  for (const r of rows) tables.set(r.table_name, [...(tables.get(r.table_name) ?? []), r.column_name]);
  return tables;
}

const count = async (sql: SQL, table: string, where = "TRUE") => Number((await sql.unsafe(`SELECT COUNT(*) AS n FROM ${quote(table)} WHERE ${where}`))[0].n);

/** Streams one table from SQLite into COPY … FROM STDIN, in chunks of about 256 KB. */
async function copyTable(db: Db, tx: SQL, t: Table) {
  const cols = t.columns.map(quote).join(", ");
  const query = tx.unsafe(`COPY ${quote(t.name)} (${cols}) FROM STDIN`);
  const writer = query.writable().getWriter();
  // Handled here and awaited below: a row the server rejects fails the query while rows are
  // still being written, and that rejection must not go unhandled in between.
  query.catch(() => {});
  let chunk = "";
  for (const row of db.query(`SELECT ${cols} FROM ${quote(t.name)}`).iterate() as IterableIterator<Record<string, unknown>>) {
    chunk += `${t.columns.map((c) => copyValue(row[c], `${t.name}.${c}`)).join("\t")}\n`;
    if (chunk.length > 262_144) {
      await writer.write(chunk);
      chunk = "";
    }
  }
  if (chunk) await writer.write(chunk);
  await writer.close();
  await query;
}

export class TargetNotEmptyError extends Error {}

/**
 * Copies DATA_DIR's SQLite database into the PostgreSQL database at `args[0]` (or DATABASE_URL).
 * Both are migrated to this binary's schema first. The copy is one transaction: a failure leaves
 * the target as empty as it was. Returns the report: each table's rows in both databases.
 */
export async function migrateData(config: Config, args: string[], say: (line: string) => void = console.log) {
  const url = args[0] ?? config.databaseUrl;
  if (!url || args.length > 1) throw new Error(USAGE);
  if (!isPostgresUrl(url)) throw new Error(`The target ${POSTGRES_URL_MESSAGE}.\n${USAGE}`);
  const file = dbPath(config.dataDir);
  if (!existsSync(file)) throw new Error(`There is no Threadlink database in DATA_DIR (${file}): nothing to copy.`);

  const db = openDb(config.dataDir);
  const sql = openPg(url, { max: 2 });
  try {
    const local = migrate(db);
    if (local.applied.length) say(`SQLite: applied ${local.applied.join(", ")}`);

    // A database with tables Threadlink did not make is refused before anything is created in it.
    const before = await pgColumns(sql);
    if (before.size && !before.has("schema_migrations")) {
      throw new TargetNotEmptyError(
        `The target database ${where(url)} is not empty: it holds tables Threadlink did not make (${[...before.keys()].join(", ")}). ` +
          `migrate-data copies into an empty database only: create one (createdb, or CREATE DATABASE) and pass its URL.`,
      );
    }
    const remote = await migratePg(sql);
    if (remote.version !== local.version) {
      throw new Error(`This binary's PostgreSQL schema is at version ${remote.version} and its SQLite schema at ${local.version}: the copy needs both at the same version.`);
    }

    const tables = sqliteTables(db);
    const pg = await pgColumns(sql);
    for (const t of tables) {
      const theirs = pg.get(t.name);
      if (!theirs) throw new Error(`The SQLite table ${t.name} has no PostgreSQL counterpart in this binary's schema.`);
      const missing = t.columns.filter((c) => !theirs.includes(c));
      if (missing.length) throw new Error(`PostgreSQL's ${t.name} lacks the SQLite columns ${missing.join(", ")}.`);
    }
    const identities = (await sql`SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND is_identity = 'YES'`) as { table_name: string; column_name: string }[];

    say(`Copying ${file} into PostgreSQL at ${where(url)} (schema version ${remote.version}). Stop the server first: changes made after the copy starts stay in SQLite only.`);
    // One read transaction on SQLite: every table is read from the same snapshot, even while a
    // server keeps writing (WAL), so the counts below describe exactly what was copied.
    db.exec("BEGIN");
    const report: { table: string; sqlite: number; postgres: number }[] = [];
    try {
      const expected = new Map(tables.map((t) => [t.name, (db.query(`SELECT COUNT(*) AS n FROM ${quote(t.name)}`).get() as { n: number }).n]));
      await sql.begin(async (tx) => {
        // Nobody else writes these tables until the copy commits (an instance started meanwhile waits).
        await tx.unsafe(`LOCK TABLE ${tables.map((t) => quote(t.name)).join(", ")} IN EXCLUSIVE MODE`);
        const held: string[] = [];
        for (const t of tables) {
          const n = await count(tx, t.name, SEEDED[t.name] ? `NOT (${SEEDED[t.name]})` : "TRUE");
          if (n) held.push(`${t.name}: ${n}`);
        }
        if (held.length) {
          throw new TargetNotEmptyError(
            `The target database ${where(url)} is not empty (${held.join(", ")} rows): migrate-data copies into an empty database only, ` +
              `so that nothing there is overwritten or mixed with this install. Create a new database and pass its URL.`,
          );
        }
        // The seeded rows give way to SQLite's own (its root link, with its id and clicks), and
        // triggers are off while rows arrive whole (the count-row trigger would add rows twice).
        for (const t of [...tables].reverse()) await tx.unsafe(`DELETE FROM ${quote(t.name)}`);
        for (const t of tables) await tx.unsafe(`ALTER TABLE ${quote(t.name)} DISABLE TRIGGER USER`);
        for (const t of tables) {
          try {
            await copyTable(db, tx, t);
          } catch (e) {
            throw new Error(`Copying ${t.name} failed: ${e instanceof Error ? e.message : String(e)}`);
          }
        }
        for (const t of tables) await tx.unsafe(`ALTER TABLE ${quote(t.name)} ENABLE TRIGGER USER`);
        // New rows continue after the copied ids.
        for (const { table_name: t, column_name: c } of identities) {
          await tx.unsafe(`SELECT setval(pg_get_serial_sequence('${quote(t)}', '${c}'), (SELECT COALESCE(MAX(${quote(c)}), 0) + 1 FROM ${quote(t)}), false)`);
        }
        // Click ids stay above the fold mark (0008) even when the newest clicks were deleted:
        // readers take every id above the mark for the unfolded tail.
        if (tables.some((t) => t.name === "click_fold")) {
          await tx`SELECT setval(pg_get_serial_sequence('link_analytics', 'id'),
            GREATEST((SELECT COALESCE(MAX(id), 0) FROM link_analytics), (SELECT COALESCE(MAX(folded), 0) FROM click_fold)) + 1, false)`;
        }
        for (const t of tables) report.push({ table: t.name, sqlite: expected.get(t.name)!, postgres: await count(tx, t.name) });
        const wrong = report.filter((r) => r.sqlite !== r.postgres);
        if (wrong.length) throw new Error(`Counts differ after the copy (${wrong.map((r) => `${r.table}: ${r.sqlite} in SQLite, ${r.postgres} in PostgreSQL`).join("; ")}): nothing was kept.`);
      });
    } finally {
      db.exec("COMMIT");
    }

    const width = Math.max(5, ...report.map((r) => r.table.length));
    const line = (a: string, b: string, c: string) => `  ${a.padEnd(width)}  ${b.padStart(10)}  ${c.padStart(10)}`;
    const total = (k: "sqlite" | "postgres") => String(report.reduce((s, r) => s + r[k], 0));
    return [
      line("table", "SQLite", "PostgreSQL"),
      ...report.map((r) => line(r.table, String(r.sqlite), String(r.postgres))),
      line("total", total("sqlite"), total("postgres")),
      `Copied ${report.length} tables; every count matches. Point DATABASE_URL at ${where(url)} and start Threadlink: it serves from PostgreSQL.`,
    ].join("\n");
  } finally {
    await sql.close();
    db.close();
  }
}

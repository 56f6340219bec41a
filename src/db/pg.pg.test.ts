// The PostgreSQL migrator against a real PostgreSQL 15 (a throwaway cluster, scripts/lib/pgcluster.ts).
// Run by scripts/test.sh's PostgreSQL section; without PostgreSQL these fail, they never skip.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SQL } from "bun";
import { startCluster } from "../../scripts/lib/pgcluster";
import { migrations } from "../../migrations/index";
import { pgMigrations } from "../../migrations/pg/index";
import { checksumOf, migrate, MigrationError } from "./migrate";
import { openDb } from "./open";
import { migratePg, openPg } from "./pg";

const cluster = await startCluster();
const pools: SQL[] = [];
afterAll(async () => {
  for (const p of pools) await p.close();
  await cluster.stop();
});
const fresh = async () => {
  const url = await cluster.createDatabase();
  const sql = openPg(url);
  pools.push(sql);
  return { sql, url };
};
const latest = pgMigrations.at(-1)!.version;

describe("a fresh database", () => {
  test("gets every migration once, recorded with its checksum; running again is a no-op", async () => {
    const { sql } = await fresh();
    expect(await migratePg(sql)).toEqual({ applied: pgMigrations.map((m) => m.name), version: latest });
    expect([...(await sql`SELECT version, name, checksum FROM schema_migrations ORDER BY version`)]).toEqual(
      pgMigrations.map((m) => ({ version: m.version, name: m.name, checksum: checksumOf(m.sql) })),
    );
    expect(await migratePg(sql)).toEqual({ applied: [], version: latest });
    expect((await sql`SELECT COUNT(*)::int AS n FROM schema_migrations`)[0].n).toBe(pgMigrations.length);
  });

  test("has the SQLite schema's tables, columns, nullability, unique keys, foreign keys, indexes and triggers", async () => {
    const { sql } = await fresh();
    await migratePg(sql);
    const liteDir = mkdtempSync(join(tmpdir(), "threadlink-pgmirror-"));
    const lite = openDb(liteDir);
    // The migrators' own schema_migrations differs (PostgreSQL's has a checksum from the start).
    // At the same version (pg.test.ts checks that every later SQLite migration has its twin).
    migrate(lite, migrations.filter((m) => m.version <= latest));
    const q = <T>(s: string, ...a: (string | number)[]) => lite.query(s).all(...a) as T[];
    const tables = q<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'schema_migrations' AND name NOT LIKE 'short_links_search%' ORDER BY name").map((r) => r.name);
    // short_links_search and its shadow tables (migrations/0013) are SQLite's FTS5 search index;
    // PostgreSQL searches with a GIN index on short_links itself (migrations/pg/0013).
    const onDelete: Record<string, string> = { CASCADE: "c", "SET NULL": "n", "NO ACTION": "a", RESTRICT: "r", "SET DEFAULT": "d" };
    const want = { columns: [] as string[], unique: [] as string[], foreign: [] as string[], indexes: [] as string[], triggers: [] as string[] };
    for (const t of tables) {
      const info = q<{ name: string; notnull: number; pk: number }>(`PRAGMA table_info(${t})`);
      for (const c of info) want.columns.push(`${t}.${c.name} ${c.notnull || c.pk ? "not null" : "null"}`);
      const pk = info.filter((c) => c.pk).sort((a, b) => a.pk - b.pk).map((c) => c.name);
      const uniques = new Set([`${t}(${pk.join(",")})`]);
      for (const i of q<{ name: string; unique: number }>(`PRAGMA index_list(${t})`).filter((i) => i.unique)) {
        uniques.add(`${t}(${q<{ name: string }>(`PRAGMA index_info(${i.name})`).map((c) => c.name).join(",")})`);
      }
      want.unique.push(...uniques);
      for (const f of q<{ table: string; from: string; on_delete: string }>(`PRAGMA foreign_key_list(${t})`)) want.foreign.push(`${t}.${f.from} -> ${f.table} ${onDelete[f.on_delete]}`);
    }
    want.indexes = q<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").map((r) => r.name);
    want.triggers = q<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'trigger'").map((r) => r.name);
    lite.close();
    rmSync(liteDir, { recursive: true, force: true });

    const rows = async <T>(query: Promise<unknown>) => [...((await query) as T[])];
    const columns = await rows<{ t: string; c: string; nullable: string }>(
      sql`SELECT table_name AS t, column_name AS c, is_nullable AS nullable FROM information_schema.columns WHERE table_schema = 'public' AND table_name != 'schema_migrations'`,
    );
    const unique = await rows<{ u: string }>(sql`SELECT i.indrelid::regclass::text || '(' ||
        (SELECT string_agg(a.attname, ',' ORDER BY k.n) FROM unnest(i.indkey) WITH ORDINALITY k(attnum, n)
         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum) || ')' AS u
      FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE i.indisunique AND c.relnamespace = 'public'::regnamespace AND c.relname != 'schema_migrations'`);
    const foreign = await rows<{ f: string }>(sql`SELECT c.conrelid::regclass::text || '.' || a.attname || ' -> ' || c.confrelid::regclass::text || ' ' || c.confdeltype::text AS f
      FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
      WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace`);
    const indexes = await rows<{ name: string }>(sql`SELECT indexname AS name FROM pg_indexes WHERE schemaname = 'public'
      AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE connamespace = 'public'::regnamespace)`);
    const triggers = await rows<{ name: string }>(sql`SELECT DISTINCT trigger_name AS name FROM information_schema.triggers WHERE trigger_schema = 'public'`);
    const sorted = (a: string[]) => [...a].sort();
    // link_changes (migrations/pg/0014) is PostgreSQL's alone: the log an instance catches up
    // from after losing its listening connection (src/links/follow.ts); SQLite runs one instance.
    expect(columns.some((r) => r.t === "link_changes")).toBe(true);
    // short_links.search_words (migrations/pg/0024) is the stored words PostgreSQL's GIN index
    // is built on; SQLite keeps them in its FTS5 table.
    const shared = columns.filter((r) => r.t !== "link_changes" && !(r.t === "short_links" && r.c === "search_words"));
    expect(sorted(shared.map((r) => `${r.t}.${r.c} ${r.nullable === "NO" ? "not null" : "null"}`))).toEqual(sorted(want.columns));
    expect(sorted(unique.map((r) => r.u).filter((u) => !u.startsWith("link_changes(")))).toEqual(sorted(want.unique));
    expect(sorted(foreign.map((r) => r.f))).toEqual(sorted(want.foreign));
    // link_analytics_link_id (migrations/pg/0011) is PostgreSQL's alone: its click writer keeps
    // this per-link index instead of SQLite's fold into link_clicks (docs/decisions.md).
    // link_changes_xid and link_changes_at (migrations/pg/0014) index the change log a
    // follower catches up from (src/links/follow.ts).
    // short_links_search is the GIN search index (migrations/pg/0013 and 0024; SQLite's is an FTS5 table),
    // and notifications_user_created pages a user's notifications by (created_at, id), which
    // SQLite's notifications_user does with its rowid (migrations/0013 and pg/0013).
    const pgOnlyIndexes = ["link_analytics_link_id", "link_changes_xid", "link_changes_at", "short_links_search", "notifications_user_created"];
    const liteOnlyIndexes = ["notifications_user"];
    expect(sorted(indexes.map((r) => r.name).filter((n) => !pgOnlyIndexes.includes(n)))).toEqual(sorted(want.indexes.filter((n) => !liteOnlyIndexes.includes(n))));
    expect(indexes.map((r) => r.name)).toContain("link_analytics_link_id");
    // short_links_notify (migrations/pg/0009) is PostgreSQL's alone: it tells the other
    // instances of a link write, and SQLite serves one instance (its twin makes nothing);
    // events_notify (migrations/pg/0015) announces new events to the other instances likewise;
    // short_links_notify_update is its update half, for the columns a redirect reads (0028).
    const pgOnly = ["short_links_notify", "short_links_notify_update", "events_notify"];
    // short_links_search_* keep SQLite's FTS5 table in step; PostgreSQL's GIN index needs none.
    expect(sorted(triggers.map((r) => r.name).filter((n) => !pgOnly.includes(n)))).toEqual(sorted(want.triggers.filter((n) => !n.startsWith("short_links_search_"))));
    expect(triggers.map((r) => r.name)).toContain("short_links_notify");
    expect(triggers.map((r) => r.name)).toContain("short_links_notify_update");
  });

  test("keeps SQLite's rules: a link's count row from birth, ISO timestamps only, e-mail unique ignoring case, flags 0 or 1", async () => {
    const { sql } = await fresh();
    await migratePg(sql);
    const now = new Date().toISOString();
    const [user] = await sql`INSERT INTO users (username, password_hash, email, created_at, updated_at) VALUES ('ann', 'x', 'Ann@Example.test', ${now}, ${now}) RETURNING id`;
    expect(typeof user.id).toBe("number");
    const [link] = await sql`INSERT INTO short_links (user_id, short_code, original_url, title, created_at, updated_at)
      VALUES (${user.id}, 'abc', 'https://example.com/', 't', ${now}, ${now}) RETURNING id`;
    expect([...(await sql`SELECT clicks FROM link_click_counts WHERE link_id = ${link.id}`)]).toEqual([{ clicks: "0" }]);
    // The root link came with the schema, with its count row.
    expect((await sql`SELECT COUNT(*)::int AS n FROM short_links s JOIN link_click_counts c ON c.link_id = s.id WHERE s.short_code = 'root' AND s.is_system = 1`)[0].n).toBe(1);
    await sql`DELETE FROM short_links WHERE id = ${link.id}`;
    expect((await sql`SELECT COUNT(*)::int AS n FROM link_click_counts WHERE link_id = ${link.id}`)[0].n).toBe(0);

    expect((await sql`SELECT username FROM users WHERE email = 'ann@EXAMPLE.test'`)[0].username).toBe("ann");
    const refused = async (q: () => Promise<unknown>) => {
      try {
        await q();
      } catch (e) {
        return (e as Error).message;
      }
      return "accepted";
    };
    expect(await refused(() => sql`INSERT INTO users (username, password_hash, email, created_at, updated_at) VALUES ('bob', 'x', 'ANN@example.TEST', ${now}, ${now})`)).toContain("users_email_key");
    expect(await refused(() => sql`INSERT INTO users (username, password_hash, email, created_at, updated_at) VALUES ('cat', 'x', 'c@example.test', '2026-11-22 06:32:51+00', ${now})`)).toContain("iso_time");
    expect(await refused(() => sql`UPDATE short_links SET active = 2 WHERE short_code = 'root'`)).toContain("short_links_active_check");
    expect(await refused(() => sql`INSERT INTO topic_opens (topic_id, viewer_id, day) VALUES (1, 1, '22/11/2026')`)).toContain("topic_opens_day_check");
  });
});

describe("N instances starting together", () => {
  test("two migrators on two pools at once: the schema is made once, the second finds nothing to do", async () => {
    const { url } = await fresh();
    const a = openPg(url);
    const b = openPg(url);
    pools.push(a, b);
    const results = await Promise.all([migratePg(a), migratePg(b)]);
    expect(results.map((r) => r.applied.length).sort()).toEqual([0, pgMigrations.length]);
    expect((await a`SELECT COUNT(*)::int AS n FROM schema_migrations`)[0].n).toBe(pgMigrations.length);
    expect((await a`SELECT COUNT(*)::int AS n FROM short_links WHERE short_code = 'root'`)[0].n).toBe(1);
  });
});

describe("refused databases, left untouched", () => {
  test("a database newer than the binary", async () => {
    const { sql } = await fresh();
    await migratePg(sql);
    await sql`INSERT INTO schema_migrations (version, name, applied_at, checksum) VALUES (9999, '9999_future', 'x', 'f00d')`;
    const error = await migratePg(sql).catch((e) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect(error.message).toBe(
      `The database is at schema version 9999, but this Threadlink binary only knows up to ${latest}. Run a newer Threadlink, or restore a backup made by this version.`,
    );
    expect((await sql`SELECT COUNT(*)::int AS n FROM schema_migrations`)[0].n).toBe(pgMigrations.length + 1);
  });

  test("an applied migration whose file changed", async () => {
    const { sql } = await fresh();
    await migratePg(sql);
    await sql`UPDATE schema_migrations SET checksum = 'f00d' WHERE version = ${pgMigrations[0]!.version}`;
    const error = await migratePg(sql).catch((e) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect(error.message).toContain(`Migration ${pgMigrations[0]!.name} was applied to this database from a different file than this Threadlink binary carries`);
  });

  test("a failing migration rolls back whole and is not recorded; the lock is released for the next try", async () => {
    const { sql } = await fresh();
    const broken = [...pgMigrations, { version: 9000, name: "9000_broken", sql: "CREATE TABLE half_done (id int); INSERT INTO no_such_table VALUES (1);" }];
    expect((await migratePg(sql, broken).catch((e) => e)).message).toContain("no_such_table");
    expect((await sql`SELECT to_regclass('half_done') AS t`)[0].t).toBeNull();
    expect((await sql`SELECT MAX(version) AS v FROM schema_migrations`)[0].v).toBe(latest);
    // The advisory lock went with the failure: another instance migrates at once.
    expect(await migratePg(sql)).toEqual({ applied: [], version: latest });
  });
});

test("`threadlink migrate` with DATABASE_URL migrates PostgreSQL, then reports it up to date", async () => {
  const { url } = await fresh();
  // DATA_DIR is never created: PostgreSQL is the database.
  const dataDir = join(tmpdir(), `threadlink-pgcli-${crypto.randomUUID()}`);
  const run = () => {
    const r = Bun.spawnSync([process.execPath, join(import.meta.dir, "../main.ts"), "migrate"], {
      env: { ...process.env, DATABASE_URL: url, DATA_DIR: dataDir },
      stdout: "pipe",
      stderr: "pipe",
    });
    return { code: r.exitCode, out: r.stdout.toString().trim(), err: r.stderr.toString() };
  };
  expect(run()).toEqual({ code: 0, out: `Applied: ${pgMigrations.map((m) => m.name).join(", ")}`, err: "" });
  expect(run()).toEqual({ code: 0, out: `Up to date (schema version ${latest})`, err: "" });
  expect(existsSync(dataDir)).toBe(false);
});

import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "./open";
import { checksumOf, migrate, MigrationError } from "./migrate";
import { frozenChecksums, migrations } from "../../migrations/index";

const fresh = () => openDb(mkdtempSync(join(tmpdir(), "threadlink-mig-")));

describe("frozen migrations", () => {
  test("every shipped migration file is the one that landed (checksums beside the list)", () => {
    const problems: string[] = [];
    for (const m of migrations) {
      const sum = checksumOf(m.sql);
      const frozen = frozenChecksums[m.name];
      if (frozen === undefined) problems.push(`${m.name} is new: add this line to frozenChecksums in migrations/index.ts\n  "${m.name}": "${sum}",`);
      else if (frozen !== sum) problems.push(`${m.name} changed after it landed (frozen ${frozen}, file ${sum}): put the change in a new migration instead`);
    }
    expect(problems).toEqual([]);
    // Every line belongs to a shipped file (a renamed file would leave its old line behind).
    expect(Object.keys(frozenChecksums).filter((n) => !migrations.some((m) => m.name === n))).toEqual([]);
  });

  test("the database records each applied migration's checksum", () => {
    const db = fresh();
    migrate(db);
    const rows = db.query("SELECT name, checksum FROM schema_migrations ORDER BY version").all();
    expect(rows).toEqual(migrations.map((m) => ({ name: m.name, checksum: checksumOf(m.sql) })));
  });

  test("a database from before checksums gets the column, filled with the binary's, and keeps working", () => {
    const db = fresh();
    // As the earlier binary left it: no checksum column, the first migrations applied.
    db.exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)");
    for (const m of migrations.slice(0, 2)) {
      db.exec(m.sql);
      db.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, 'then')").run(m.version, m.name);
    }
    expect(migrate(db).applied).toEqual(migrations.slice(2).map((m) => m.name));
    const rows = db.query("SELECT version, checksum FROM schema_migrations ORDER BY version").all();
    expect(rows).toEqual(migrations.map((m) => ({ version: m.version, checksum: checksumOf(m.sql) })));
    expect(migrate(db).applied).toEqual([]);
  });

  test("an applied migration whose file changed is refused, and nothing pending is applied", () => {
    const db = fresh();
    migrate(db, migrations.slice(0, 2));
    const edited = migrations.map((m) => (m.version === 2 ? { ...m, sql: `${m.sql}\n-- edited after release\n` } : m));
    expect(() => migrate(db, edited)).toThrow(MigrationError);
    expect(() => migrate(db, edited)).toThrow(/Migration 0002_links was applied to this database from a different file/);
    expect(db.query("SELECT MAX(version) AS v FROM schema_migrations").get()).toEqual({ v: 2 });
  });

  test("a migration numbered below one already applied is still applied (not skipped for good)", () => {
    const db = fresh();
    const [a, b, c] = [
      { version: 1, name: "0001_a", sql: "CREATE TABLE a (id INTEGER)" },
      { version: 2, name: "0002_b", sql: "CREATE TABLE b (id INTEGER)" },
      { version: 3, name: "0003_c", sql: "CREATE TABLE c (id INTEGER)" },
    ];
    migrate(db, [a, c]);
    expect(migrate(db, [a, b, c]).applied).toEqual(["0002_b"]);
    expect(db.query("SELECT name FROM sqlite_master WHERE name = 'b'").get()).toEqual({ name: "b" });
  });

  test("start-up refuses such a database with a clear message and a non-zero exit", () => {
    const dir = mkdtempSync(join(tmpdir(), "threadlink-mig-"));
    const db = openDb(dir);
    migrate(db);
    db.query("UPDATE schema_migrations SET checksum = 'f00d' WHERE version = 1").run();
    db.close();
    const run = Bun.spawnSync([process.execPath, join(import.meta.dir, "../main.ts"), "serve"], {
      env: { ...process.env, DATA_DIR: dir, PORT: "4104", HOST: "127.0.0.1", PUBLIC_URL: "http://127.0.0.1:4104" },
      stdout: "pipe",
      stderr: "pipe",
      timeout: 30_000,
    });
    expect(run.exitCode).toBe(1);
    expect(run.stderr.toString()).toContain("Migration 0001_init was applied to this database from a different file than this Threadlink binary carries");
  });
});

test("applies every migration once, records it, and re-running is a no-op", () => {
  const db = fresh();
  const first = migrate(db);
  expect(first.applied).toEqual(migrations.map((m) => m.name));
  const rows = db.query("SELECT version, name FROM schema_migrations ORDER BY version").all();
  expect(rows).toEqual(migrations.map((m) => ({ version: m.version, name: m.name })));
  const tables = (db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name);
  for (const t of ["users", "sessions", "topics", "titles", "short_links", "link_analytics", "notifications", "invites", "shares"]) {
    expect(tables).toContain(t);
  }
  const again = migrate(db);
  expect(again.applied).toEqual([]);
  expect(db.query("SELECT COUNT(*) AS n FROM schema_migrations").get()).toEqual({ n: migrations.length });
});

test("pragmas: WAL, synchronous NORMAL, foreign keys, busy timeout", () => {
  const db = fresh();
  expect(db.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
  expect(db.query("PRAGMA synchronous").get()).toEqual({ synchronous: 1 });
  expect(db.query("PRAGMA foreign_keys").get()).toEqual({ foreign_keys: 1 });
  expect(db.query("PRAGMA busy_timeout").get()).toEqual({ timeout: 5000 });
});

test("a database newer than the binary is refused, untouched", () => {
  const db = fresh();
  migrate(db);
  db.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, '9999_future', 'x')").run();
  expect(() => migrate(db)).toThrow(MigrationError);
  expect(() => migrate(db)).toThrow(/schema version 9999.*only knows up to/);
});

test("a failing migration rolls back completely and is not recorded", () => {
  const db = fresh();
  const broken = [
    ...migrations,
    { version: 9000, name: "9000_broken", sql: "CREATE TABLE half_done (id INTEGER); INSERT INTO no_such_table VALUES (1);" },
  ];
  expect(() => migrate(db, broken)).toThrow();
  expect(db.query("SELECT name FROM sqlite_master WHERE name = 'half_done'").get()).toBeNull();
  expect(db.query("SELECT MAX(version) AS v FROM schema_migrations").get()).toEqual({ v: migrations.at(-1)!.version });
});

test("migration versions are consecutive and names match their numbers", () => {
  migrations.forEach((m, i) => {
    expect(m.version).toBe(i + 1);
    expect(m.name.startsWith(String(m.version).padStart(4, "0") + "_")).toBe(true);
  });
});

test("0029: the smart links' read at start-up (links/store.ts smartForRedirect) uses their partial index", () => {
  const db = fresh();
  migrate(db, migrations);
  const plan = db.query("EXPLAIN QUERY PLAN SELECT id FROM short_links WHERE smart IS NOT NULL").all() as { detail: string }[];
  expect(plan.map((p) => p.detail).join(" ")).toContain("short_links_smart");
});

test("0003 moves each link's click count into link_click_counts and swaps the click indexes", () => {
  const db = fresh();
  migrate(db, migrations.slice(0, 2));
  const now = new Date().toISOString();
  db.query("INSERT INTO users (id, username, password_hash, email, created_at, updated_at) VALUES (1, 'mig', 'x', 'mig@example.test', ?, ?)").run(now, now);
  const add = db.prepare("INSERT INTO short_links (user_id, short_code, original_url, title, click_count, created_at, updated_at) VALUES (1, ?, 'https://example.com/', 't', ?, ?, ?) RETURNING id");
  const busy = (add.get("busy", 7, now, now) as { id: number }).id;
  const quiet = (add.get("quiet", 0, now, now) as { id: number }).id;
  db.query("INSERT INTO link_rollups (link_id, dim, value, count) VALUES (?, 'summary', 'mark_ms', 1), (?, 'summary', 'mark_id', 5)").run(busy, busy);
  expect(migrate(db, migrations.slice(0, 3)).applied).toEqual(["0003_click_indexes"]);
  // The old (timestamp, id) roll-up mark keeps only its id.
  expect(db.query("SELECT value, count FROM link_rollups WHERE link_id = ?").all(busy)).toEqual([{ value: "mark_id", count: 5 }]);
  const counts = "SELECT link_id, clicks FROM link_click_counts WHERE link_id != (SELECT id FROM short_links WHERE short_code = 'root') ORDER BY link_id";
  expect(db.query(counts).all()).toEqual([
    { link_id: busy, clicks: 7 },
    { link_id: quiet, clicks: 0 },
  ]);
  // A link made later gets its row (at 0) from the trigger.
  const later = (db.query("INSERT INTO short_links (user_id, short_code, original_url, title, created_at, updated_at) VALUES (1, 'later', 'https://example.com/', 't', ?, ?) RETURNING id").get(now, now) as { id: number }).id;
  expect(db.query("SELECT clicks FROM link_click_counts WHERE link_id = ?").get(later)).toEqual({ clicks: 0 });
  const columns = (db.query("PRAGMA table_info(short_links)").all() as { name: string }[]).map((c) => c.name);
  expect(columns).not.toContain("click_count");
  const indexes = (db.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'link_analytics' AND sql IS NOT NULL ORDER BY name").all() as { name: string }[]).map((r) => r.name);
  expect(indexes).toEqual(["link_analytics_link", "link_analytics_visitor"]);
  // Deleting a link takes its count with it.
  db.query("DELETE FROM short_links WHERE id = ?").run(busy);
  expect(db.query(counts).all()).toEqual([
    { link_id: quiet, clicks: 0 },
    { link_id: later, clicks: 0 },
  ]);
});

describe("0026: a code unique per tracker, short_links rebuilt", () => {
  const links = (db: ReturnType<typeof fresh>) => db.query("SELECT id, tracker, short_code FROM short_links WHERE is_system = 0 ORDER BY id").all();
  const children = (db: ReturnType<typeof fresh>) => ({
    counts: db.query("SELECT link_id, clicks FROM link_click_counts WHERE link_id NOT IN (SELECT id FROM short_links WHERE is_system = 1) ORDER BY link_id").all(),
    tags: db.query("SELECT link_id, tag_id FROM link_tags ORDER BY link_id").all(),
    rollups: db.query("SELECT link_id, dim, value, count FROM link_rollups ORDER BY link_id").all(),
  });

  test("every link, id and child row kept (foreign keys off for the rebuild, on again after); one code per tracker; triggers and search work", () => {
    const db = fresh();
    migrate(db, migrations.slice(0, 25));
    const now = new Date().toISOString();
    db.query("INSERT INTO users (id, username, password_hash, email, created_at, updated_at) VALUES (1, 'mig', 'x', 'mig@example.test', ?, ?)").run(now, now);
    const add = db.prepare("INSERT INTO short_links (user_id, tracker, short_code, original_url, title, created_at, updated_at) VALUES (1, ?, ?, 'https://example.com/', ?, ?, ?) RETURNING id");
    const promo = (add.get("main", "promo", "Spring promo", now, now) as { id: number }).id;
    const other = (add.get("brand", "other", "Other words", now, now) as { id: number }).id;
    db.query("UPDATE link_click_counts SET clicks = 7 WHERE link_id = ?").run(promo);
    db.query("INSERT INTO tags (id, user_id, name, name_key, color, created_at) VALUES (1, 1, 'T', 't', 'blue', ?)").run(now);
    db.query("INSERT INTO link_tags (link_id, tag_id) VALUES (?, 1), (?, 1)").run(promo, other);
    db.query("INSERT INTO link_rollups (link_id, dim, value, count) VALUES (?, 'country', 'FR', 3)").run(promo);
    const before = { links: links(db), children: children(db) };

    expect(migrate(db, migrations.slice(0, 26)).applied).toEqual(["0026_codes_per_tracker"]);
    expect({ links: links(db), children: children(db) }).toEqual(before);
    expect(db.query("PRAGMA foreign_keys").get()).toEqual({ foreign_keys: 1 });
    expect(db.query("PRAGMA legacy_alter_table").get()).toEqual({ legacy_alter_table: 0 });
    expect(db.query("PRAGMA foreign_key_check").all()).toEqual([]);

    // The code again in the other tracker: a second link; in the same tracker: refused.
    const brandPromo = (add.get("brand", "promo", "Brand promo", now, now) as { id: number }).id;
    expect(() => add.get("main", "promo", "Again", now, now)).toThrow(/UNIQUE/);
    // The rebuilt table's triggers: a count row for the new link, the search index, the user's totals.
    expect(db.query("SELECT clicks FROM link_click_counts WHERE link_id = ?").get(brandPromo)).toEqual({ clicks: 0 });
    expect(db.query("SELECT rowid FROM short_links_search WHERE short_links_search MATCH 'promo' ORDER BY rowid").all()).toEqual([{ rowid: promo }, { rowid: brandPromo }]);
    expect(db.query("SELECT tracker, links FROM link_totals WHERE user_id = 1 ORDER BY tracker").all()).toEqual([
      { tracker: "brand", links: 2 },
      { tracker: "main", links: 1 },
    ]);
    // The children still reference the table by name: a delete cascades to them.
    db.query("DELETE FROM short_links WHERE id = ?").run(promo);
    expect(children(db)).toEqual({ counts: [{ link_id: other, clicks: 0 }, { link_id: brandPromo, clicks: 0 }], tags: [{ link_id: other, tag_id: 1 }], rollups: [] });
    expect(db.query("SELECT rowid FROM short_links_search WHERE short_links_search MATCH 'promo'").all()).toEqual([{ rowid: brandPromo }]);
    // A lookup by code uses the new index.
    const plan = db.query("EXPLAIN QUERY PLAN SELECT id FROM short_links WHERE short_code = 'promo'").all() as { detail: string }[];
    expect(plan.map((p) => p.detail).join(" ")).toContain("short_links_code");
  });

  test("a rebuild that would leave a broken reference is refused whole, and foreign keys are on again", () => {
    const db = fresh();
    migrate(db, migrations);
    const now = new Date().toISOString();
    db.query("INSERT INTO users (id, username, password_hash, email, created_at, updated_at) VALUES (1, 'mig', 'x', 'mig@example.test', ?, ?)").run(now, now);
    db.query("INSERT INTO short_links (user_id, short_code, original_url, title, created_at, updated_at) VALUES (1, 'kept', 'https://example.com/', 't', ?, ?)").run(now, now);
    const broken = { version: migrations.length + 1, name: `${String(migrations.length + 1).padStart(4, "0")}_broken`, sql: "-- threadlink: foreign_keys=off\nDELETE FROM users;" };
    expect(() => migrate(db, [...migrations, broken])).toThrow(MigrationError);
    expect(db.query("SELECT username FROM users").all()).toEqual([{ username: "mig" }]);
    expect(db.query("SELECT version FROM schema_migrations WHERE version = ?").get(broken.version)).toBeNull();
    expect(db.query("PRAGMA foreign_keys").get()).toEqual({ foreign_keys: 1 });
  });
});

import { expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "./open";
import { migrate, MigrationError } from "./migrate";
import { migrations } from "../../migrations/index";

const fresh = () => openDb(mkdtempSync(join(tmpdir(), "threadlink-mig-")));

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

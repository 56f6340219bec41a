// The PostgreSQL migrations as files (no server needed): frozen like SQLite's, and one twin per
// SQLite migration from the baseline on. Against a real server: *.pg.test.ts (scripts/test.sh).
import { expect, test } from "bun:test";
import { migrations } from "../../migrations/index";
import { pgFrozenChecksums, pgMigrations } from "../../migrations/pg/index";
import { ConfigError, loadConfig } from "../config";
import { checksumOf } from "./migrate";

test("every PostgreSQL migration file is the one that landed (checksums beside the list)", () => {
  const problems: string[] = [];
  for (const m of pgMigrations) {
    const sum = checksumOf(m.sql);
    const frozen = pgFrozenChecksums[m.name];
    if (frozen === undefined) problems.push(`${m.name} is new: add this line to pgFrozenChecksums in migrations/pg/index.ts\n  "${m.name}": "${sum}",`);
    else if (frozen !== sum) problems.push(`${m.name} changed after it landed (frozen ${frozen}, file ${sum}): put the change in a new migration instead`);
  }
  expect(problems).toEqual([]);
  expect(Object.keys(pgFrozenChecksums).filter((n) => !pgMigrations.some((m) => m.name === n))).toEqual([]);
});

test("each SQLite migration after the PostgreSQL baseline has its PostgreSQL twin, same number and name", () => {
  const [baseline, ...later] = pgMigrations;
  expect(baseline!.name).toBe(`${String(baseline!.version).padStart(4, "0")}_baseline`);
  // The baseline reaches the SQLite schema of its number: that migration exists.
  expect(migrations.some((m) => m.version === baseline!.version)).toBe(true);
  const expected = migrations.filter((m) => m.version > baseline!.version).map((m) => ({ version: m.version, name: m.name }));
  const missing = expected.filter((e) => !later.some((p) => p.name === e.name && p.version === e.version));
  expect(missing.map((m) => `${m.name} has no twin in migrations/pg/`)).toEqual([]);
  expect(later.map((p) => ({ version: p.version, name: p.name }))).toEqual(expected);
});

test("DATABASE_URL: postgres:// and postgresql:// URLs are taken; anything else stops start-up without repeating the value", () => {
  for (const good of ["postgres://u:p@db.example:5432/threadlink", "postgresql://db/threadlink", "postgres:///threadlink?host=/var/run/postgresql", "postgres://u@[::1]/t"]) {
    expect(loadConfig({ DATABASE_URL: good }).databaseUrl).toBe(good);
  }
  expect(loadConfig({}).databaseUrl).toBeNull();
  for (const bad of ["mysql://u:s3cret@h/db", "http://u:s3cret@h/db", "postgres://", "postgres:///db", "s3cret", "sqlite:///data/x.db"]) {
    let problems: string[] = [];
    try {
      loadConfig({ DATABASE_URL: bad });
    } catch (e) {
      problems = (e as ConfigError).problems;
    }
    expect(problems).toEqual(["DATABASE_URL: DATABASE_URL must be a postgres:// or postgresql:// URL, such as postgres://user:password@host:5432/database"]);
    expect(problems.join()).not.toContain("s3cret");
  }
});

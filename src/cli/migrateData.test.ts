// With DATABASE_URL set, the commands that use the app's stores run on PostgreSQL, never quietly
// on SQLite, and backup points at pg_dump. No server needed (migrate-data itself:
// migrateData.pg.test.ts; user and api-key on a real PostgreSQL: user.test.ts, apikey.test.ts).
import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const URL_WITH_SECRET = "postgres://app:s3cret@127.0.0.1:1/threadlink";
const run = (...args: string[]) => {
  const dir = mkdtempSync(join(tmpdir(), "threadlink-dburl-"));
  const r = Bun.spawnSync([process.execPath, join(import.meta.dir, "../main.ts"), ...args], {
    // DATABASE_START_WAIT=0: `serve` would otherwise wait 2 minutes for the database to answer.
    env: { ...process.env, DATABASE_URL: URL_WITH_SECRET, DATA_DIR: dir, PORT: "4611", HOST: "127.0.0.1", DATABASE_START_WAIT: "0" },
    stdin: new TextEncoder().encode("a long enough password\n"),
    stdout: "pipe",
    stderr: "pipe",
    timeout: 30_000,
  });
  const made = existsSync(join(dir, "threadlink.db"));
  rmSync(dir, { recursive: true, force: true });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString(), made };
};

// An unreachable PostgreSQL: each command says which server it could not reach (never the
// password) and falls back to nothing — no SQLite database appears in DATA_DIR.
const onPostgresOnly: string[][] = [["serve"], ["user", "create", "ann", "ann@example.test"], ["api-key", "revoke", "ann", "tl_abcdefgh"]];
for (const args of onPostgresOnly) {
  test(`\`threadlink ${args[0]}\` uses PostgreSQL when DATABASE_URL is set: unreachable, it exits 1 naming the server, touching no SQLite`, () => {
    const r = run(...args);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toBe("Error: PostgreSQL at 127.0.0.1:1/threadlink (DATABASE_URL): Failed to connect\n");
    expect(r.made).toBe(false);
  });
}

test("`threadlink backup` explains pg_dump and pg_restore, writes nothing and never prints the password", () => {
  const r = run("backup", "copy.db");
  expect(r.code).toBe(1);
  expect(r.err).toContain('pg_dump --format=custom --file=threadlink.dump "$DATABASE_URL"');
  expect(r.err).toContain('pg_restore --no-owner --dbname="$NEW_DATABASE_URL" threadlink.dump');
  expect(r.err).not.toContain("s3cret");
  expect(r.made).toBe(false);
});

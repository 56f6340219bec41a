// With DATABASE_URL set, before PostgreSQL serving exists: the commands that use the app's
// stores refuse instead of quietly using SQLite, and backup points at pg_dump. No server needed
// (migrate-data itself: migrateData.pg.test.ts).
import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const URL_WITH_SECRET = "postgres://app:s3cret@127.0.0.1:1/threadlink";
const run = (...args: string[]) => {
  const dir = mkdtempSync(join(tmpdir(), "threadlink-dburl-"));
  const r = Bun.spawnSync([process.execPath, join(import.meta.dir, "../main.ts"), ...args], {
    env: { ...process.env, DATABASE_URL: URL_WITH_SECRET, DATA_DIR: dir, PORT: "4611", HOST: "127.0.0.1" },
    stdin: new TextEncoder().encode("a long enough password\n"),
    stdout: "pipe",
    stderr: "pipe",
    timeout: 30_000,
  });
  const made = existsSync(join(dir, "threadlink.db"));
  rmSync(dir, { recursive: true, force: true });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString(), made };
};

const refused: string[][] = [["serve"], ["user", "create", "ann", "ann@example.test"], ["api-key", "revoke", "ann", "tl_abcdefgh"]];
for (const args of refused) {
  test(`\`threadlink ${args[0]}\` refuses to run on SQLite while DATABASE_URL is set, touching nothing`, () => {
    const r = run(...args);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toBe(
      `DATABASE_URL is set, but serving from PostgreSQL is not finished yet: this version of Threadlink runs on SQLite (DATA_DIR) only. ` +
        `Unset DATABASE_URL to run \`threadlink ${args[0]}\` on SQLite. Until then DATABASE_URL is used by \`threadlink migrate\` and \`threadlink migrate-data\`.\n`,
    );
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

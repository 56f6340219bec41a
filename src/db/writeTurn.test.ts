// The request thread waits for SQLite's write lock asynchronously (src/db/writeTurn.ts): a write
// behind another connection's transaction leaves the thread free, raises the counter the click
// worker reads, and fails as SQLite would once busy_timeout has passed.
import { expect, test } from "bun:test";
import { Database as SqliteHandle } from "bun:sqlite";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "./open";
import { sqliteDatabase } from "./database";
import { APP_FIRST_MS, busyTimeoutOf, letAppWritesFirst, newWriteTurn } from "./writeTurn";

function fresh() {
  const dir = mkdtempSync(join(tmpdir(), "threadlink-turn-"));
  const handle = openDb(dir);
  handle.exec("CREATE TABLE t (n INTEGER)");
  const db = sqliteDatabase(handle, { reader: false });
  const other = new SqliteHandle(join(dir, "threadlink.db"));
  return { handle, db, other };
}

test("a write behind another connection's transaction waits without holding up the thread, then runs", async () => {
  const { db, other } = fresh();
  other.exec("BEGIN IMMEDIATE");
  const single = db.run("INSERT INTO t (n) VALUES (1)");
  const inTx = db.tx(async (q) => q.run("INSERT INTO t (n) VALUES (2)"));
  // The thread goes on: timers fire on time while both wait (SQLite's own wait would block it).
  const started = performance.now();
  await Bun.sleep(30);
  expect(performance.now() - started).toBeLessThan(200);
  expect(db.writeTurn![0]).toBe(1);
  other.exec("COMMIT");
  expect(await single).toBe(1);
  expect(await inTx).toBe(1);
  expect(await db.all("SELECT n FROM t ORDER BY n")).toEqual([{ n: 1 }, { n: 2 }]);
  expect(db.writeTurn![0]).toBe(0);
  other.close();
  await db.close();
});

test("past busy_timeout the write fails with SQLite's busy error (a 503 upstream), writes nothing, and lowers the counter", async () => {
  const { handle, db, other } = fresh();
  handle.exec("PRAGMA busy_timeout = 80");
  other.exec("BEGIN IMMEDIATE");
  const started = performance.now();
  await expect(db.run("INSERT INTO t (n) VALUES (1)")).rejects.toMatchObject({ code: expect.stringMatching(/^SQLITE_BUSY/) });
  expect(performance.now() - started).toBeGreaterThanOrEqual(70);
  expect(db.writeTurn![0]).toBe(0);
  // The connection's own setting is left as it was.
  expect(handle.query("PRAGMA busy_timeout").get()).toEqual({ timeout: 80 });
  other.exec("ROLLBACK");
  expect(await db.all("SELECT n FROM t")).toEqual([]);
  other.close();
  await db.close();
});

test("a caller that turns busy_timeout off around a write for a moment does not leave it off", async () => {
  // As the webhook loop's claim did (webhooks/store.ts): busy_timeout 0 while the write starts,
  // restored once it has. The write went on waiting, and each later try put back the 0 it had
  // read at its start: every app write after it then failed at once behind the click writer.
  const { handle, db, other } = fresh();
  other.exec("BEGIN IMMEDIATE");
  handle.exec("PRAGMA busy_timeout = 0");
  const write = db.run("INSERT INTO t (n) VALUES (1)").catch((e) => e);
  handle.exec("PRAGMA busy_timeout = 5000");
  await Bun.sleep(30);
  other.exec("COMMIT");
  await write;
  expect(busyTimeoutOf(handle)).toBe(5000);
  // A write behind the lock now waits for it again, rather than failing at once.
  other.exec("BEGIN IMMEDIATE");
  const later = db.run("INSERT INTO t (n) VALUES (2)");
  await Bun.sleep(30);
  other.exec("COMMIT");
  expect(await later).toBe(1);
  other.close();
  await db.close();
});

test("reads and free-lock writes go at once; a statement error is the statement's, not a wait", async () => {
  const { db } = fresh();
  expect(await db.run("INSERT INTO t (n) VALUES (5)")).toBe(1);
  expect(await db.get("SELECT n FROM t")).toEqual({ n: 5 });
  await expect(db.run("INSERT INTO nope VALUES (1)")).rejects.toThrow(/no such table/);
  expect(db.writeTurn![0]).toBe(0);
  await db.close();
});

test("the click worker's side holds back while app writes wait, at most APP_FIRST_MS, and not at all otherwise", () => {
  const turn = newWriteTurn();
  let started = performance.now();
  letAppWritesFirst(turn);
  expect(performance.now() - started).toBeLessThan(20);
  turn[0] = 1;
  started = performance.now();
  letAppWritesFirst(turn);
  const held = performance.now() - started;
  expect(held).toBeGreaterThanOrEqual(APP_FIRST_MS - 5);
  expect(held).toBeLessThan(APP_FIRST_MS + 500);
  letAppWritesFirst(null);
});

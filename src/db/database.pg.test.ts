// The Database interface on a real PostgreSQL 15 (a throwaway cluster): the same answers as
// on SQLite (database.test.ts) for what the stores rely on.
import { afterAll, describe, expect, test } from "bun:test";
import { startCluster } from "../../scripts/lib/pgcluster";
import { isUniqueViolation, uniqueOr } from "./constraints";
import { type Database, pgDatabase } from "./database";
import { openPg } from "./pg";
import { openDatabase, PG_SESSION } from "./connect";
import { conflict } from "../shared/errors";

const cluster = await startCluster();
const dbs: Database[] = [];
afterAll(async () => {
  for (const d of dbs) await d.close();
  await cluster.stop();
});
const fresh = async () => {
  const db = pgDatabase(openPg(await cluster.createDatabase(), { max: 4, bigint: true }));
  dbs.push(db);
  await db.run("CREATE TABLE t (id integer PRIMARY KEY, v text UNIQUE, big bigint)");
  return db;
};

describe("pgDatabase", () => {
  test("?, ?N and $name placeholders; booleans and undefined bind as 1 and null; 64-bit integers are numbers", async () => {
    const db = await fresh();
    expect(await db.run("INSERT INTO t (id, v, big) VALUES (?, ?, ?)", 1, "a", 2 ** 40)).toBe(1);
    expect(await db.run("INSERT INTO t (id, v, big) VALUES ($id, $v, $id)", { id: 2, v: undefined })).toBe(1);
    expect(await db.get("SELECT CAST(? AS integer) AS b", true)).toEqual({ b: 1 });
    expect(await db.all("SELECT id, v, big FROM t WHERE id IN (?2, ?1) ORDER BY id", 1, 2)).toEqual([
      { id: 1, v: "a", big: 2 ** 40 },
      { id: 2, v: null, big: 2 },
    ]);
    expect(await db.get("SELECT COUNT(*) AS n FROM t")).toEqual({ n: 2 });
    expect(await db.get("SELECT * FROM t WHERE id = 9")).toBeNull();
    expect(await db.run("UPDATE t SET v = 'z' WHERE id > 5")).toBe(0);
  });

  test("a transaction commits as a whole or not at all, on one connection", async () => {
    const db = await fresh();
    await expect(
      db.tx(async (q) => {
        await q.run("INSERT INTO t (id, v) VALUES (1, 'a')");
        await q.run("INSERT INTO t (id, v) VALUES (2, 'a')");
      }),
    ).rejects.toThrow();
    expect(await db.all("SELECT * FROM t")).toEqual([]);
    const pid = await db.tx(async (q) => {
      const a = await q.get<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      const b = await q.get<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      expect(a).toEqual(b);
      return a!.pid;
    });
    expect(typeof pid).toBe("number");
  });

  test("the app's connections bound lock waits and idle transactions, and never JIT-compile a plan", async () => {
    const { db } = await openDatabase({ dataDir: "", databaseUrl: await cluster.createDatabase() });
    dbs.push(db);
    expect(await db.get("SHOW lock_timeout")).toEqual({ lock_timeout: PG_SESSION.lock_timeout });
    expect(await db.get("SHOW idle_in_transaction_session_timeout")).toEqual({ idle_in_transaction_session_timeout: PG_SESSION.idle_in_transaction_session_timeout });
    // The server's default is on; each of the app's connections (the reports' too) says off.
    expect(await db.reads.get("SHOW jit")).toEqual({ jit: "off" });
  });

  test("a unique clash is recognised (SQLSTATE 23505) and mapped like SQLite's", async () => {
    const db = await fresh();
    await db.run("INSERT INTO t (id, v) VALUES (1, 'a')");
    const clash = await db.run("INSERT INTO t (id, v) VALUES (2, 'a')").catch((e) => e);
    expect(isUniqueViolation(clash)).toBe(true);
    const other = await db.run("INSERT INTO t (id, v) VALUES (NULL, 'b')").catch((e) => e);
    expect(isUniqueViolation(other)).toBe(false);
    const mapped = await uniqueOr(() => db.run("INSERT INTO t (id, v) VALUES (3, 'a')"), () => conflict("taken")).catch((e) => e);
    expect(mapped.code).toBe("CONFLICT");
  });
});

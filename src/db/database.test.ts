// The Database interface on SQLite, and the placeholder translation PostgreSQL's side relies on
// (database.pg.test.ts runs the same behaviours on a real PostgreSQL).
import { Database as Sqlite } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { sqliteDatabase, toPostgres } from "./database";

describe("toPostgres", () => {
  test("numbers ? in order, keeps ?N, names $name by first use", () => {
    expect(toPostgres("SELECT ? , ?").text).toBe("SELECT $1 , $2");
    expect(toPostgres("WHERE a = ?2 AND b = ?1 AND c = ?1").text).toBe("WHERE a = $2 AND b = $1 AND c = $1");
    expect(toPostgres("VALUES ($u, $h, $u)")).toEqual({ text: "VALUES ($1, $2, $1)", names: ["u", "h"] });
  });
  test("leaves quoted text alone", () => {
    expect(toPostgres(`SELECT '?', "a?b", '$x' , ?`).text).toBe(`SELECT '?', "a?b", '$x' , $1`);
    expect(toPostgres("SELECT 'it''s ?' , ?").text).toBe("SELECT 'it''s ?' , $1");
  });
});

const fresh = () => {
  const db = sqliteDatabase(new Sqlite(":memory:", { strict: true }));
  db.sqlite!.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT UNIQUE)");
  return db;
};

describe("sqliteDatabase", () => {
  test("all, get, run with positional and named values; booleans and undefined bind as 1 and null", async () => {
    const db = fresh();
    expect(await db.run("INSERT INTO t (id, v) VALUES (?, ?)", 1, "a")).toBe(1);
    expect(await db.run("INSERT INTO t (id, v) VALUES ($id, $v)", { id: 2, v: undefined })).toBe(1);
    expect(await db.get("SELECT ? AS b", true)).toEqual({ b: 1 });
    expect(await db.all("SELECT id, v FROM t ORDER BY id")).toEqual([
      { id: 1, v: "a" },
      { id: 2, v: null },
    ]);
    expect(await db.get("SELECT * FROM t WHERE id = 9")).toBeNull();
  });

  test("a transaction commits as a whole or not at all", async () => {
    const db = fresh();
    await expect(
      db.tx(async (q) => {
        await q.run("INSERT INTO t (id, v) VALUES (1, 'a')");
        await q.run("INSERT INTO t (id, v) VALUES (2, 'a')"); // unique clash
      }),
    ).rejects.toThrow();
    expect(await db.all("SELECT * FROM t")).toEqual([]);
    expect(await db.tx(async (q) => q.run("INSERT INTO t (id, v) VALUES (1, 'a')"))).toBe(1);
    expect(db.sqlite!.inTransaction).toBe(false);
  });

  test("another request's statement waits for an open transaction instead of running inside it", async () => {
    const db = fresh();
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const tx = db.tx(async (q) => {
      await q.run("INSERT INTO t (id, v) VALUES (1, 'in tx')");
      order.push("tx wrote");
      await gate; // the transaction's body awaits something else
      throw new Error("rolled back");
    });
    // Issued while the transaction is open: had it run inside, the rollback would undo it.
    const outside = db.run("INSERT INTO t (id, v) VALUES (2, 'outside')").then(() => order.push("outside wrote"));
    await Bun.sleep(5);
    expect(order).toEqual(["tx wrote"]);
    release();
    await expect(tx).rejects.toThrow("rolled back");
    await outside;
    expect(order).toEqual(["tx wrote", "outside wrote"]);
    expect(await db.all("SELECT id, v FROM t")).toEqual([{ id: 2, v: "outside" }]);
  });

  test("the database used inside its own transaction fails at once (tests only), instead of waiting for itself", async () => {
    const db = fresh();
    await expect(db.tx(async () => db.run("INSERT INTO t (id, v) VALUES (1, 'a')"))).rejects.toThrow("use the transaction's handle (q)");
    expect(await db.all("SELECT * FROM t")).toEqual([]);
  });

  test("work a finished transaction started (a timer) waits for a later transaction instead of failing as if inside it", async () => {
    const db = fresh();
    let late!: Promise<number>;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    await db.tx(async (q) => {
      await q.run("INSERT INTO t (id, v) VALUES (1, 'first')");
      // Started inside the first transaction, run while the second is open: the context it keeps
      // is the first's (as an event wake's timer is), which has committed.
      late = new Promise((resolve, reject) => setTimeout(() => db.run("INSERT INTO t (id, v) VALUES (3, 'late')").then(resolve, reject), 5));
    });
    const second = db.tx(async (q) => {
      await q.run("INSERT INTO t (id, v) VALUES (2, 'second')");
      await gate;
    });
    await Bun.sleep(20);
    release();
    await second;
    expect(await late).toBe(1);
    expect(await db.all("SELECT id FROM t ORDER BY id")).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
  });

  test("transactions run one after another", async () => {
    const db = fresh();
    const add = (i: number) =>
      db.tx(async (q) => {
        const n = (await q.get<{ n: number }>("SELECT COUNT(*) AS n FROM t"))!.n;
        await Bun.sleep(1);
        await q.run("INSERT INTO t (id, v) VALUES (?, ?)", n + 1, String(i));
      });
    await Promise.all([1, 2, 3, 4, 5].map(add));
    expect((await db.all<{ id: number }>("SELECT id FROM t ORDER BY id")).map((r) => r.id)).toEqual([1, 2, 3, 4, 5]);
  });
});

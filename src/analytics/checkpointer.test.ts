import { expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "../db/open";
import { startCheckpointer } from "./checkpointer";

const autocheckpoint = (db: ReturnType<typeof openDb>) => (db.query("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number }).wal_autocheckpoint;

test("checkpoints run in the worker; the app's connection stops checkpointing until stop()", async () => {
  const dir = mkdtempSync(join(tmpdir(), "threadlink-ckpt-"));
  const db = openDb(dir);
  try {
    db.exec("CREATE TABLE t (x TEXT)");
    const c = startCheckpointer(db, 50);
    for (let i = 0; i < 100 && autocheckpoint(db) !== 0; i++) await Bun.sleep(20);
    expect(autocheckpoint(db)).toBe(0);
    // 2,000+ pages in the WAL: SQLite would have checkpointed on commit; now the worker does.
    const insert = db.prepare("INSERT INTO t VALUES (?)");
    db.transaction(() => {
      for (let i = 0; i < 3000; i++) insert.run("x".repeat(3000));
    })();
    const file = join(dir, "threadlink.db");
    // Only a checkpoint writes pages into the database file, and this connection no longer
    // makes any: the rows reaching the file is the worker's doing.
    expect(statSync(file).size).toBeLessThan(1_000_000);
    for (let i = 0; i < 100 && statSync(file).size < 3000 * 3000; i++) await Bun.sleep(20);
    expect(statSync(file).size).toBeGreaterThan(3000 * 3000);
    await c.stop();
    expect(autocheckpoint(db)).toBe(1000);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

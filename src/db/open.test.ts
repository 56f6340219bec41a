// Opening the app's file while another connection holds it for a moment (a process shutting
// down checkpoints and removes the WAL under an exclusive lock; after a crash the first reader
// replays the WAL) waits, as every statement does, instead of failing start-up at once.
import { expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dbPath, openDb, openDbFile } from "./open";

test("a connection opened while another process holds the file's lock waits for it, then opens", async () => {
  const dir = mkdtempSync(join(tmpdir(), "threadlink-open-"));
  openDb(dir).close();
  const path = dbPath(dir);
  // A real second process: the lock must be held while this thread is inside SQLite.
  const holder = Bun.spawn(
    [
      process.execPath,
      "-e",
      `const { Database } = require("bun:sqlite");
       const d = new Database(${JSON.stringify(path)});
       d.exec("PRAGMA locking_mode = EXCLUSIVE");
       d.exec("BEGIN EXCLUSIVE");
       console.log("held");
       await Bun.sleep(400);
       d.exec("COMMIT");
       d.close();`,
    ],
    { stdout: "pipe", stderr: "inherit" },
  );
  const reader = holder.stdout.getReader();
  expect(new TextDecoder().decode((await reader.read()).value)).toContain("held");
  const started = performance.now();
  const db = openDbFile(path);
  const waited = performance.now() - started;
  expect((db.query("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode).toBe("wal");
  expect(waited).toBeGreaterThan(100);
  db.close();
  expect(await holder.exited).toBe(0);
});

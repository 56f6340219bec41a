import { Database } from "bun:sqlite";
import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";

export type Db = Database;

export function dbPath(dataDir: string) {
  return join(dataDir, "threadlink.db");
}

/** WAL_LIMIT_MB's default, in bytes: where a connection opened without the setting cuts the WAL. */
export const DEFAULT_WAL_LIMIT_BYTES = 64 * 1024 * 1024;
/**
 * Past this much of WAL_LIMIT_MB the WAL is checkpointed and truncated (clickWorker.ts watchWal)
 * and bulk writes wait for it (service.ts writeGap). A quarter: what one transaction writes must
 * fit in the rest, and a bulk batch of 100 links wrote ~5 MB at 16 KB pages once the search
 * index kept prefixes (at half, an 8 MB limit was passed at 9.0–9.5 MB).
 */
export const walCheckpointAt = (limitBytes: number) => limitBytes / 4;

/** Opens (creating if needed) the database with the pragmas the whole app relies on. */
export function openDb(dataDir: string, walLimitBytes = DEFAULT_WAL_LIMIT_BYTES): Db {
  mkdirSync(dataDir, { recursive: true });
  return openDbFile(dbPath(dataDir), walLimitBytes);
}

/** The same pragmas for any connection to the app's file (the click writer opens its own). */
export function openDbFile(path: string, walLimitBytes = DEFAULT_WAL_LIMIT_BYTES): Db {
  const db = new Database(path, { create: true, strict: true });
  // First: the pragmas below read the file, and another connection may hold it for a moment
  // (the click worker opens while the request thread reads; after a crash the first reader
  // replays the WAL). Without a timeout SQLite fails at once with "database is locked", and
  // start-up with it (the killed-process test, one run in two after the reader was warmed
  // beside the worker's open).
  db.exec("PRAGMA busy_timeout = 5000");
  // 16 KB pages for a new database (an existing one keeps its size: changing it needs a VACUUM
  // outside WAL mode). The click writer appends ~290-byte rows and rewrites the count and
  // per-link index pages it touches: with 4 KB pages that was a quarter of the bytes per write
  // call and B-tree step, and a click cost 8.9-9.1 µs against 7.3-7.8 (docs/performance.md).
  db.exec("PRAGMA page_size = 16384");
  // WAL lets readers run beside the single writer; NORMAL is durable across process crashes
  // in WAL mode (only an OS crash can lose the last commits) and ~10x faster than FULL.
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
  // Each time the WAL is rewound (after a complete checkpoint), the file is cut back to this
  // size instead of keeping its high-water mark on disk (issue 21: 11 GB after a bulk load,
  // still 11 GB after a restart). The click worker's checkpoints truncate it when it passes a quarter (walCheckpointAt).
  db.exec(`PRAGMA journal_size_limit = ${Math.floor(walLimitBytes)}`);
  return db;
}

/** The size of a database file's WAL now, in bytes (0 when it has none). */
export function walBytes(path: string) {
  try {
    return statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
}

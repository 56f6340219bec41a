// Moves SQLite's WAL checkpoints off the request thread. By default the connection that commits
// also checkpoints (every 1,000 WAL pages), and a checkpoint copies pages back and fsyncs the
// database file: under a burst of click writes that is the largest single cost, paid inside a
// visitor's request. Here a worker thread with its own connection checkpoints PASSIVE-ly every
// second, and the app's connection never checkpoints while the worker is alive.
import type { Db } from "../db/open";
import { log } from "../http/log";

// The worker is plain JavaScript with no imports but bun:sqlite, loaded from a Blob URL: the
// compiled binary then needs no extra build entrypoint. It runs no feature SQL, only pragmas.
const WORKER_SOURCE = `
import { Database } from "bun:sqlite";
let db = null;
let timer = null;
self.onmessage = (e) => {
  const m = e.data;
  if (m.type === "open") {
    try {
      db = new Database(m.path);
      db.exec("PRAGMA busy_timeout = 1000");
      timer = setInterval(() => {
        try { db.query("PRAGMA wal_checkpoint(PASSIVE)").get(); } catch (err) { postMessage({ type: "error", message: String(err) }); }
      }, m.intervalMs);
      postMessage({ type: "ready" });
    } catch (err) {
      postMessage({ type: "error", message: String(err) });
    }
  } else if (m.type === "close") {
    if (timer) clearInterval(timer);
    try { db?.query("PRAGMA wal_checkpoint(PASSIVE)").get(); db?.close(); } catch {}
    postMessage({ type: "closed" });
  }
};
`;

const DEFAULT_AUTOCHECKPOINT = 1000;

export function startCheckpointer(db: Db, intervalMs = 1000) {
  const path = db.filename;
  if (!path || path === ":memory:") return { stop: async () => {} };
  let worker: Worker | null = null;
  let closed: (() => void) | null = null;
  const restore = () => {
    try {
      db.exec(`PRAGMA wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
    } catch {
      /* the database is already closed */
    }
  };
  try {
    const url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "application/javascript" }));
    worker = new Worker(url);
    // Never keeps the process alive by itself (tests open many apps in one process).
    (worker as unknown as { unref(): void }).unref();
    worker.onmessage = (e: MessageEvent<{ type: string; message?: string }>) => {
      if (e.data.type === "ready") db.exec("PRAGMA wal_autocheckpoint = 0");
      else if (e.data.type === "closed") closed?.();
      else if (e.data.type === "error") {
        // Fall back to SQLite's own checkpoints rather than let the WAL grow.
        log.warn("background checkpoint failed; using SQLite's own", { error: e.data.message });
        restore();
      }
    };
    worker.onerror = (e) => {
      log.warn("checkpoint worker stopped; using SQLite's own checkpoints", { error: String(e.message) });
      restore();
    };
    worker.postMessage({ type: "open", path, intervalMs });
  } catch (e) {
    log.warn("checkpoint worker unavailable; using SQLite's own checkpoints", { error: String(e) });
    restore();
  }

  return {
    /** Before the database closes: the app's connection checkpoints again, the worker goes. */
    async stop() {
      restore();
      if (!worker) return;
      const w = worker;
      worker = null;
      const done = new Promise<void>((r) => (closed = r));
      w.postMessage({ type: "close" });
      await Promise.race([done, Bun.sleep(1000)]);
      w.terminate();
    },
  };
}

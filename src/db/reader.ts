// The reader thread's client (issue 21): reads that take milliseconds at real size — analytics
// reports, click pages, list pages, export batches — run on a worker thread with its own
// connection to the SQLite file, so the thread that answers redirects only waits for a message,
// never for SQLite. Measured (docs/performance.md, tenant-scale.ts): on the request thread, one
// client looping on a 100,000-link export held redirects for up to 642 ms at a time. WAL lets the
// reader run beside the writers and see every transaction committed before the read was sent,
// so a page read right after a write shows it.
import type { SQLQueryBindings } from "bun:sqlite";
import type { FromReader, ToReader } from "./readerWorker";

// A separate entrypoint, so the compiled binary carries it (scripts/build.ts): there this module
// is bundled into main.js at the root of the binary's file system while the worker keeps its
// place under db/; from source it sits next to this file.
const WORKER_URL = import.meta.url.includes("$bunfs") ? new URL("./db/readerWorker.ts", import.meta.url) : new URL("./readerWorker.ts", import.meta.url);

type Pending = { resolve: (rows: unknown) => void; reject: (e: Error) => void };

export type SqliteReader = {
  read(one: boolean, text: string, params: SQLQueryBindings[]): Promise<unknown>;
  close(): void;
};

/** A reader for the file; its thread starts with the first read and again after a crash. */
export function sqliteReader(file: string): SqliteReader {
  let worker: Worker | null = null;
  let nextId = 1;
  const pending = new Map<number, Pending>();
  const failAll = (why: string) => {
    for (const p of pending.values()) p.reject(new Error(why));
    pending.clear();
  };
  const start = () => {
    // smol: JavaScriptCore's small heap; the reader holds one result at a time.
    const w = new Worker(WORKER_URL, { smol: true });
    // Never keeps the process alive by itself (tests open many apps in one process).
    (w as unknown as { unref(): void }).unref();
    w.onmessage = (e: MessageEvent<FromReader>) => {
      const m = e.data;
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if ("error" in m) p.reject(Object.assign(new Error(m.error), { code: m.code }));
      else p.resolve(m.rows);
    };
    w.onerror = (e) => {
      worker = null;
      failAll(`the reader thread failed: ${e.message}`);
    };
    w.postMessage({ type: "open", file } satisfies ToReader);
    return w;
  };
  return {
    read(one, text, params) {
      worker ??= start();
      const id = nextId++;
      const w = worker;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        w.postMessage({ type: "read", id, one, text, params } satisfies ToReader);
      });
    },
    close() {
      worker?.terminate();
      worker = null;
      failAll("the database was closed");
    },
  };
}

// The webhook sender thread: the delivery loop (./worker.ts) on a Bun Worker with its own
// database connection, so the thread that answers redirects never claims, reads a ~100 KB body,
// signs, sends or records a delivery (./sender.ts starts it; docs/decisions.md, session 15).
// It is a separate entrypoint of the compiled binary (scripts/build.ts).
//
// Messages in:  open {path, url, writeTurn, config} · wake · poke · close
// Messages out: ready · closed · error {message}
//
// SQLite: its writes wait for the lock asynchronously and say so in the request thread's write
// turn (src/db/writeTurn.ts), so the click worker lets them in between its batches as it lets
// the app's in. PostgreSQL: a pool of its own, two connections.
import type { Database } from "../db/database";
import { pgDatabase, sqliteDatabase } from "../db/database";
import { PG_SESSION } from "../db/connect";
import { openDbFile } from "../db/open";
import { openPg } from "../db/pg";
import type { Wake } from "../events/feed";
import { startWebhookWorker, type WebhookLoopContext } from "./worker";

export type ToSender =
  | {
      type: "open";
      /** The SQLite file, when there is no `url`. */
      path: string;
      /** DATABASE_URL on PostgreSQL. */
      url: string | null;
      writeTurn: SharedArrayBuffer | null;
      /** WAL_LIMIT_MB in bytes: the same journal_size_limit as the app's other connections. */
      walLimitBytes: number;
      config: WebhookLoopContext["config"];
    }
  | { type: "wake" }
  | { type: "poke" }
  | { type: "close" };
export type FromSender = { type: "ready" } | { type: "closed" } | { type: "error"; message: string };

declare const self: Worker;
const send = (m: FromSender) => self.postMessage(m);

let db: Database | null = null;
let ctx: WebhookLoopContext | null = null;
let loop: { poke(): Promise<void> } | null = null;
const listeners = new Set<(w: Wake) => void>();

self.onmessage = (e: MessageEvent<ToSender>) => {
  const m = e.data;
  if (m.type === "open") {
    try {
      if (m.url) db = pgDatabase(openPg(m.url, { max: 2, bigint: true, connection: PG_SESSION }));
      else {
        const handle = openDbFile(m.path, m.walLimitBytes);
        // The click worker checkpoints the WAL (src/analytics/clickWorker.ts). Left at SQLite's
        // default, each commit of this connection past 1,000 WAL pages copied the WAL into the
        // file itself: under a click flood that was most of this thread's CPU (perf: pwrite,
        // ext4 writeback), ~1.4 ms a delivery.
        handle.exec("PRAGMA wal_autocheckpoint = 0");
        db = sqliteDatabase(handle, { reader: false, ...(m.writeTurn ? { writeTurn: new Int32Array(m.writeTurn) } : {}) });
      }
      ctx = { db, config: m.config, shutdownHooks: [] };
      // The request thread's feed (in-process commits on SQLite, LISTEN on PostgreSQL) wakes it
      // through messages; it was listening before this thread was started.
      loop = startWebhookWorker(ctx, { on: (fn) => (listeners.add(fn), () => listeners.delete(fn)), ready: Promise.resolve() });
      send({ type: "ready" });
    } catch (err) {
      send({ type: "error", message: `webhook sender could not open the database: ${String(err)}` });
    }
    return;
  }
  if (m.type === "wake") for (const l of listeners) l({ range: null });
  else if (m.type === "poke") void loop?.poke();
  else if (m.type === "close") {
    void (async () => {
      try {
        // Attempts under way are recorded first (./worker.ts), then the connection closes.
        for (const h of ctx?.shutdownHooks ?? []) await h();
        await db?.close();
      } catch (err) {
        send({ type: "error", message: `webhook sender did not close cleanly: ${String(err)}` });
      }
      db = null;
      send({ type: "closed" });
    })();
  }
};

// The reader thread (src/db/reader.ts): its own connection to the app's SQLite file, running the
// report reads the request thread hands it, one at a time, and posting the rows back. Only
// reads: the connection is query_only, so a store that sent a write here would fail loudly.
import { Database, type SQLQueryBindings } from "bun:sqlite";

declare const self: Worker;

export type ToReader = { type: "open"; file: string } | { type: "read"; id: number; one: boolean; text: string; params: SQLQueryBindings[] };
export type FromReader = { id: number; rows: unknown } | { id: number; error: string; code: string | undefined };

let db: Database | null = null;

self.onmessage = (e: MessageEvent<ToReader>) => {
  const m = e.data;
  if (m.type === "open") {
    // strict: the same binding rules as the request thread's connection (src/db/open.ts).
    db = new Database(m.file, { strict: true });
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("PRAGMA query_only = ON");
    return;
  }
  try {
    const statement = db!.query(m.text);
    const rows = m.one ? (statement.get(...m.params) ?? null) : statement.all(...m.params);
    self.postMessage({ id: m.id, rows } satisfies FromReader);
  } catch (err) {
    const error = err as { message?: string; code?: string };
    self.postMessage({ id: m.id, error: String(error.message ?? err), code: error.code } satisfies FromReader);
  }
};

// The click worker: a Bun Worker with its own SQLite connection. The request thread posts raw
// clicks here in batches; this thread parses, locates and writes them (src/analytics/writer.ts)
// and also runs the WAL checkpoints, so neither ever happens inside a visitor's request.
// It is a separate entrypoint of the compiled binary (scripts/build.ts).
//
// Messages in:  open {path, ipStorage, geoipDb, checkpointMs} · batch {clicks} · flush {id} · close
// Messages out: ready · written {n} · flushed {id, ok} · closed · error {message}
// Messages are handled in order, so a flush is answered only after every batch posted before it.
import type { Db } from "../db/open";
import { openDbFile } from "../db/open";
import type { RawClick } from "./recorder";
import { ClickWriter, type IpStorage } from "./writer";

declare const self: Worker;

export type ToWorker =
  | { type: "open"; path: string; ipStorage: IpStorage; geoipDb: string | null; checkpointMs: number }
  | { type: "batch"; clicks: RawClick[] }
  | { type: "flush"; id: number }
  | { type: "close" };

export type FromWorker =
  | { type: "ready" }
  | { type: "written"; n: number }
  | { type: "flushed"; id: number; ok: boolean }
  | { type: "closed" }
  | { type: "error"; message: string };

// Clicks whose write failed (a locked or full disk may recover), retried first; bounded.
const MAX_PENDING = 50_000;
const RETRY_MS = 1_000;

let db: Db | null = null;
let writer: ClickWriter | null = null;
let ready: Promise<void> = Promise.resolve();
let pending: RawClick[] = [];
let retry: ReturnType<typeof setTimeout> | null = null;
let checkpoints: ReturnType<typeof setInterval> | null = null;

const send = (m: FromWorker) => self.postMessage(m);

/** Writes what is pending; false (and a retry scheduled) when the database refused. */
function drain(): boolean {
  if (pending.length === 0) return true;
  if (!writer) return false;
  const batch = pending;
  pending = [];
  try {
    send({ type: "written", n: writer.write(batch) });
    return true;
  } catch (e) {
    const dropped = Math.max(0, batch.length + pending.length - MAX_PENDING);
    pending = batch.concat(pending).slice(dropped);
    send({ type: "error", message: `click write failed (${pending.length} waiting${dropped ? `, ${dropped} dropped` : ""}): ${String(e)}` });
    retry ??= setTimeout(() => {
      retry = null;
      drain();
    }, RETRY_MS);
    return false;
  }
}

function checkpoint() {
  try {
    db?.query("PRAGMA wal_checkpoint(PASSIVE)").get();
  } catch (e) {
    send({ type: "error", message: `checkpoint failed: ${String(e)}` });
  }
}

self.onmessage = async (e: MessageEvent<ToWorker>) => {
  const m = e.data;
  if (m.type === "open") {
    try {
      db = openDbFile(m.path);
      writer = new ClickWriter(db, { ipStorage: m.ipStorage, geoipDb: m.geoipDb });
      // Clicks wait for the location databases rather than being stored without a place.
      ready = writer.geo.load();
      checkpoints = setInterval(checkpoint, m.checkpointMs);
      send({ type: "ready" });
    } catch (err) {
      send({ type: "error", message: `click writer could not open the database: ${String(err)}` });
    }
    return;
  }
  await ready;
  if (m.type === "batch") {
    for (const c of m.clicks) pending.push(c);
    drain();
  } else if (m.type === "flush") {
    send({ type: "flushed", id: m.id, ok: drain() });
  } else if (m.type === "close") {
    if (retry) clearTimeout(retry);
    if (checkpoints) clearInterval(checkpoints);
    drain();
    checkpoint();
    db?.close();
    db = null;
    writer = null;
    send({ type: "closed" });
  }
};

// The click worker: a Bun Worker with its own SQLite connection, or on PostgreSQL its own
// connection to DATABASE_URL. The request thread posts raw clicks here in batches; this thread
// parses, locates and writes them (src/analytics/writer.ts, pgWriter.ts) and on SQLite also runs
// the WAL checkpoints, so neither ever happens inside a visitor's request.
// It is a separate entrypoint of the compiled binary (scripts/build.ts).
//
// Messages in:  open {path, url, ipStorage, geoipDb, checkpointMs, coalesceMs, foldEvery, retentionDays,
//               detailPerMinute, walLimitBytes} · batch {data, n}
//               · counts {counts: [linkId, n][]} (clicks the recorder could not keep: counted only) · flush {id}
//               · maintain {id} (the backfill and retention run to the end now: tests) · close
// Messages out: ready · written {n} (written, or given up on) · flushed {id, ok} · maintained {id, ok} · closed · error {message}
//
// Besides the clicks, this thread runs two background jobs in small transactions between click
// batches (never inside a request): the one-time roll-up backfill of clicks stored before the
// writer kept roll-ups (migrations/0012), and retention (CLICK_RETENTION_DAYS), which deletes
// click rows older than that a thousand at a time while the tallies keep them.
// Messages are handled in order, so a flush is answered only after every batch posted before it.
import { statSync } from "node:fs";
import type { Db } from "../db/open";
import { openDbFile, walCheckpointAt } from "../db/open";
import { decodeClicks, type FromWorker, type ToWorker } from "./clickMessages";
import { ClickWriter, writerConnection } from "./writer";
import { PgClickWriter } from "./pgWriter";
import { RETENTION_CHUNK } from "./writerStore";

declare const self: Worker;

// Clicks per transaction at most. When the writer falls behind, the batches waiting are merged
// into one transaction: a random index page dirtied once serves every click that lands on it,
// so a click costs less the more are written together (docs/performance.md).
const MAX_TX = 8_192;
// ...and at least this many, unless `coalesceMs` (from the recorder) has passed since the first
// of them arrived: a transaction rewrites the same random index pages whether it holds 500
// clicks or 5,000, so a click costs a third less in transactions of thousands
// (docs/performance.md). flush() and close write at once.
const MIN_TX = 4_096;
const RETRY_MS = 1_000;
// With nothing to write for this long, the unfolded tail is folded (writerStore.ts FOLD_EVERY): a
// quiet app's analytics reads and deletes then scan no tail at all.
const IDLE_FOLD_MS = 2_000;

let db: Db | null = null;
let writer: ClickWriter | PgClickWriter | null = null;
// Batches as they came (ClickLines): decoded only when written.
let pending: { data: string; n: number }[] = [];
let pendingCount = 0;
// Counts of clicks the recorder dropped past its bound, added to the links' counts in the next
// transaction (with or without clicks).
let extraCounts = new Map<number, number>();
let retry: ReturnType<typeof setTimeout> | null = null;
let checkpoints: ReturnType<typeof setInterval> | null = null;
let walWatch: ReturnType<typeof setInterval> | null = null;
const WAL_WATCH_MS = 25;
let scheduled: ReturnType<typeof setTimeout> | null = null;
let idleFold: ReturnType<typeof setTimeout> | null = null;
let coalesceMs = 0;
let walPath = "";
let walLimitBytes = 0;
let retentionDays: number | null = null;
let jobTimer: ReturnType<typeof setTimeout> | null = null;
// The first run waits for start-up to settle; then retention looks again this often.
const JOBS_FIRST_MS = 1_000;
const RETENTION_EVERY_MS = 60_000;

const send = (m: FromWorker) => self.postMessage(m);

/**
 * Writes what is pending; false (and a retry scheduled) when the database refused. One drain
 * at a time: PostgreSQL's writes are awaited, and batches arriving meanwhile join the queue.
 */
let draining: Promise<boolean> = Promise.resolve(true);
function drain(): Promise<boolean> {
  draining = draining.then(drainNow);
  return draining;
}

async function drainNow(): Promise<boolean> {
  if (pending.length === 0 && extraCounts.size === 0) return true;
  if (!writer) return false;
  while (pending.length > 0 || extraCounts.size > 0) {
    // Whole batches, up to MAX_TX clicks (a single larger batch goes alone).
    let take = 0;
    let n = 0;
    while (take < pending.length && (take === 0 || n + pending[take]!.n <= MAX_TX)) n += pending[take++]!.n;
    const batches = pending.slice(0, take);
    // Counts arriving while a write is awaited go to the next transaction.
    const extra = extraCounts;
    extraCounts = new Map();
    try {
      const clicks = batches.length === 1 ? decodeClicks(batches[0]!.data) : batches.flatMap((b) => decodeClicks(b.data));
      await writer.write(clicks, extra);
    } catch (e) {
      for (const [linkId, n] of extra) extraCounts.set(linkId, (extraCounts.get(linkId) ?? 0) + n);
      // Kept for the next attempt (a locked or full disk may recover). The recorder bounds what
      // can wait here (MAX_BACKLOG): it stops posting detail rows once that many are unwritten.
      send({ type: "error", message: `click write failed (${pendingCount} waiting): ${String(e)}` });
      retry ??= setTimeout(() => {
        retry = null;
        void drain();
      }, RETRY_MS);
      return false;
    }
    pending = pending.slice(take);
    pendingCount -= n;
    if (n) send({ type: "written", n });
  }
  collect();
  if (idleFold) clearTimeout(idleFold);
  idleFold = setTimeout(foldAll, IDLE_FOLD_MS);
  return true;
}

/**
 * One transaction of a background job, queued behind the click writes (never beside one):
 * the backfill first, then retention. Between steps the thread goes back to its messages, so
 * a click batch waits for one step at most (~5,000 rows of backfill, 1,000 of retention).
 * Resolves true when there is more to do now.
 */
function jobStep(): Promise<boolean> {
  const step = draining.then(async () => {
    if (!writer) return false;
    if (await writer.backfillStep()) return true;
    if (retentionDays === null) return false;
    const cutoff = new Date(Date.now() - retentionDays * 86_400_000).toISOString();
    return (await writer.retentionStep(cutoff)) >= RETENTION_CHUNK;
  });
  draining = step.then(
    () => true,
    () => true,
  );
  return step;
}

/** The jobs in the background: a step, then the thread's other messages, then the next. */
function scheduleJobs(ms: number) {
  if (jobTimer) clearTimeout(jobTimer);
  jobTimer = setTimeout(() => {
    jobTimer = null;
    jobStep().then(
      (more) => {
        if (more) scheduleJobs(0);
        else if (retentionDays !== null) scheduleJobs(RETENTION_EVERY_MS);
      },
      (e) => {
        send({ type: "error", message: `click backfill or retention failed: ${String(e)}` });
        scheduleJobs(RETRY_MS);
      },
    );
  }, ms);
}

/** Every job to its end now (tests): the backfill done, and no click row older than retention left. */
async function maintain() {
  if (jobTimer) clearTimeout(jobTimer);
  jobTimer = null;
  try {
    while (await jobStep());
    return true;
  } catch (e) {
    send({ type: "error", message: `click backfill or retention failed: ${String(e)}` });
    return false;
  } finally {
    if (retentionDays !== null) scheduleJobs(RETENTION_EVERY_MS);
  }
}

function foldAll() {
  idleFold = null;
  try {
    writer?.foldAll();
  } catch (e) {
    // Nothing is lost: the tail stays readable and the next transaction folds it.
    send({ type: "error", message: `click fold failed: ${String(e)}` });
  }
}

/**
 * A full collection of this thread's heap once a transaction is written. Each transaction
 * leaves thousands of decoded clicks behind, and JavaScriptCore sizes its heap by the machine's
 * RAM, so left alone this thread's garbage alone grew the process by ~40 MB under load. The
 * pause is this thread's only (a few ms on a heap this small), never a redirect's.
 */
let lastCollect = 0;
function collect() {
  const now = performance.now();
  if (now - lastCollect < 100) return;
  lastCollect = now;
  Bun.gc(true);
}

/** The WAL file's size now (0 when there is none). */
function walSize() {
  try {
    return statSync(walPath).size;
  } catch {
    return 0;
  }
}

function checkpoint() {
  try {
    db?.query("PRAGMA wal_checkpoint(PASSIVE)").get();
  } catch (e) {
    send({ type: "error", message: `checkpoint failed: ${String(e)}` });
  }
}

/**
 * A PASSIVE checkpoint never rewinds the WAL while others keep writing and reading: it grew to
 * 11 GB under a 1M-link bulk (issue 21). So the WAL's size is looked at every WAL_WATCH_MS (a
 * stat, a few µs) and past a quarter of WAL_LIMIT_MB (walCheckpointAt: what a bulk load writes
 * between two looks, and its transaction, must fit in the rest) it is reset and cut to nothing.
 * A PASSIVE pass first copies nearly every frame without blocking anyone, so the writer lock
 * TRUNCATE holds (other writers wait, through their busy_timeout) covers only the frames
 * written since. Its busy handler waits out the current writer; bulk create and import leave a
 * gap between their transactions for it.
 */
function watchWal() {
  if (!db || walSize() <= walCheckpointAt(walLimitBytes)) return;
  try {
    db.query("PRAGMA wal_checkpoint(PASSIVE)").get();
    db.query("PRAGMA wal_checkpoint(TRUNCATE)").get();
  } catch (e) {
    send({ type: "error", message: `checkpoint failed: ${String(e)}` });
  }
}

self.onmessage = (e: MessageEvent<ToWorker>) => {
  const m = e.data;
  if (m.type === "open") {
    try {
      coalesceMs = m.coalesceMs;
      retentionDays = m.retentionDays;
      if (m.url) {
        // PostgreSQL: nothing to set up on a connection, and no WAL of ours to checkpoint.
        writer = new PgClickWriter(m.url, { ipStorage: m.ipStorage, geoipDb: m.geoipDb, detailPerMinute: m.detailPerMinute });
        scheduleJobs(JOBS_FIRST_MS);
        send({ type: "ready" });
        return;
      }
      db = openDbFile(m.path, m.walLimitBytes);
      walPath = `${m.path}-wal`;
      walLimitBytes = m.walLimitBytes ?? 0;
      writerConnection(db);
      writer = new ClickWriter(db, {
        ipStorage: m.ipStorage,
        geoipDb: m.geoipDb,
        foldEvery: m.foldEvery,
        detailPerMinute: m.detailPerMinute,
        writeTurn: m.writeTurn ? new Int32Array(m.writeTurn) : null,
      });
      scheduleJobs(JOBS_FIRST_MS);
      // The location databases open with the first click that needs a lookup (geo.ts).
      checkpoints = setInterval(checkpoint, m.checkpointMs);
      if (walLimitBytes > 0) walWatch = setInterval(watchWal, WAL_WATCH_MS);
      send({ type: "ready" });
    } catch (err) {
      send({ type: "error", message: `click writer could not open the database: ${String(err)}` });
    }
    return;
  }
  if (m.type === "batch") {
    pending.push({ data: m.data, n: m.n });
    pendingCount += m.n;
    // Enough for a full transaction: written once the messages already queued have been read
    // (a backlog becomes one transaction). Otherwise within coalesceMs.
    const full = pendingCount >= MIN_TX;
    if (full && scheduled) clearTimeout(scheduled);
    if (full || !scheduled) {
      scheduled = setTimeout(
        () => {
          scheduled = null;
          void drain();
        },
        full ? 0 : coalesceMs,
      );
    }
  } else if (m.type === "counts") {
    for (const [linkId, n] of m.counts) extraCounts.set(linkId, (extraCounts.get(linkId) ?? 0) + n);
    scheduled ??= setTimeout(() => {
      scheduled = null;
      void drain();
    }, coalesceMs);
  } else if (m.type === "flush") {
    void drain().then((ok) => send({ type: "flushed", id: m.id, ok }));
  } else if (m.type === "maintain") {
    void maintain().then((ok) => send({ type: "maintained", id: m.id, ok }));
  } else if (m.type === "close") {
    if (jobTimer) clearTimeout(jobTimer);
    jobTimer = null;
    retentionDays = null;
    if (retry) clearTimeout(retry);
    if (scheduled) clearTimeout(scheduled);
    if (checkpoints) clearInterval(checkpoints);
    if (walWatch) clearInterval(walWatch);
    if (idleFold) clearTimeout(idleFold);
    void drain().then(async (ok) => {
      // Written, then folded: the next start finds no tail to scan.
      if (ok) foldAll();
      checkpoint();
      db?.close();
      db = null;
      if (writer instanceof PgClickWriter) await writer.close().catch(() => {});
      writer = null;
      send({ type: "closed" });
    });
  }
};

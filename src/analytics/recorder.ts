// Click recording off the request thread. A redirect only pushes a few raw strings into an
// array; every ~100 ms (or once BATCH clicks wait) the array goes to the click worker in one
// message. The worker (src/analytics/clickWorker.ts, its own SQLite or PostgreSQL connection)
// parses, locates and writes them (and on SQLite runs the WAL checkpoints). Reads that must see
// every click await flush().
import type { Database } from "../db/database";
import { log } from "../http/log";
import { ClickLines, type FromWorker, type RawClick, type ToWorker } from "./clickMessages";
import { eventsWritten } from "../events/feed";

export const FLUSH_INTERVAL_MS = 100;
/** How long the worker gathers batches into one transaction when few clicks arrive. */
export const COALESCE_MS = 200;
/** A captured click is in the database within this (unless the writer is behind or failing). */
export const WRITE_WITHIN_MS = FLUSH_INTERVAL_MS + COALESCE_MS;
/** Clicks posted to the worker in one message at most; a full batch goes at once. */
export const BATCH = 512;
/**
 * Clicks captured but not yet written (here plus in the worker's queue) kept at most: ~100
 * bytes each as ClickLines, so ~5 MB. A redirect never waits for the writer: past this bound
 * (a writer that truly cannot keep up: a slow, full or locked disk) a click's detail row is not
 * kept, but it is still counted, per link, and added to the link's count once the writer has
 * room again (docs/decisions.md, "Overload").
 */
export const MAX_BACKLOG = 50_000;
/** A warning in the log at most this often while clicks are being dropped. */
const DROP_LOG_MS = 10_000;
const FLUSH_TIMEOUT_MS = 10_000;
const CLOSE_TIMEOUT_MS = 5_000;
const CHECKPOINT_MS = 1_000;
const DEFAULT_AUTOCHECKPOINT = 1000;

/**
 * `foldEvery`: clicks per fold of the per-link index (writerStore.ts FOLD_EVERY; tests lower it).
 * `databaseUrl`: DATABASE_URL when the database is PostgreSQL (the worker opens its own connection).
 */
type Opts = {
  ipStorage: "truncated" | "full" | "none";
  geoipDb: string | null;
  maxBacklog?: number | undefined;
  foldEvery?: number | undefined;
  databaseUrl?: string | null | undefined;
  /** WAL_LIMIT_MB in bytes: the worker truncates the SQLite WAL past half of it (clickWorker.ts). */
  walLimitBytes?: number | undefined;
  /** CLICK_RETENTION_DAYS (null or absent: click rows are kept forever). */
  retentionDays?: number | null | undefined;
  /** Detail rows per source, link and minute (tallies.ts DETAIL_PER_MINUTE; tests lower it). */
  detailPerMinute?: number | undefined;
};

/** What `/api/health` shows of the click writer. */
export type ClickStats = {
  /** Captured, not yet known to be written. */
  backlog: number;
  /** The largest backlog since start. */
  highWater: number;
  maxBacklog: number;
  /** Clicks whose detail rows were not kept since start (each still counted for its link). */
  dropped: number;
  /** Dropped clicks whose counts have not reached the database yet. */
  uncounted: number;
};

// The worker is a separate entrypoint, so the compiled binary carries it (scripts/build.ts).
// There this module is bundled into main.js at the root of the binary's file system, while the
// worker keeps its place under analytics/; from source it sits next to this file.
const WORKER_URL = import.meta.url.includes("$bunfs")
  ? new URL("./analytics/clickWorker.ts", import.meta.url)
  : new URL("./clickWorker.ts", import.meta.url);

export class ClickRecorder {
  private buffer = new ClickLines();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private worker: Worker | null = null;
  /** Clicks handed to the worker, and those it reported written: the difference is in flight. */
  private posted = 0;
  private written = 0;
  private dropped = 0;
  private highWater = 0;
  private lastDropLog = 0;
  /** Per link, clicks dropped past MAX_BACKLOG whose counts the worker has not been sent yet. */
  private uncounted = new Map<number, number>();
  private uncountedTotal = 0;
  private nextFlush = 1;
  private flushes = new Map<number, (ok: boolean) => void>();
  private onClosed: (() => void) | null = null;

  constructor(
    private db: Database,
    private opts: Opts,
  ) {
    if (db.dialect === "postgres" && !opts.databaseUrl) throw new Error("ClickRecorder on PostgreSQL needs opts.databaseUrl");
  }

  /**
   * Called on the request path: O(1), never touches the database and never makes the redirect
   * wait. Past MAX_BACKLOG only the click's link is counted (see MAX_BACKLOG).
   */
  capture(click: RawClick) {
    const backlog = this.backlog;
    if (backlog >= this.maxBacklog) {
      this.drop(click.linkId);
      return;
    }
    if (backlog >= this.highWater) this.highWater = backlog + 1;
    this.buffer.add(click);
    if (this.buffer.length >= BATCH) this.post();
    // The timer exists only while clicks wait, so an idle app has none pending.
    else this.timer ??= setTimeout(() => this.post(), FLUSH_INTERVAL_MS);
  }

  private get maxBacklog() {
    return this.opts.maxBacklog ?? MAX_BACKLOG;
  }

  stats(): ClickStats {
    return { backlog: this.backlog, highWater: this.highWater, maxBacklog: this.maxBacklog, dropped: this.dropped, uncounted: this.uncountedTotal };
  }

  /** Clicks captured and not yet known to be written. */
  get backlog() {
    return this.posted - this.written + this.buffer.length;
  }

  private drop(linkId: number) {
    this.dropped++;
    this.uncountedTotal++;
    this.uncounted.set(linkId, (this.uncounted.get(linkId) ?? 0) + 1);
    const now = Date.now();
    if (now - this.lastDropLog >= DROP_LOG_MS) {
      this.lastDropLog = now;
      log.warn("click writer behind: detail rows of new clicks not kept, their links still counted", { dropped: this.dropped, backlog: this.backlog, maxBacklog: this.maxBacklog });
    }
  }

  /**
   * Sends the dropped clicks' counts to the worker once it has room again (under half the
   * bound), or at a flush: they are then added to the links' counts in its next transaction.
   */
  private postUncounted(force = false) {
    if (this.uncountedTotal === 0) return;
    if (!force && this.backlog >= this.maxBacklog / 2) return;
    const w = this.worker ?? this.start();
    const counts = [...this.uncounted];
    this.uncounted = new Map();
    this.uncountedTotal = 0;
    w.postMessage({ type: "counts", counts } satisfies ToWorker);
  }

  /** Hands the waiting clicks to the worker: one message for the whole array. */
  private post() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.buffer.length === 0) return;
    const w = this.worker ?? this.start();
    const n = this.buffer.length;
    const data = this.buffer.take();
    this.posted += n;
    w.postMessage({ type: "batch", data, n } satisfies ToWorker);
  }

  /**
   * Resolves once every click captured before the call is in the database (true), or the
   * writer failed or timed out (false, logged). Reads that must see every click await it.
   */
  flush(): Promise<boolean> {
    this.post();
    this.postUncounted(true);
    const w = this.worker;
    if (!w) return Promise.resolve(true);
    const id = this.nextFlush++;
    return new Promise((resolve) => {
      // Also keeps the process alive while waiting (the worker itself is unref'd).
      const guard = setTimeout(() => {
        this.flushes.delete(id);
        log.error("click flush timed out", { backlog: this.backlog });
        resolve(false);
      }, FLUSH_TIMEOUT_MS);
      this.flushes.set(id, (ok) => {
        clearTimeout(guard);
        resolve(ok);
      });
      w.postMessage({ type: "flush", id } satisfies ToWorker);
    });
  }

  /**
   * Runs the click worker's background jobs to their end now (the roll-up backfill, then
   * retention), after every click captured before the call is written. For tests and the
   * benchmark: the server runs them on the worker's own schedule.
   */
  async maintain(): Promise<boolean> {
    if (!(await this.flush())) return false;
    const w = this.worker ?? this.start();
    const id = this.nextFlush++;
    return new Promise((resolve) => {
      const guard = setTimeout(() => {
        this.flushes.delete(id);
        resolve(false);
      }, FLUSH_TIMEOUT_MS * 6);
      this.flushes.set(id, (ok) => {
        clearTimeout(guard);
        resolve(ok);
      });
      w.postMessage({ type: "maintain", id } satisfies ToWorker);
    });
  }

  /** Graceful stop: every captured click written, then the worker and its connection close. */
  async stop() {
    await this.flush();
    const w = this.worker;
    if (!w) return;
    this.worker = null;
    // The app's connection checkpoints again (and on close) once the worker is gone.
    this.restoreCheckpoints();
    const closed = new Promise<void>((r) => (this.onClosed = r));
    w.postMessage({ type: "close" } satisfies ToWorker);
    await Promise.race([closed, Bun.sleep(CLOSE_TIMEOUT_MS)]);
    this.onClosed = null;
    w.terminate();
  }

  /**
   * Starts the worker now (the server does, at start-up: a worker started by the first click
   * spent its first ~0.5 s opening the database and the location data, and a kill -9 then lost
   * more than the documented window). Otherwise it starts with the first click (the tests' many
   * apps that never redirect never start a thread).
   */
  start(): Worker {
    if (this.worker) return this.worker;
    // smol: JavaScriptCore's small heap; the worker holds little beyond a batch at a time.
    const w = new Worker(WORKER_URL, { smol: true });
    // Never keeps the process alive by itself (tests open many apps in one process).
    (w as unknown as { unref(): void }).unref();
    w.onmessage = (e: MessageEvent<FromWorker>) => {
      const m = e.data;
      if (m.type === "written") {
        this.written += m.n;
        // Its clicks.recorded events are committed: the live updates and webhooks look (SQLite).
        eventsWritten();
        this.postUncounted();
      }
      else if (m.type === "flushed" || m.type === "maintained") {
        this.flushes.get(m.id)?.(m.ok);
        this.flushes.delete(m.id);
      } else if (m.type === "ready") {
        // The worker checkpoints now: commits on this connection never stop to copy the WAL.
        this.exec("PRAGMA wal_autocheckpoint = 0");
      } else if (m.type === "closed") this.onClosed?.();
      else if (m.type === "error") log.error("click writer", { error: m.message });
    };
    w.onerror = (e) => {
      // The clicks it held are lost (the crash window); the next click starts a new worker.
      log.error("click worker stopped", { error: String(e.message), lost: this.posted - this.written });
      if (this.worker === w) this.worker = null;
      this.written = this.posted;
      for (const done of this.flushes.values()) done(false);
      this.flushes.clear();
      this.restoreCheckpoints();
    };
    const url = this.db.dialect === "postgres" ? this.opts.databaseUrl! : null;
    const path = this.db.sqlite?.filename ?? "";
    w.postMessage({ type: "open", path, url, ipStorage: this.opts.ipStorage, geoipDb: this.opts.geoipDb, checkpointMs: CHECKPOINT_MS,
      coalesceMs: COALESCE_MS,
      foldEvery: this.opts.foldEvery,
      retentionDays: this.opts.retentionDays ?? null,
      detailPerMinute: this.opts.detailPerMinute,
      walLimitBytes: this.opts.walLimitBytes,
      writeTurn: this.db.writeTurn?.buffer ?? null,
    } satisfies ToWorker);
    this.worker = w;
    return w;
  }

  private restoreCheckpoints() {
    this.exec(`PRAGMA wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
  }

  private exec(sql: string) {
    try {
      this.db.sqlite?.exec(sql);
    } catch {
      /* the database is already closed */
    }
  }
}

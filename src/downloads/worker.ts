// The reader thread (src/db/reader.ts): its own connection to the app's SQLite file. It runs
// the reads the request thread hands it one at a time and posts the rows back, and streams
// downloads (jobs.ts) a chunk per request, so a million rows are read, formatted and collected
// here, never on the thread that answers redirects. The connection is query_only: a store that
// sent a write here would fail loudly.
import { Database as SqliteHandle, type SQLQueryBindings } from "bun:sqlite";
import { pgDatabase, sqliteDatabase, type Database, type Params } from "../db/database";
import { PG_SESSION } from "../db/connect";
import { openPg } from "../db/pg";
import type { FromReader, ToReader } from "../db/reader";
import { runDownload, type DownloadJob } from "./jobs";
import { runAnswer, type AnswerJob } from "./answers";
import { linksStore } from "../links/store";
import { packBuffers, packRows, type LinkPack } from "../links/mapPack";
import { encodedJson } from "../shared/encoding";
import { AppError } from "../shared/errors";
import { loadTimeZones } from "../shared/time";
import { lowerThisThread } from "../shared/priority";
import { gzipStream } from "../shared/gzipStream";

declare const self: Worker;

let handle: SqliteHandle | null = null;
let db: Database | null = null;
const downloads = new Map<number, ReadableStreamDefaultReader<Uint8Array>>();
/**
 * Bytes formatted between two young collections of this thread's heap. Paced, the rows'
 * garbage stays small (four exports of 250,000 links each: +154 MB of RSS without it); here the
 * pause stops only this thread, never the one that answers redirects. Counted before gzip, which
 * hands over a sixth as many bytes for the same rows.
 */
const GC_BYTES = 4 * 1024 * 1024;
/**
 * The reader connection's page cache (KiB). A search's total checks up to 1,001 matches' owners
 * in short_links_owner_by_id (migrations/0027, 17 MB at 1M links): with SQLite's default 2 MB
 * each check read its page back through the kernel (14 ms a count for a word in 1 of 1,000
 * links), held here ~3 ms. It fills only as far as reads reach; reports' roll-up pages gain too.
 */
const READER_CACHE_KIB = 32_768;
let sinceGc = 0;
/**
 * Buffers the request thread gave back once their chunk was written (src/db/reader.ts), filled
 * again with later chunks: a download's bytes cross in a few buffers that go back and forth, so
 * the request thread's heap never holds spent ones. A chunk larger than one goes as it is.
 */
const POOL_BYTES = 256 * 1024;
const POOL_MAX = 16;
const pool: ArrayBuffer[] = [];

/** The download's bytes as formatted, counted towards the next collection. */
function counted(source: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await reader.read();
      if (next.done) return controller.close();
      sinceGc += next.value.byteLength;
      controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

const post = (m: FromReader, transfer: Transferable[] = []) => self.postMessage(m, transfer);
const failure = (id: number, err: unknown): FromReader => {
  if (err instanceof AppError) return { id, error: err.message, code: err.code, refusal: { code: err.code, fields: err.fields } };
  // A PostgreSQL error keeps what the request thread's answers go by (src/db/faults.ts, http/errors.ts).
  const e = err as { message?: string; code?: string; name?: string; errno?: unknown };
  return { id, error: String(e?.message ?? err), code: e?.code, ...(e?.name === "PostgresError" ? { name: e.name, errno: e.errno } : {}) };
};

self.onmessage = async (e: MessageEvent<ToReader>) => {
  const m = e.data;
  if (m.type === "open") {
    lowerThisThread(m.nice ?? 0);
    // ICU's zone data, loaded before the first report that needs it (src/shared/time.ts).
    loadTimeZones();
    if ("url" in m) {
      // PostgreSQL: a pool of its own, small (a download reads one batch at a time; a report's
      // four reads go at once).
      db = pgDatabase(openPg(m.url, { max: 4, bigint: true, connection: PG_SESSION }));
      return;
    }
    // strict: the same binding rules as the request thread's connection (src/db/open.ts).
    handle = new SqliteHandle(m.file, { strict: true });
    handle.exec("PRAGMA busy_timeout = 5000");
    handle.exec("PRAGMA query_only = ON");
    handle.exec(`PRAGMA cache_size = -${READER_CACHE_KIB}`);
    db = sqliteDatabase(handle, { reader: false });
    return;
  }
  if (m.type === "read") {
    try {
      if (handle) {
        const statement = handle.query(m.text);
        const params = m.params as SQLQueryBindings[];
        post({ id: m.id, rows: m.one ? (statement.get(...params) ?? null) : statement.all(...params) });
      } else {
        // PostgreSQL: the rows are parsed here, not on the thread that answers redirects.
        const params = m.params as Params;
        post({ id: m.id, rows: m.one ? await db!.get(m.text, ...params) : await db!.all(m.text, ...params) });
      }
    } catch (err) {
      post(failure(m.id, err));
    }
    return;
  }
  if (m.type === "answer") {
    try {
      const { body, encoding } = encodedJson(await runAnswer(db!, m.job as AnswerJob), m.acceptEncoding);
      // Transferred whole: a view into a larger (pooled) buffer goes as a copy of its own.
      const own = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? body : body.slice();
      post({ id: m.id, body: own, encoding }, [own.buffer]);
    } catch (err) {
      post(failure(m.id, err));
    }
    return;
  }
  if (m.type === "pack") {
    // SQLite: a connection of its own for this one read, closed after, so half the links table
    // does not stay in the reports' page cache (32 MB) as resident memory.
    const once = handle ? new SqliteHandle(handle.filename, { readonly: true, strict: true }) : null;
    try {
      once?.exec("PRAGMA busy_timeout = 5000");
      const packs: LinkPack[] = [];
      const from = once ? sqliteDatabase(once, { reader: false }) : db!;
      for await (const page of linksStore(from).allForRedirect({ after: m.after, upTo: m.upTo })) packs.push(packRows(page));
      post({ id: m.id, packs }, packs.flatMap(packBuffers));
      // Half a million rows' garbage, collected now (this thread only) rather than held as RSS
      // until reports come: the map's bytes per link are measured at rest after start-up.
      Bun.gc(true);
    } catch (err) {
      post(failure(m.id, err));
    } finally {
      once?.close();
    }
    return;
  }
  if (m.type === "back") {
    if (pool.length < POOL_MAX && m.buffer.byteLength === POOL_BYTES) pool.push(m.buffer);
    return;
  }
  if (m.type === "download") {
    // Gzipped here when the client takes it: the request thread then frees a sixth of the bytes.
    const body = counted(runDownload(db!, m.job as DownloadJob));
    downloads.set(m.id, (m.gzip ? gzipStream(body) : body).getReader());
    return;
  }
  const reader = downloads.get(m.id);
  if (!reader) {
    // A thread started again after a crash knows none of the old downloads.
    if (m.type === "more") post(failure(m.id, "the download is gone"));
    return;
  }
  if (m.type === "cancel") {
    downloads.delete(m.id);
    await reader.cancel().catch(() => {});
    return;
  }
  // "more": the next chunk, copied into a pooled buffer and handed over (transferred).
  try {
    const { done, value } = await reader.read();
    if (done) {
      downloads.delete(m.id);
      post({ id: m.id, end: true });
    } else {
      let chunk: Uint8Array;
      if (value.byteLength <= POOL_BYTES) {
        chunk = new Uint8Array(pool.pop() ?? new ArrayBuffer(POOL_BYTES), 0, value.byteLength);
        chunk.set(value);
      } else chunk = value.byteOffset === 0 && value.byteLength === value.buffer.byteLength ? value : value.slice();
      post({ id: m.id, chunk }, [chunk.buffer]);
      if (sinceGc >= GC_BYTES) {
        sinceGc = 0;
        Bun.gc(false);
      }
    }
  } catch (err) {
    downloads.delete(m.id);
    post(failure(m.id, err));
  }
};

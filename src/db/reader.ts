// The reader thread's client (issue 21): reads that take milliseconds at real size — analytics
// reports, click pages, list pages — and whole downloads (src/downloads/jobs.ts) run on a worker
// thread with its own connection to the SQLite file, so the thread that answers redirects only
// passes messages, never waits for SQLite or formats a million rows (or collects their garbage).
// Measured (docs/performance.md, tenant-scale.ts): on the request thread one client looping on
// a 100,000-link export held redirects up to 642 ms at a time. WAL lets the reader run beside
// the writers and see every transaction committed before the read was sent.
import type { SQLQueryBindings } from "bun:sqlite";
import type { Params } from "./database";
import { gzippedAtSource } from "../shared/gzipStream";
import type { Encoding } from "../shared/encoding";
import type { LinkPack } from "../links/mapPack";
import { AppError, type ErrorCode } from "../shared/errors";

export type ToReader =
  | { type: "open"; file: string; nice?: number }
  | { type: "open"; url: string; nice?: number }
  | { type: "read"; id: number; one: boolean; text: string; params: SQLQueryBindings[] | Params }
  | { type: "download"; id: number; job: unknown; gzip: boolean }
  | { type: "answer"; id: number; job: unknown; acceptEncoding: string | null }
  | { type: "pack"; id: number; after: number; upTo: number }
  | { type: "more" | "cancel"; id: number }
  | { type: "back"; buffer: ArrayBuffer };
export type FromReader =
  | { id: number; rows: unknown }
  | { id: number; chunk: Uint8Array }
  | { id: number; end: true }
  | { id: number; body: Uint8Array<ArrayBuffer>; encoding: Encoding | null }
  | { id: number; packs: LinkPack[] }
  | { id: number; error: string; code: string | undefined; name?: string; errno?: unknown; refusal?: { code: ErrorCode; fields: Record<string, string> | undefined } };

// A separate entrypoint, so the compiled binary carries it (scripts/build.ts): there this module
// is bundled into main.js at the root of the binary's file system while the worker keeps its
// place under downloads/; from source it is found from this file's folder.
const WORKER_URL = import.meta.url.includes("$bunfs")
  ? new URL("./downloads/worker.ts", import.meta.url)
  : new URL("../downloads/worker.ts", import.meta.url);

/** Bun's ReadableStream constructor for a direct source (the DOM library's overloads hide it). */
const DirectStream = ReadableStream as unknown as new (source: Bun.DirectUnderlyingSource<Uint8Array>) => ReadableStream<Uint8Array>;

/** Bun.serve's response sinks (HTTP and HTTPS), as a direct stream's controller names itself. */
const SOCKET_SINK = /^\[object ReadableHTTPS?ResponseSinkController\]$/;

export type ReaderThread = {
  /** SQLite's bindings as bun:sqlite takes them, or (PostgreSQL) the store's parameters as given. */
  read(one: boolean, text: string, params: SQLQueryBindings[] | Params): Promise<unknown>;
  /** Starts the thread now (the server, at start): the first report need not wait for it. */
  warm(): void;
  /** An answer job (src/downloads/answers.ts) built on the thread: its JSON bytes, compressed there when the client takes it. */
  answer(job: unknown, acceptEncoding: string | null): Promise<{ body: Uint8Array<ArrayBuffer>; encoding: Encoding | null }>;
  /** The links with ids in (after, upTo], packed for the redirect map (src/links/mapPack.ts). */
  packLinks(after: number, upTo: number): Promise<LinkPack[]>;
  /** A download job (src/downloads/jobs.ts) streamed from the thread, a chunk per pull. */
  download(job: unknown, done?: () => void): ReadableStream<Uint8Array>;
  close(): void;
};

/**
 * A reader thread for the SQLite file, or for the PostgreSQL database at `url` (downloads only:
 * there reads are the server's work already, but formatting and collecting a million rows is
 * not). Its thread starts with the first use and again after a crash.
 */
export function readerThread(target: ({ file: string } | { url: string }) & { nice?: number }): ReaderThread {
  let worker: (Worker & { ref(): void; unref(): void }) | null = null;
  let nextId = 1;
  const pending = new Map<number, { resolve: (m: FromReader) => void; reject: (e: Error) => void }>();
  const failAll = (why: string) => {
    for (const p of pending.values()) p.reject(new Error(why));
    pending.clear();
    worker?.unref();
  };
  const start = () => {
    // smol: JavaScriptCore's small heap, collected often: the rows' garbage stays small. Named,
    // so its OS thread reads "reader" (the benchmarks tell it from the click writer's "Worker").
    const w = new Worker(WORKER_URL, { smol: true, name: "reader" }) as Worker & { ref(): void; unref(): void };
    // Never keeps the process alive by itself (tests open many apps in one process), except
    // while a request to it is pending: Bun left an unreferenced worker's long job (the map's
    // half, a thousand statements in one message) stopped mid-way, its thread idle, for good.
    w.unref();
    w.onmessage = (e: MessageEvent<FromReader>) => {
      const p = pending.get(e.data.id);
      if (!p) return;
      pending.delete(e.data.id);
      if (pending.size === 0) w.unref();
      p.resolve(e.data);
    };
    w.onerror = (e) => {
      worker = null;
      failAll(`the reader thread failed: ${e.message}`);
    };
    w.postMessage({ type: "open", ...target } satisfies ToReader);
    return w;
  };
  /** Sends a message and waits for the answer to its id. */
  const ask = (m: ToReader & { id: number }) => {
    worker ??= start();
    const w = worker;
    return new Promise<FromReader>((resolve, reject) => {
      if (pending.size === 0) w.ref();
      pending.set(m.id, { resolve, reject });
      w.postMessage(m);
    }).then((answer) => {
      // A request the job refused (a 400, say) is the same refusal here.
      if ("error" in answer) throw answer.refusal ? new AppError(answer.refusal.code, answer.error, answer.refusal.fields) : Object.assign(new Error(answer.error), { code: answer.code, ...(answer.name ? { name: answer.name, errno: answer.errno } : {}) });
      return answer;
    });
  };
  return {
    warm() {
      worker ??= start();
    },
    async read(one, text, params) {
      return ((await ask({ type: "read", id: nextId++, one, text, params })) as { rows: unknown }).rows;
    },
    async answer(job, acceptEncoding) {
      return (await ask({ type: "answer", id: nextId++, job, acceptEncoding })) as { body: Uint8Array<ArrayBuffer>; encoding: Encoding | null };
    },
    async packLinks(after, upTo) {
      return ((await ask({ type: "pack", id: nextId++, after, upTo })) as { packs: LinkPack[] }).packs;
    },
    download(job, done) {
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        done?.();
      };
      // The job starts with the first pull, so the stream that is read says whether the thread
      // gzips it: a compressed answer (compression.ts) reads the second one, never the first.
      //
      // A direct stream, so the consumer is known: Bun.serve's response sink has sent or copied
      // a chunk by the time write() settles (checked under backpressure, src/downloads/
      // jobs.test.ts), so there the chunk's buffer goes back to the thread to carry a later
      // chunk. Left here, spent chunks waited for a full collection of this thread's heap, which
      // the redirect map makes large and rare: four exports at once raised RSS by +90 to +180 MB
      // at 1M links (issue 21). Other consumers (.text(), .blob()) keep what they are given, so
      // they keep their buffers too.
      const stream = (gzip: boolean) => {
        const id = nextId++;
        let started = false;
        let cancelled = false;
        const source: Bun.DirectUnderlyingSource<Uint8Array> = {
          type: "direct",
          async pull(controller) {
            if (started) return;
            started = true;
            try {
              worker ??= start();
              worker.postMessage({ type: "download", id, job, gzip } satisfies ToReader);
              const socket = SOCKET_SINK.test(Object.prototype.toString.call(controller));
              while (!cancelled) {
                const m = await ask({ type: "more", id });
                if (!("chunk" in m)) break;
                const wrote = controller.write(m.chunk);
                if (wrote instanceof Promise) await wrote;
                if (!socket) continue;
                const buffer = m.chunk.buffer as ArrayBuffer;
                worker?.postMessage({ type: "back", buffer } satisfies ToReader, [buffer]);
              }
              end();
              if (!cancelled) controller.close();
            } catch (e) {
              end();
              // A download the client left may still answer its last "more" with "gone".
              if (!cancelled) controller.close(e as Error);
            }
          },
          cancel() {
            cancelled = true;
            end();
            if (started) worker?.postMessage({ type: "cancel", id } satisfies ToReader);
          },
        };
        return new DirectStream(source);
      };
      return gzippedAtSource(stream(false), () => stream(true));
    },
    close() {
      worker?.terminate();
      worker = null;
      failAll("the database was closed");
    },
  };
}

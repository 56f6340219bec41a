// The downloads (issue 21): a user's links (CSV or JSON) and a link's clicks (CSV), each
// described as a job a thread can run from the job alone — the request thread on PostgreSQL, the
// reader thread on SQLite (src/downloads/worker.ts), where reading and formatting a million rows
// cannot delay a redirect. Both run the same code: slicedStream over the feature's batches.
import type { Database } from "../db/database";
import { clicksDownload } from "../analytics/report";
import { analyticsStore } from "../analytics/store";
import { linksDownload } from "../links/export";
import { linksStore } from "../links/store";
import type { Tracker } from "../links/schema";
import { slicedStream } from "../shared/slicedStream";

export type DownloadJob =
  | { kind: "links"; userId: number; tracker: Tracker; format: "csv" | "json"; shortBaseUrl: string; brandBaseUrl: string; exportedAt: string }
  | { kind: "clicks"; linkId: number };

/** The job's bytes, streamed from `db` on the calling thread; `done` runs once, however it ends. */
export function runDownload(db: Database, job: DownloadJob, done?: () => void): ReadableStream<Uint8Array> {
  const d = job.kind === "links" ? linksDownload(linksStore(db), job) : clicksDownload(analyticsStore(db), job.linkId);
  return slicedStream({ ...(d as Parameters<typeof slicedStream<unknown>>[0]), done });
}

/** The job streamed where it cannot delay a redirect: the reader thread on SQLite, else here. */
export function download(db: Database, job: DownloadJob, done?: () => void): ReadableStream<Uint8Array> {
  return db.reader ? db.reader.download(job, done) : runDownload(db, job, done);
}

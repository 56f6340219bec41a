// Answers that take milliseconds to build at real size (issue 21), built where they cannot delay
// a redirect. An analytics report of a 10M-click link is small reads of the roll-ups, but then a
// series to fill, tallies to map, JSON to write and compress: on the request thread that was
// ~1–2 ms a report, and four clients looping on reports held other links' redirects at 2× their
// idle p99 (tenant-scale.ts, lead session 9). On the reader thread (src/downloads/worker.ts) the
// answer is read, built, serialized and compressed there, and only its bytes cross (transferred,
// not copied); on PostgreSQL that thread's own pool also parses the rows. Without a reader thread
// (an in-memory database) the value is built here and compression.ts encodes it.
import type { Database } from "../db/database";
import { analyticsReports } from "../analytics/report";
import type { LinkRow } from "../links/store";

export type AnswerJob = {
  kind: "report";
  link: LinkRow;
  shortUrl: string;
  query: Record<string, string | undefined>;
  retentionDays: number | null;
  detailPerMinute: number | null | undefined;
};

const reportsOf = new WeakMap<Database, Map<string, ReturnType<typeof analyticsReports>>>();

/** The job's answer, read from `db` on the calling thread. */
export function runAnswer(db: Database, job: AnswerJob): Promise<unknown> {
  let made = reportsOf.get(db);
  if (!made) reportsOf.set(db, (made = new Map()));
  const key = `${job.retentionDays}/${job.detailPerMinute}`;
  let reports = made.get(key);
  if (!reports) made.set(key, (reports = analyticsReports(db, { retentionDays: job.retentionDays, detailPerMinute: job.detailPerMinute })));
  return reports.report(job.link, job.shortUrl, job.query);
}

/**
 * The answer to send: from the reader thread, a Response with its bytes already in the encoding
 * the client takes (its vary tells compression.ts so); without one, the value itself.
 */
export async function answer(db: Database, job: AnswerJob, acceptEncoding: string | null): Promise<unknown> {
  if (!db.reader) return runAnswer(db, job);
  const { body, encoding } = await db.reader.answer(job, acceptEncoding);
  const headers: Record<string, string> = { "content-type": "application/json", vary: "accept-encoding", "content-length": String(body.byteLength) };
  if (encoding) headers["content-encoding"] = encoding;
  return new Response(body, { headers });
}

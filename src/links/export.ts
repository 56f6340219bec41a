// Exporting every Link Tracker link of a user with its click count (GET /api/links/export.csv|json).
// The CSV's columns are the plain import format's (url, code, title, description, expiresAt)
// plus read-only ones, so an export imports back as the same links.
import { csvCell } from "../shared/csv";
import type { ExportRow } from "./schema";
import type { Links } from "./service";
import { tagNames, type LinkRow } from "./store";
import { exportedSmart, readStored } from "../smart/settings";

/** CSV header → the ExportRow field it holds. */
const COLUMNS = [
  ["code", "shortCode"],
  ["url", "originalUrl"],
  ["title", "title"],
  ["description", "description"],
  ["expiresAt", "expiresAt"],
  ["clicks", "clickCount"],
  ["shortUrl", "shortUrl"],
  ["active", "active"],
  ["createdAt", "createdAt"],
  ["updatedAt", "updatedAt"],
  ["tags", "tags"],
  ["importedClicks", "importedClicks"],
  ["smart", "smart"],
] as const satisfies readonly (readonly [string, keyof ExportRow])[];

export const EXPORT_HEADER = COLUMNS.map(([name]) => name);

export function exportRow(links: Links, r: LinkRow): ExportRow {
  return {
    shortCode: r.short_code,
    shortUrl: links.shortUrl(r),
    originalUrl: r.original_url,
    title: r.title,
    description: r.description,
    clickCount: r.click_count,
    active: r.active === 1,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    expiresAt: r.expires_at,
    tags: tagNames(r),
    importedClicks: r.imported_clicks === null ? null : Number(r.imported_clicks),
    smart: exportedSmart(readStored(r)),
  };
}

const line = (cells: (string | null)[]) => `${cells.map(csvCell).join(",")}\r\n`;
/** A CSV cell's text: a list (tags) comma-separated, as Shlink's export writes it; smart settings as JSON. */
const cellOf = (v: ExportRow[keyof ExportRow]) => (v == null ? null : Array.isArray(v) ? v.join(",") : typeof v === "object" ? JSON.stringify(v) : String(v));

export const EXPORT_BUSY = "An export of your links is already running. Please wait for it to finish.";
/** Seconds a client is told to wait before trying another export. */
export const EXPORT_RETRY_AFTER_S = 5;

/** Links read per statement while an export streams: memory holds one batch, whatever the total. */
export const EXPORT_BATCH = 1000;
/**
 * Bytes streamed, over every running export, between two young collections (Bun.gc(false)).
 * Without them the rows' garbage outran the collector: four exports of 250,000 links each grew
 * the process by ~540 MB; a collection every 4 MB held it to ~+90 MB, where every 1–2 MB or 16
 * MB did worse (docs/performance.md, issue 21). A full collection would stop the thread that
 * serves redirects for tens of milliseconds, so none is asked for.
 */
const GC_BYTES = 4 * 1024 * 1024;
let bytesSinceGc = 0;

/**
 * The export, streamed as it is read: a batch of links (a keyset page, see store.batches) is
 * read only when the client has taken the previous one, so memory stays one batch deep for a
 * million links and a slow client holds nothing but its socket. The CSV is UTF-8 with a BOM
 * (Excel otherwise reads it as the local code page and garbles every non-ASCII title; the
 * importer drops it), CRLF lines, the header row first, every cell that a spreadsheet would run
 * as a formula guarded by a leading quote (csvCell). `done` runs once, however the stream ends
 * (finished, failed, or the client gone).
 */
export function exportStream(links: Links, userId: number, format: "csv" | "json", done: () => void): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  const batches = links.store.batches(userId, "main", EXPORT_BATCH);
  let started = false;
  let first = true;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    done();
  };
  return new ReadableStream({
    async pull(controller) {
      try {
        if (!started) {
          started = true;
          controller.enqueue(enc.encode(format === "csv" ? `\ufeff${line(EXPORT_HEADER)}` : `{"exportedAt":${JSON.stringify(new Date().toISOString())},"links":[`));
          return;
        }
        const next = await batches.next();
        if (next.done) {
          if (format === "json") controller.enqueue(enc.encode("]}"));
          controller.close();
          end();
          return;
        }
        let chunk = "";
        for (const r of next.value) {
          const row = exportRow(links, r);
          if (format === "csv") chunk += line(COLUMNS.map(([, field]) => cellOf(row[field])));
          else {
            chunk += `${first ? "" : ","}${JSON.stringify(row)}`;
            first = false;
          }
        }
        // A new array per batch: a chunk may still sit in the gzip pipe (compression.ts) when
        // the next is pulled, so one buffer re-filled per batch corrupted compressed exports.
        const bytes = enc.encode(chunk);
        controller.enqueue(bytes);
        bytesSinceGc += bytes.byteLength;
        if (bytesSinceGc >= GC_BYTES) {
          bytesSinceGc = 0;
          Bun.gc(false);
        }
      } catch (e) {
        end();
        controller.error(e);
      }
    },
    async cancel() {
      end();
      await batches.return(undefined);
    },
  });
}

/** links-alice-2026-11-22.csv: whose, when, and a name that is safe in any header or file system. */
export function exportFilename(username: string, ext: "csv" | "json", now = new Date()) {
  const who = username.replace(/[^A-Za-z0-9_-]/g, "").slice(0, 40) || "export";
  return `links-${who}-${now.toISOString().slice(0, 10)}.${ext}`;
}

// Exporting every Link Tracker link of a user with its click count (GET /api/links/export.csv|json).
// The CSV's columns are the plain import format's (url, code, title, description, expiresAt)
// plus read-only ones, so an export imports back as the same links.
import { csvCell } from "../shared/csv";
import type { SlicedStream } from "../shared/slicedStream";
import type { ExportRow } from "./schema";
import type { Tracker } from "./schema";
import { tagNames, type LinkRow, type LinksStore } from "./store";
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

/** The short URL of a row: the tracker's base URL and its code (the root link: the bare base). */
export const shortUrlOf = (r: Pick<LinkRow, "tracker" | "short_code" | "is_system">, bases: { shortBaseUrl: string; brandBaseUrl: string }) => {
  const base = r.tracker === "brand" ? bases.brandBaseUrl : bases.shortBaseUrl;
  return r.is_system ? base : `${base}/${r.short_code}`;
};

export function exportRow(r: LinkRow, bases: { shortBaseUrl: string; brandBaseUrl: string }): ExportRow {
  return {
    shortCode: r.short_code,
    shortUrl: shortUrlOf(r, bases),
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

/** Links read per statement while an export streams: memory holds two batches, whatever the total. */
export const EXPORT_BATCH = 1000;
/** Links formatted per turn of the thread (slicedStream, a chunk of ~100 KB): ~1 ms of it. */
const FORMAT_SLICE = 250;

/** What an export needs to know besides the rows: whose, which format, the short URLs' bases. */
export type LinksExport = { userId: number; tracker: Tracker; format: "csv" | "json"; shortBaseUrl: string; brandBaseUrl: string; exportedAt: string };

/**
 * The export as a download (src/downloads/jobs.ts runs it, on the reader thread on SQLite): a
 * batch of links (a keyset page, see store.batches) at a time, formatted a slice at a time, so
 * memory stays two batches deep for a million links and a slow client holds nothing but its
 * socket. The CSV is UTF-8 with a BOM (Excel otherwise reads it as the local code page and
 * garbles every non-ASCII title; the importer drops it), CRLF lines, the header row first, every
 * cell that a spreadsheet would run as a formula guarded by a leading quote (csvCell).
 */
export function linksDownload(store: Pick<LinksStore, "batches">, job: LinksExport): Omit<SlicedStream<LinkRow>, "done"> {
  return {
    batches: store.batches(job.userId, job.tracker, EXPORT_BATCH),
    slice: FORMAT_SLICE,
    head: job.format === "csv" ? `\ufeff${line(EXPORT_HEADER)}` : `{"exportedAt":${JSON.stringify(job.exportedAt)},"links":[`,
    tail: job.format === "json" ? "]}" : "",
    format:
      job.format === "csv"
        ? (rows) => rows.map((r) => line(COLUMNS.map(([, field]) => cellOf(exportRow(r, job)[field])))).join("")
        : (rows, first) => rows.map((r, i) => `${first && i === 0 ? "" : ","}${JSON.stringify(exportRow(r, job))}`).join(""),
  };
}

/** links-alice-2026-11-22.csv: whose, when, and a name that is safe in any header or file system. */
export function exportFilename(username: string, ext: "csv" | "json", now = new Date()) {
  const who = username.replace(/[^A-Za-z0-9_-]/g, "").slice(0, 40) || "export";
  return `links-${who}-${now.toISOString().slice(0, 10)}.${ext}`;
}

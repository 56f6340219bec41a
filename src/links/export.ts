// Exporting every Link Tracker link of a user with its click count (GET /api/links/export).
// The CSV's columns are the plain import format's (url, code, title, description, expiresAt)
// plus read-only ones, so an export imports back as the same links.
import { csvCell } from "../analytics/report";
import type { ExportRow } from "./schema";
import type { Links } from "./service";
import type { LinkRow } from "./store";

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
  };
}

const line = (cells: (string | null)[]) => `${cells.map(csvCell).join(",")}\r\n`;

/** Rows per chunk of the streamed CSV: the event loop is free between chunks. */
const CHUNK_ROWS = 1000;

/**
 * The CSV, streamed: UTF-8 with a BOM (Excel otherwise reads it as the local code page and
 * garbles every non-ASCII title; the importer drops it), CRLF lines, the header row first,
 * every cell that a spreadsheet would run as a formula guarded by a leading quote (csvCell).
 */
export function exportCsv(rows: readonly ExportRow[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let at = -1;
  return new ReadableStream({
    pull(controller) {
      if (at < 0) {
        controller.enqueue(enc.encode(`\ufeff${line(EXPORT_HEADER)}`));
        at = 0;
        return;
      }
      let chunk = "";
      for (const r of rows.slice(at, at + CHUNK_ROWS)) chunk += line(COLUMNS.map(([, field]) => (r[field] === null ? null : String(r[field]))));
      at += CHUNK_ROWS;
      if (chunk) controller.enqueue(enc.encode(chunk));
      if (at >= rows.length) controller.close();
    },
  });
}

/** links-alice-2026-11-22.csv: whose, when, and a name that is safe in any header or file system. */
export function exportFilename(username: string, ext: "csv" | "json", now = new Date()) {
  const who = username.replace(/[^A-Za-z0-9_-]/g, "").slice(0, 40) || "export";
  return `links-${who}-${now.toISOString().slice(0, 10)}.${ext}`;
}

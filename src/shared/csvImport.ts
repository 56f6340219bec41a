// The CSV files a Link Tracker import understands (src/links/import.ts), told apart by their
// header row. In shared/ because it is isomorphic: the Import page previews and cuts a file with
// these same functions, so what the page shows is what the server reads.
//
//   plain    url,code,title — also this app's own export (description, expiresAt and tags are
//            read too; its other columns are ignored), so an export imports back unchanged.
//   shlink   Shlink's web-client export: createdAt,domain,shortCode,shortUrl,longUrl,title,tags,
//            visits (and the "Long URL","Short code",… of Shlink's own CSV importer).
//   yourls   YOURLS's yourls_url table as export plugins and phpMyAdmin write it:
//            keyword,url,title,timestamp,ip,clicks.
import Papa from "papaparse";
import { unguardCell } from "./csv";
import { TITLE_MAX, type ImportFormat } from "../links/schema";

/** Said (by the server and by the Import page) of a JSON file that is not this app's JSON export. */
export const JSON_SHAPE_MESSAGE = 'A JSON import is this app\'s JSON export: {"links": [ … ]} (or the list of links alone)';

export const IMPORT_MSG = {
  empty: "The file is empty",
  header:
    "The first row must name the columns: url,code,title (or a Shlink or YOURLS export, whose own header rows are recognised)",
  badBytes: "This row holds bytes that are not UTF-8 text. Save the file as UTF-8 (\"CSV UTF-8\" in Excel) and import it again.",
  unclosedQuote: "A quoted value is not closed (a closing \" is missing), so the rest of the file was read as this row",
  strayQuote: "A quoted value has a stray \" inside it (write a quote inside quotes as \"\")",
  fields: (got: number, want: number) => `This row has ${got} values but the header names ${want} columns`,
  titleFilled: "The title was empty: the destination's address is used",
  titleShortened: `The title was shortened to ${TITLE_MAX} characters`,
} as const;

/** Where a format keeps each field: column indexes in the header (-1: absent). */
export type Layout = {
  format: ImportFormat;
  columns: number;
  url: number;
  code: number;
  title: number;
  description: number;
  expiresAt: number;
  tags: number;
  /** The source's creation time and visit count (Shlink createdAt/visits, YOURLS timestamp/clicks). */
  createdAt: number;
  importedClicks: number;
  /** Shlink's domain column: which of its domains served the link (empty: its default domain). */
  domain: number;
  /** This app's export: the link's smart settings as JSON. */
  smart: number;
};

/** "Short code", "short_code" and "shortCode" name one column. */
const norm = (name: string) => name.replace(/^\ufeff/, "").trim().toLowerCase().replace(/[\s_-]+/g, "");

/** The format a header row names, or null when it names none. */
export function detectLayout(header: readonly string[]): Layout | null {
  const names = header.map(norm);
  const at = (...candidates: string[]) => {
    for (const c of candidates) {
      const i = names.indexOf(c);
      if (i >= 0) return i;
    }
    return -1;
  };
  const base = { columns: header.length, description: -1, expiresAt: -1, tags: at("tags"), domain: -1, smart: -1 };
  if (at("keyword") >= 0 && at("url") >= 0)
    return { ...base, format: "yourls", url: at("url"), code: at("keyword"), title: at("title"), createdAt: at("timestamp"), importedClicks: at("clicks") };
  if (at("longurl") >= 0)
    return { ...base, format: "shlink", url: at("longurl"), code: at("shortcode"), title: at("title"), createdAt: at("createdat", "datecreated"), importedClicks: at("visits", "visitscount"), domain: at("domain") };
  const url = at("url", "originalurl", "destination");
  if (url < 0) return null;
  return {
    ...base,
    format: "plain",
    url,
    code: at("code", "shortcode"),
    title: at("title"),
    description: at("description"),
    expiresAt: at("expiresat"),
    createdAt: at("createdat"),
    importedClicks: at("importedclicks"),
    smart: at("smart"),
  };
}

/**
 * The delimiter of the header line: a comma unless the line holds more semicolons or tabs
 * (Excel in many European locales writes ';'; Shlink's importer accepts it too).
 */
export function detectDelimiter(text: string): string {
  const end = text.search(/\r|\n/);
  const line = end < 0 ? text.slice(0, 4096) : text.slice(0, Math.min(end, 4096));
  const count = (c: string) => line.split(c).length - 1;
  const best = [",", ";", "\t"].map((c) => ({ c, n: count(c) })).sort((a, b) => b.n - a.n)[0]!;
  return best.n > 0 ? best.c : ",";
}

const utf8 = new TextDecoder("utf-8");

/**
 * File bytes as text: a UTF-8 BOM is dropped, a UTF-16 file (Excel's "Unicode text") is read
 * as such by its BOM, and bytes that are not UTF-8 become U+FFFD, which marks their rows bad
 * (rowProblem) while the rest of the file imports.
 */
export function decodeCsv(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes.subarray(2));
  // TextDecoder drops a UTF-8 BOM itself.
  return utf8.decode(bytes);
}

/** One parsed CSV record and papaparse's complaint about it, if any. */
export type CsvRecord = { cells: string[]; error: string | null; /** where the record ends in the text */ end: number };

function recordOf(r: Papa.ParseStepResult<string[]>): CsvRecord {
  const e = r.errors[0];
  const error = !e ? null : e.code === "MissingQuotes" ? IMPORT_MSG.unclosedQuote : IMPORT_MSG.strayQuote;
  return { cells: r.data, error, end: r.meta.cursor };
}

/** The first `n` records (header included), for the Import page's preview. */
export function previewRecords(text: string, n: number): CsvRecord[] {
  const out: CsvRecord[] = [];
  Papa.parse<string[]>(text, {
    delimiter: detectDelimiter(text),
    skipEmptyLines: true,
    step(r, parser) {
      out.push(recordOf(r));
      if (out.length >= n) parser.abort();
    },
  });
  return out;
}

/** Where each record ends in `text` (header included): the Import page cuts a file into parts there. */
export function recordEnds(text: string): number[] {
  const ends: number[] = [];
  Papa.parse<string[]>(text, {
    delimiter: detectDelimiter(text),
    skipEmptyLines: true,
    step(r) {
      ends.push(r.meta.cursor);
    },
  });
  return ends;
}

/**
 * Every record of `text`, `batch` at a time: parsing pauses after each batch until `onBatch`'s
 * promise settles, so a 10 MB file never holds the event loop for long. `onBatch` returns
 * false to stop early (too many rows, a cancelled request).
 */
export function parseInBatches(text: string, batch: number, onBatch: (records: CsvRecord[]) => Promise<boolean>): Promise<void> {
  return new Promise((resolve, reject) => {
    let pending: CsvRecord[] = [];
    let stopped = false;
    const flush = (parser: Papa.Parser | null) => {
      const records = pending;
      pending = [];
      parser?.pause();
      onBatch(records).then(
        (go) => {
          if (!parser) return resolve();
          if (go) parser.resume();
          else {
            stopped = true;
            parser.abort();
            resolve();
          }
        },
        (e) => {
          stopped = true;
          parser?.abort();
          reject(e);
        },
      );
    };
    Papa.parse<string[]>(text, {
      delimiter: detectDelimiter(text),
      skipEmptyLines: true,
      step(r, parser) {
        pending.push(recordOf(r));
        if (pending.length >= batch) flush(parser);
      },
      complete() {
        if (!stopped) flush(null);
      },
    });
  });
}


/** Why a data record cannot be read at all (before its values are checked), or null. */
export function recordProblem(record: CsvRecord, layout: Layout): string | null {
  if (record.error) return record.error;
  if (record.cells.length !== layout.columns) return IMPORT_MSG.fields(record.cells.length, layout.columns);
  if (record.cells.some((c) => c.includes("\ufffd"))) return IMPORT_MSG.badBytes;
  return null;
}

/**
 * A source's creation time as ISO text: Shlink's is ISO 8601 with an offset; YOURLS's is MySQL's
 * "2009-08-28 20:21:19", the server's local time, which the file does not name: read as UTC.
 * Anything unreadable is passed on as it is, for the schema to refuse with the row.
 */
function sourceTime(text: string) {
  const mysql = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})$/.exec(text);
  return mysql ? `${mysql[1]}T${mysql[2]}Z` : text;
}

/** Titles up to this long are shortened to fit; a longer one is not a title: it is refused. */
const TITLE_CUT_MAX = 1000;

/**
 * This app's export's `smart` cell: the settings as JSON. Text that is not JSON is passed on as
 * it is, for the create schema to refuse by name ("Smart settings must be an object").
 */
function smartCell(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A link to create from a record, as the create schema takes it, and what was changed to fit. */
export function recordToLink(record: CsvRecord, layout: Layout) {
  // The export's formula guard undone: "'=x" was written for "=x", "''=x" for "'=x" (src/shared/csv.ts).
  // phpMyAdmin writes SQL NULL as a bare NULL (YOURLS's title is nullable): read as empty.
  const nullWord = layout.format === "yourls";
  const cell = (i: number) => {
    const text = i < 0 ? "" : unguardCell(record.cells[i] ?? "").trim();
    return nullWord && text === "NULL" ? "" : text;
  };
  const originalUrl = cell(layout.url);
  // Titles come from web pages' <title>s: line breaks and tabs become single spaces.
  let title = cell(layout.title).replace(/\s+/g, " ");
  let note: string | undefined;
  if (!title) {
    title = originalUrl.replace(/^https?:\/\//i, "").slice(0, TITLE_MAX);
    note = IMPORT_MSG.titleFilled;
  } else if (title.length > TITLE_MAX && title.length <= TITLE_CUT_MAX) {
    title = `${title.slice(0, TITLE_MAX - 1)}…`;
    note = IMPORT_MSG.titleShortened;
  }
  // Tags: comma-separated names (this app's export and Shlink's); a name no tag may have is
  // refused with the row, as a create would refuse it.
  // Shlink's web client joins a link's tags with '|'.
  const tags = cell(layout.tags).split(layout.format === "shlink" ? /[|,]/ : ",").map((t) => t.trim()).filter(Boolean);
  const visits = cell(layout.importedClicks);
  const link = {
    originalUrl,
    shortCode: cell(layout.code),
    title,
    description: cell(layout.description),
    expiresAt: cell(layout.expiresAt),
    ...(tags.length ? { tags: [...new Set(tags)] } : {}),
    ...(cell(layout.createdAt) ? { createdAt: sourceTime(cell(layout.createdAt)) } : {}),
    ...(/^\d{1,10}$/.test(visits) ? { importedClicks: Number(visits) } : {}),
    ...(cell(layout.smart) ? { smart: smartCell(cell(layout.smart)) } : {}),
  };
  return { link, note, ...(layout.domain >= 0 ? { domain: cell(layout.domain).toLowerCase() } : {}) };
}

// Importing a CSV file into a user's Link Tracker (POST /api/links/import). The file is parsed
// and written a batch of rows at a time, each batch one short transaction, with the event loop
// free between batches: redirects keep answering while 100,000 rows go in (they read only the
// in-memory map; other requests' statements wait at most one batch's transaction).
import { AppError, badRequest } from "../shared/errors";
import { checkItem } from "./rules";
import { IMPORT_MSG, JSON_SHAPE_MESSAGE, detectLayout, decodeCsv, parseInBatches, recordProblem, recordToLink, type CsvRecord, type Layout } from "../shared/csvImport";
import { BULK_MSG, IMPORT_MAX_ROWS, ImportLinkBody, type ImportReport, type ImportRowResult, type Tracker } from "./schema";
import { WRITE_BATCH, nextTurn, type Links } from "./service";
import type { NewLink } from "./store";

/** One row of a file: a link to check (and what was changed to fit it), or why the row cannot be read. */
type Item = { link: unknown; note: string | undefined; domain?: string } | { problem: string };

/** Where an import writes: the Link Tracker, unless the row's Shlink domain is one of `brandDomains`. */
export type ImportOpts = { rowOffset: number; signal?: AbortSignal; brandDomains?: ReadonlySet<string> };

/** Records parsed between two turns of the event loop (parsing is ~5 µs a record). */
const PARSE_BATCH = 1000;

export const TOO_MANY_ROWS_MESSAGE = `The file has more than ${IMPORT_MAX_ROWS.toLocaleString("en")} rows: split it and import the parts one after another.`;
export const IMPORT_BUSY_MESSAGE = "An import into your account is already running. Wait for it to finish, then try again.";

export function linkImporter(links: Links) {
  // One import per account at a time: two would race for the same codes and double the work.
  const running = new Set<number>();

  /** A CSV record as an item to check: the link it holds, or why it cannot be read. */
  const fromRecord = (layout: Layout) => (record: CsvRecord): Item => {
    const problem = recordProblem(record, layout);
    return problem ? { problem } : recordToLink(record, layout);
  };

  /** Checks and writes one batch of items; `first` is the row number of items[0]. */
  async function importBatch(userId: number, items: readonly Item[], first: number, brandDomains: ReadonlySet<string>) {
    const results: ImportRowResult[] = [];
    const toWrite: { row: number; link: NewLink; note: string | undefined; tracker: Tracker }[] = [];
    items.forEach((item, i) => {
      const row = first + i;
      if ("problem" in item) {
        results.push({ row, status: "skipped", error: { code: "BAD_REQUEST", message: item.problem } });
        return;
      }
      const { link, note } = item;
      const checked = checkItem(link, links.ownHosts, Date.now(), ImportLinkBody);
      const tracker: Tracker = item.domain !== undefined && brandDomains.has(item.domain) ? "brand" : "main";
      if (checked.ok) toWrite.push({ row, link: checked.link, note, tracker });
      else results.push({ row, status: "skipped", error: checked.error });
    });
    // One write a tracker (a Shlink file may send some domains to the brand tracker).
    const written: { w: (typeof toWrite)[number]; r: Awaited<ReturnType<typeof links.createMany>>[number] }[] = [];
    for (const tracker of ["main", "brand"] as const) {
      const mine = toWrite.filter((w) => w.tracker === tracker);
      const rows = await links.createMany(
        userId,
        tracker,
        mine.map((w) => w.link),
      );
      rows.forEach((r, i) => written.push({ w: mine[i]!, r }));
    }
    written.forEach(({ w, r }) => {
      const { row, note } = w;
      if ("existing" in r) results.push({ row, status: "skipped", error: { code: "CONFLICT", message: BULK_MSG.externalIdTaken, fields: { externalId: BULK_MSG.externalIdTaken } } });
      else if ("code" in r && "message" in r) results.push({ row, status: "skipped", error: r });
      else results.push({ row, status: "imported", shortCode: r.short_code, shortUrl: links.shortUrl(r), ...(note ? { note } : {}) });
    });
    return results.sort((a, b) => a.row - b.row);
  }

  async function run(userId: number, bytes: Uint8Array, opts: ImportOpts): Promise<ImportReport> {
    const text = decodeCsv(bytes);
    if (!text.trim()) throw badRequest(IMPORT_MSG.empty);

    // Parsed first, in batches, so that a file over the row limit is refused before anything is written.
    const records: CsvRecord[] = [];
    let tooMany = false;
    await parseInBatches(text, PARSE_BATCH, async (batch) => {
      for (const r of batch) records.push(r);
      if (records.length > IMPORT_MAX_ROWS + 1) tooMany = true;
      await nextTurn();
      return !tooMany && !opts.signal?.aborted;
    });
    if (tooMany) throw new AppError("PAYLOAD_TOO_LARGE", TOO_MANY_ROWS_MESSAGE);
    const header = records[0];
    const layout = header && !header.error ? detectLayout(header.cells) : null;
    if (!layout) throw badRequest(IMPORT_MSG.header);

    // Row 1 is the header, as a spreadsheet numbers the file.
    const firstRow = opts.rowOffset + 2;
    const toItem = fromRecord(layout);
    return write(userId, layout.format, records.length - 1, (at, n) => records.slice(at + 1, at + 1 + n).map(toItem), firstRow, opts);
  }

  /**
   * This app's JSON export, as it is ({exportedAt, links: [...]}, or the list alone): each link
   * is checked as a create body (its read-only fields, such as clickCount, are ignored). Row
   * numbers count the links from 1.
   */
  async function runJson(userId: number, value: unknown, opts: ImportOpts): Promise<ImportReport> {
    const list = Array.isArray(value) ? value : typeof value === "object" && value !== null && Array.isArray((value as { links?: unknown }).links) ? (value as { links: unknown[] }).links : null;
    if (!list) throw badRequest(JSON_SHAPE_MESSAGE);
    if (list.length > IMPORT_MAX_ROWS) throw new AppError("PAYLOAD_TOO_LARGE", TOO_MANY_ROWS_MESSAGE);
    const toItem = (link: unknown): Item => ({ link, note: undefined });
    return write(userId, "json", list.length, (at, n) => list.slice(at, at + n).map(toItem), opts.rowOffset + 1, opts);
  }

  /** Writes `count` items, a batch at a time (`slice(at, n)`), numbering them from `firstRow`. */
  async function write(userId: number, format: ImportReport["format"], count: number, slice: (at: number, n: number) => Item[], firstRow: number, opts: ImportOpts): Promise<ImportReport> {
    const results: ImportRowResult[] = [];
    const brandDomains = opts.brandDomains ?? new Set<string>();
    for (let at = 0; at < count; at += WRITE_BATCH) {
      // A client that went away (a cancelled import) stops the writing at the next batch.
      if (opts.signal?.aborted) break;
      results.push(...(await importBatch(userId, slice(at, WRITE_BATCH), firstRow + at, brandDomains)));
      await links.writeGap();
    }
    const imported = results.filter((r) => r.status === "imported").length;
    const summary = { format, rows: results.length, imported, skipped: results.length - imported };
    // The import is many transactions (a batch each); its end is a change of its own.
    await links.events.append([{ type: "import.finished", userId, data: summary }]);
    return { ...summary, results };
  }

  /** One import per account at a time. */
  async function alone<T>(userId: number, work: () => Promise<T>) {
    if (running.has(userId)) throw new AppError("CONFLICT", IMPORT_BUSY_MESSAGE);
    running.add(userId);
    try {
      return await work();
    } finally {
      running.delete(userId);
    }
  }

  return {
    run: (userId: number, bytes: Uint8Array, opts: ImportOpts) => alone(userId, () => run(userId, bytes, opts)),
    runJson: (userId: number, value: unknown, opts: ImportOpts) => alone(userId, () => runJson(userId, value, opts)),
  };
}

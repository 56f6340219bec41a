// Importing a CSV file into a user's Link Tracker (POST /api/links/import). The file is parsed
// and written a batch of rows at a time, each batch one short transaction, with the event loop
// free between batches: redirects keep answering while 100,000 rows go in (they read only the
// in-memory map; other requests' statements wait at most one batch's transaction).
import { AppError, badRequest } from "../shared/errors";
import { checkItem } from "./rules";
import { IMPORT_MSG, detectLayout, decodeCsv, parseInBatches, recordProblem, recordToLink, type CsvRecord } from "../shared/csvImport";
import { BULK_MSG, IMPORT_MAX_ROWS, type ImportReport, type ImportRowResult } from "./schema";
import { WRITE_BATCH, nextTurn, type Links } from "./service";
import type { NewLink } from "./store";

/** Records parsed between two turns of the event loop (parsing is ~5 µs a record). */
const PARSE_BATCH = 1000;

export const TOO_MANY_ROWS_MESSAGE = `The file has more than ${IMPORT_MAX_ROWS.toLocaleString("en")} rows: split it and import the parts one after another.`;
export const IMPORT_BUSY_MESSAGE = "An import into your account is already running. Wait for it to finish, then try again.";

export function linkImporter(links: Links) {
  // One import per account at a time: two would race for the same codes and double the work.
  const running = new Set<number>();

  /** Checks and writes one batch of data records; `first` is the row number of records[0]. */
  async function importBatch(userId: number, records: readonly CsvRecord[], first: number, layout: NonNullable<ReturnType<typeof detectLayout>>) {
    const results: ImportRowResult[] = [];
    const toWrite: { row: number; link: NewLink; note: string | undefined }[] = [];
    records.forEach((record, i) => {
      const row = first + i;
      const problem = recordProblem(record, layout);
      if (problem) {
        results.push({ row, status: "skipped", error: { code: "BAD_REQUEST", message: problem } });
        return;
      }
      const { link, note } = recordToLink(record, layout);
      const checked = checkItem(link, links.ownHosts);
      if (checked.ok) toWrite.push({ row, link: checked.link, note });
      else results.push({ row, status: "skipped", error: checked.error });
    });
    const written = await links.createMany(
      userId,
      "main",
      toWrite.map((w) => w.link),
    );
    written.forEach((r, i) => {
      const { row, note } = toWrite[i]!;
      if ("existing" in r) results.push({ row, status: "skipped", error: { code: "CONFLICT", message: BULK_MSG.externalIdTaken, fields: { externalId: BULK_MSG.externalIdTaken } } });
      else if ("code" in r && "message" in r) results.push({ row, status: "skipped", error: r });
      else results.push({ row, status: "imported", shortCode: r.short_code, shortUrl: links.shortUrl(r), ...(note ? { note } : {}) });
    });
    return results.sort((a, b) => a.row - b.row);
  }

  async function run(userId: number, bytes: Uint8Array, opts: { rowOffset: number; signal?: AbortSignal }): Promise<ImportReport> {
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

    const results: ImportRowResult[] = [];
    // Row 1 is the header, as a spreadsheet numbers the file.
    const firstRow = opts.rowOffset + 2;
    for (let at = 1; at < records.length; at += WRITE_BATCH) {
      // A client that went away (a cancelled import) stops the writing at the next batch.
      if (opts.signal?.aborted) break;
      results.push(...(await importBatch(userId, records.slice(at, at + WRITE_BATCH), firstRow + at - 1, layout)));
      await links.writeGap();
    }
    const imported = results.filter((r) => r.status === "imported").length;
    const summary = { format: layout.format, rows: results.length, imported, skipped: results.length - imported };
    // The import is many transactions (a batch each); its end is a change of its own.
    await links.events.append([{ type: "import.finished", userId, data: summary }]);
    return { ...summary, results };
  }

  return {
    async run(userId: number, bytes: Uint8Array, opts: { rowOffset: number; signal?: AbortSignal }) {
      if (running.has(userId)) throw new AppError("CONFLICT", IMPORT_BUSY_MESSAGE);
      running.add(userId);
      try {
        return await run(userId, bytes, opts);
      } finally {
        running.delete(userId);
      }
    },
  };
}

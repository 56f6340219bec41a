// /api/links/bulk, /api/links/export.csv|json and /api/links/import: the Link Tracker's links in bulk
// (issue 14). Mounted beside linkRoutes' /api/links; no SQL here.
import { Elysia } from "elysia";
import * as v from "valibot";
import type { AppContext } from "../context";
import type { AuthPlugin } from "../http/auth";
import { AppError, validationFailure } from "../shared/errors";
import { CsvBody, JsonFileBody, NOT_CSV_TYPE_MESSAGE, jsonBody } from "../http/bodyLimit";
import { defineOperations } from "../shared/apiOperations";
import { checkItem } from "./rules";
import { EXPORT_BUSY, EXPORT_RETRY_AFTER_S, exportFilename } from "./export";
import { download as streamDownload } from "../downloads/jobs";
import { linkImporter } from "./import";
import { BULK_MAX, BULK_MAX_VALUES, BulkCreateBody, BulkCreateResult, brandDomainSet, ExportJson, ImportLinksBody, ImportQuery, ImportReport, type BulkItemResult } from "./schema";
import { WRITE_BATCH, type Links } from "./service";

/** The one route that takes a file body, CSV or JSON (src/http/bodyLimit.ts reads it with its 10 MB cap). */
export const IMPORT_PATH = "/api/links/import";
export const BULK_PATH = "/api/links/bulk";

function query<S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> {
  const r = v.safeParse(schema, value, { abortEarly: true });
  if (!r.success) throw validationFailure(r.issues[0]);
  return r.output;
}

export function bulkLinkRoutes(ctx: AppContext, auth: AuthPlugin, links: Links) {
  const importer = linkImporter(links);

  // Users with an export streaming now (this instance): a second one waits for the first to
  // end, so one account cannot hold N batches' worth of memory and N database readers at once.
  const exporting = new Set<number>();

  async function download(user: { id: number; username: string }, format: "csv" | "json") {
    if (exporting.has(user.id)) throw new AppError("EXPORT_IN_PROGRESS", EXPORT_BUSY, undefined, { "retry-after": String(EXPORT_RETRY_AFTER_S) });
    exporting.add(user.id);
    try {
      // The counts include every click captured so far, as the list's do.
      await links.recorder.flush();
    } catch (e) {
      exporting.delete(user.id);
      throw e;
    }
    const job = { kind: "links", userId: user.id, tracker: "main", format, shortBaseUrl: ctx.config.shortBaseUrl, brandBaseUrl: ctx.config.brandBaseUrl, exportedAt: new Date().toISOString() } as const;
    const body = streamDownload(ctx.db, job, () => exporting.delete(user.id));
    const type = format === "json" ? "application/json; charset=utf-8" : "text/csv; charset=utf-8";
    return new Response(body, {
      headers: { "content-type": type, "content-disposition": `attachment; filename="${exportFilename(user.username, format)}"`, "cache-control": "no-store" },
    });
  }

  return new Elysia({ prefix: "/api/links" })
    .use(auth)
    .post(
      "/bulk",
      async ({ body, user }) => {
        const results: BulkItemResult[] = [];
        // In transactions of WRITE_BATCH items with a turn of the event loop between: 1,000
        // items at once would hold every redirect for tens of milliseconds.
        for (let at = 0; at < body.links.length; at += WRITE_BATCH) {
          if (at > 0) await links.writeGap();
          const checked = body.links.slice(at, at + WRITE_BATCH).map((item) => checkItem(item, links.ownHosts));
          const written = await links.createMany(
            user.id,
            "main",
            checked.flatMap((c) => (c.ok ? [c.link] : [])),
          );
          let w = 0;
          checked.forEach((c, i) => {
            const index = at + i;
            if (!c.ok) return results.push({ index, status: "refused", error: c.error });
            const r = written[w++]!;
            if ("existing" in r) results.push({ index, status: "existing", link: links.view(r.existing) });
            else results.push("short_code" in r ? { index, status: "created", link: links.view(r) } : { index, status: "refused", error: r });
          });
        }
        const count = (status: BulkItemResult["status"]) => results.filter((r) => r.status === status).length;
        return { created: count("created"), existing: count("existing"), refused: count("refused"), results };
      },
      { auth: true, body: jsonBody(BulkCreateBody) },
    )
    // Two addresses rather than a format parameter: each answers one media type, a browser
    // download link names the file type it gets, and the document describes each exactly.
    .get("/export.csv", async ({ user }) => download(user, "csv"), { auth: true })
    .get("/export.json", async ({ user }) => download(user, "json"), { auth: true })
    .post(
      "/import",
      ({ body, user, query: raw, request }) => {
        const { rowOffset, brandDomains } = query(ImportQuery, raw);
        const opts = { rowOffset: Number(rowOffset ?? 0), signal: request.signal, brandDomains: brandDomainSet(brandDomains) };
        if (body instanceof JsonFileBody) return importer.runJson(user.id, body.value, opts);
        if (!(body instanceof CsvBody)) throw new AppError("UNSUPPORTED_MEDIA_TYPE", NOT_CSV_TYPE_MESSAGE);
        return importer.run(user.id, body.bytes, opts);
      },
      { auth: true },
    );
}

const CSV_EXAMPLE = "url,code,title\r\nhttps://example.com/spring-sale,spring-sale,Spring sale\r\nhttps://example.com/docs,,Docs\r\n";

export const bulkLinkOperations = defineOperations({ tag: "Links", auth: "user", keyArea: "links" }, [
  {
    method: "POST",
    path: "/api/links/bulk",
    summary: "Create up to 1,000 links",
    description:
      `Limits: at most ${BULK_MAX.toLocaleString("en")} items, a body of at most 1 MB, and at most ${BULK_MAX_VALUES.toLocaleString("en")} JSON values in it (room for ${BULK_MAX.toLocaleString("en")} items shaped like the JSON export's links, read-only fields and 20 tags each included: they are ignored, so an export's links can be sent back as they are). ` +
      "Each item is checked as POST /api/links checks one link and is created whole or not at all. The answer lists every item in the order sent: `created` with its link, `existing` with the link an item's `externalId` already names (nothing made: a retried bulk request is safe), or `refused` with the error (a stable `code`, the message and the field). More than 1,000 items is a 400.",
    body: BulkCreateBody,
    example: { links: [{ originalUrl: "https://example.com/a", title: "A" }, { originalUrl: "https://example.com/b", title: "B", shortCode: "bee-link" }] },
    responses: { 200: BulkCreateResult },
  },
  {
    method: "GET",
    path: "/api/links/export.csv",
    summary: "Export your links as CSV",
    description:
      "Every link of the Link Tracker with its click count, as a download: UTF-8 with a BOM, CRLF lines, the header row code,url,title,description,expiresAt,clicks,shortUrl,active,createdAt,updatedAt,tags,importedClicks (tag names comma-separated in one cell; importedClicks the visits an imported link's source tool had counted), newest link first. Streamed as it is read; one export (CSV or JSON) runs at a time per user: another while it streams is a 429 `EXPORT_IN_PROGRESS`. A cell starting with = + - @, a tab or a carriage return (or apostrophes and then one of those) gets a leading ' so a spreadsheet never runs it as a formula; the import removes exactly that one again. The file imports back through POST /api/links/import.",
    responses: {
      200: {
        description: "The links as CSV",
        media: { type: "text/csv", example: "code,url,title,description,expiresAt,clicks,shortUrl,active,createdAt,updatedAt,tags,importedClicks\r\nspring-sale,https://example.com/sale,Spring sale,,,12,https://go.example/spring-sale,true,2026-03-01T09:00:00.000Z,2026-03-01T09:00:00.000Z,\"campaign,spring\",\r\n" },
        headers: { "Content-Disposition": 'attachment; filename="links-<username>-<date>.csv"' },
      },
    },
    errors: ["EXPORT_IN_PROGRESS"],
  },
  {
    method: "GET",
    path: "/api/links/export.json",
    summary: "Export your links as JSON",
    description: "The same links as the CSV export, as objects, with the time of the export; streamed, one export at a time per user (429 `EXPORT_IN_PROGRESS`).",
    responses: {
      200: { description: "The links", schema: ExportJson, headers: { "Content-Disposition": 'attachment; filename="links-<username>-<date>.json"' } },
    },
    errors: ["EXPORT_IN_PROGRESS"],
  },
  {
    method: "POST",
    path: IMPORT_PATH,
    summary: "Import links from a CSV file or the JSON export",
    description:
      "The body is the file itself, at most 10 MB and 100,000 rows or links: a CSV file (Content-Type: text/csv) or this API's JSON export as it is (Content-Type: application/json; `{\"links\": [...]}` or the list alone, each link checked as a create body, its read-only fields ignored, rows numbered from 1). A CSV file's header row names the format: `url,code,title` (optional description, expiresAt, tags; this API's own export too), Shlink's export (createdAt,domain,shortCode,shortUrl,longUrl,title,tags,visits; its tags are kept) or YOURLS's (keyword,url,title,timestamp,ip,clicks). Rows are checked as POST /api/links checks a link (an empty title becomes the address); good rows are imported and every bad one is reported with its row number (the header is row 1) and reason. `rowOffset` shifts the row numbers when a file is sent in parts. A Shlink export's links keep their codes (1–2 characters and multi-segment slugs too, redirected at the same path), tags, creation times and visit counts (`importedClicks`); `brandDomains` names the Shlink domains whose links go to the brand tracker. When the brand tracker has a host of its own (BRAND_DOMAIN), a code is unique per tracker, so the same code on two Shlink domains sent to the two trackers imports twice, each link redirected on its own host; otherwise a code is one link across both and the second is reported taken.",
    query: ImportQuery,
    bodyMedia: "text/csv",
    bodyJson: ImportLinksBody,
    example: CSV_EXAMPLE,
    exampleJson: { links: [{ originalUrl: "https://example.com/spring-sale", shortCode: "spring-sale", title: "Spring sale" }, { originalUrl: "https://example.com/docs", title: "Docs" }] },
    responses: { 200: ImportReport },
    errors: ["PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "CONFLICT"],
  },
]);

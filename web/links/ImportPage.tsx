import { format } from "date-fns";
import { downloadBlob } from "../lib/saveFile";
import Papa from "papaparse";
import { useEffect, useMemo, useRef, useState, type ChangeEvent } from "react";
import { mutate } from "swr";
import { Link } from "wouter";
import { AppFooter, AppHeader } from "../shell/AppHeader";
import { usePageTitle } from "../shell/usePageTitle";
import { Button } from "../ui/Button";
import { Select } from "../ui/Field";
import { toast } from "../ui/Toast";
import { NO_ANSWER } from "../lib/api";
import { useConfig } from "../lib/config";
import { codesPerTracker } from "../../src/shared/trackers";
import { decodeCsv, detectLayout, previewRecords, IMPORT_MSG, JSON_SHAPE_MESSAGE, type Layout } from "../../src/shared/csvImport";
import { IMPORT_MAX_ROWS, type ImportReport, type ImportRowResult } from "../../src/links/schema";
import { splitIntoParts, splitJsonParts, type Part } from "./importParts";
import "./links.css";

const FORMAT_NAMES: Record<Layout["format"], string> = {
  plain: "Plain CSV (url, code, title) or this app's export",
  shlink: "Shlink export",
  yourls: "YOURLS export",
  json: "This app's JSON export",
};
/** The server's limits for one import (src/http/bodyLimit.ts, src/links/schema.ts), checked before sending. */
const MAX_FILE_BYTES = 10 * 1024 * 1024;
const PREVIEW_ROWS = 5;
/** Report rows drawn at once; the full report is a download. */
const SHOWN_ROWS = 200;

/**
 * A chosen file: a CSV (`text`, its `layout`) or this app's JSON export (`links`, its list);
 * `format` is set when either was recognised.
 */
type Picked = { name: string; text: string; format: Layout["format"] | null; layout: Layout | null; links: unknown[] | null; preview: string[][]; problem: string | null; domains: string[] };
type Phase = "idle" | "running" | "cancelling" | "done" | "cancelled" | "failed";
type Filter = "all" | "skipped" | "imported";

const TOO_LARGE_ROW = "This row is larger than the 10 MB the server takes in one request";

/** A Shlink file's domains (its empty domain column is Shlink's default domain), A→Z. */
function shlinkDomains(text: string, layout: Layout | null) {
  if (layout?.format !== "shlink" || layout.domain < 0) return [];
  const found = new Set<string>();
  for (const r of previewRecords(text, Number.MAX_SAFE_INTEGER).slice(1)) found.add((r.cells[layout.domain] ?? "").trim().toLowerCase());
  return [...found].sort();
}

/**
 * A .json file (or any file that starts as JSON does) read as this app's JSON export: its list
 * of links and a preview of code, URL, title and tags; or the reason it is not one.
 */
function readJsonExport(text: string): { links: unknown[]; preview: string[][] } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: `The file is not valid JSON. ${JSON_SHAPE_MESSAGE}.` };
  }
  const links = Array.isArray(value) ? value : typeof value === "object" && value !== null && Array.isArray((value as { links?: unknown }).links) ? (value as { links: unknown[] }).links : null;
  if (!links) return { problem: `${JSON_SHAPE_MESSAGE}.` };
  if (links.length === 0) return { problem: IMPORT_MSG.empty };
  const cell = (x: unknown) => (typeof x === "string" ? x : x == null ? "" : JSON.stringify(x));
  const preview = links.slice(0, PREVIEW_ROWS).map((l) => {
    const o = (typeof l === "object" && l !== null ? l : {}) as Record<string, unknown>;
    return [cell(o.shortCode), cell(o.originalUrl), cell(o.title), Array.isArray(o.tags) ? o.tags.map(cell).join(", ") : cell(o.tags)];
  });
  return { links, preview: [["code", "url", "title", "tags"], ...preview] };
}

/** Times the page waits out the server's per-user limit for one part before it stops with the limit's message. */
const MAX_WAITS = 10;

/**
 * A part refused by the server's per-user limit on heavy calls (HEAVY_RATE_LIMIT, README "Heavy
 * calls, per user"): each part is one call, so a file of more parts than the limit allows in a
 * minute (60,000+ rows at the default 120) always meets it. Not a failure: the page waits as
 * long as the server asks (Retry-After) and sends the part again.
 */
class RateLimited extends Error {
  constructor(message: string, readonly waitMs: number, readonly limit: number | null) {
    super(message);
  }
}

async function sendPart(part: Extract<Part, { kind: "send" }>, brandDomains: string[], json: boolean): Promise<ImportReport> {
  let res: Response;
  const query = new URLSearchParams({ rowOffset: String(part.rowOffset) });
  if (brandDomains.length) query.set("brandDomains", brandDomains.map((d) => d || "default").join(","));
  try {
    res = await fetch(`/api/links/import?${query}`, {
      method: "POST",
      credentials: "include",
      headers: { "content-type": json ? "application/json" : "text/csv; charset=utf-8", accept: "application/json", "x-requested-with": "XMLHttpRequest" },
      body: part.text,
    });
  } catch {
    throw new Error(NO_ANSWER);
  }
  const body = await res.json().catch(() => null);
  if (res.status === 429 && body?.error?.code === "RATE_LIMITED") {
    const seconds = Number(res.headers.get("retry-after"));
    const limit = Number(res.headers.get("ratelimit-limit"));
    throw new RateLimited(body.error.message, (Number.isFinite(seconds) && seconds > 0 ? seconds : 60) * 1000, limit > 0 ? limit : null);
  }
  if (!res.ok) throw new Error(body?.error?.message ?? `${res.status}: ${res.statusText || "Import failed"}`);
  return body as ImportReport;
}

function reportCsv(results: readonly ImportRowResult[]) {
  const rows = results.map((r) => (r.status === "imported" ? [r.row, "imported", r.shortUrl, r.note ?? ""] : [r.row, "skipped", "", r.error.message]));
  // Formula guard: a reason or address a spreadsheet would run as a formula gets a leading quote.
  return Papa.unparse({ fields: ["row", "status", "shortUrl", "reason"], data: rows }, { escapeFormulae: true, newline: "\r\n" });
}

const download = (name: string, text: string) => downloadBlob(new Blob([`\ufeff${text}`], { type: "text/csv;charset=utf-8" }), name);

/** /link-tracker/import: a CSV file into the Link Tracker, with a preview, progress and a per-row report (issue 14). */
export function ImportPage() {
  usePageTitle("Import links");
  const [picked, setPicked] = useState<Picked | null>(null);
  const [phase, setPhase] = useState<Phase>("idle");
  const [total, setTotal] = useState(0);
  const [done, setDone] = useState(0);
  const [results, setResults] = useState<ImportRowResult[]>([]);
  const [failure, setFailure] = useState<string | null>(null);
  // While a part waits out the server's heavy-call limit: when it is sent again, and the limit.
  // A time, set once per wait, rather than a countdown, which the live status would read out every second.
  const [paused, setPaused] = useState<{ until: number; limit: number | null } | null>(null);
  const [filter, setFilter] = useState<Filter>("all");
  // Shlink domains whose links go to the brand tracker (the rest to the Link Tracker).
  const [brandDomains, setBrandDomains] = useState<string[]>([]);
  const config = useConfig();
  const cancelled = useRef(false);
  // Set on the first press, before React re-renders: a double click cannot send the file twice.
  const started = useRef(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const reportHeading = useRef<HTMLHeadingElement>(null);
  const progressHeading = useRef<HTMLHeadingElement>(null);

  // Import and Cancel are disabled while the parts are sent, so a keyboard user's focus falls to
  // the page's body: at the end it goes to the report (or to the progress when there is none),
  // unless the user has moved it somewhere themselves meanwhile.
  useEffect(() => {
    if (phase !== "done" && phase !== "cancelled" && phase !== "failed") return;
    if (document.activeElement && document.activeElement !== document.body) return;
    (reportHeading.current ?? progressHeading.current)?.focus();
  }, [phase]);

  const running = phase === "running" || phase === "cancelling";
  const imported = useMemo(() => results.filter((r) => r.status === "imported").length, [results]);
  const shown = useMemo(() => results.filter((r) => filter === "all" || r.status === filter), [results, filter]);

  async function choose(e: ChangeEvent<HTMLInputElement>) {
    const file = e.target.files?.[0];
    started.current = false;
    setFilter("all");
    setResults([]);
    setPhase("idle");
    setFailure(null);
    setDone(0);
    if (!file) {
      setPicked(null);
      return;
    }
    if (file.size > MAX_FILE_BYTES) {
      setPicked({ name: file.name, text: "", format: null, layout: null, links: null, preview: [], problem: "The file is too large. The limit is 10 MB: split it and import the parts one after another.", domains: [] });
      return;
    }
    const text = decodeCsv(new Uint8Array(await file.arrayBuffer()));
    setBrandDomains([]);
    // A JSON export: by its name, or by its first character (a CSV's header row starts with a name).
    if (/\.json$/i.test(file.name) || /^\s*[[{]/.test(text)) {
      const read = readJsonExport(text);
      setPicked("problem" in read
        ? { name: file.name, text: "", format: null, layout: null, links: null, preview: [], problem: read.problem, domains: [] }
        : { name: file.name, text: "", format: "json", layout: null, links: read.links, preview: read.preview, problem: null, domains: [] });
      return;
    }
    const records = previewRecords(text, PREVIEW_ROWS + 1);
    const header = records[0];
    const layout = header && !header.error ? detectLayout(header.cells) : null;
    const problem = !text.trim() ? IMPORT_MSG.empty : layout ? null : IMPORT_MSG.header;
    setPicked({ name: file.name, text, format: layout?.format ?? null, layout, links: null, preview: records.map((r) => r.cells), problem, domains: problem ? [] : shlinkDomains(text, layout) });
  }

  /**
   * Sends a part; while the server refuses it for the account's heavy-call limit, waits as long
   * as it asks and sends it again (Cancel ends the wait). Null when cancelled while waiting.
   */
  async function sendWhenAllowed(part: Extract<Part, { kind: "send" }>, json: boolean): Promise<ImportReport | null> {
    for (let waits = 0; ; waits++) {
      try {
        return await sendPart(part, brandDomains, json);
      } catch (e) {
        if (!(e instanceof RateLimited) || waits >= MAX_WAITS) throw e;
        const until = Date.now() + e.waitMs;
        setPaused({ until, limit: e.limit });
        try {
          while (Date.now() < until && !cancelled.current) await new Promise((r) => setTimeout(r, 250));
        } finally {
          setPaused(null);
        }
        if (cancelled.current) return null;
      }
    }
  }

  async function start() {
    if (!picked?.format || started.current) return;
    started.current = true;
    const json = picked.links !== null;
    const { rows, parts } = json ? { rows: picked.links!.length, parts: splitJsonParts(picked.links!) } : splitIntoParts(picked.text);
    if (rows > IMPORT_MAX_ROWS) {
      setFailure(`The file has more than ${IMPORT_MAX_ROWS.toLocaleString("en")} rows: split it and import the parts one after another.`);
      setPhase("failed");
      return;
    }
    cancelled.current = false;
    setTotal(rows);
    setDone(0);
    setResults([]);
    setFailure(null);
    setPhase("running");
    let processed = 0;
    for (const part of parts) {
      // Cancel takes effect between parts, so the report says exactly what was imported.
      if (cancelled.current) break;
      let got: ImportRowResult[];
      if (part.kind === "too-large") {
        // A CSV's row 1 is its header; a JSON file's links count from 1.
        got = [{ row: part.rowOffset + (json ? 1 : 2), status: "skipped", error: { code: "BAD_REQUEST", message: TOO_LARGE_ROW } }];
      } else {
        try {
          const sent = await sendWhenAllowed(part, json);
          // Cancelled while waiting for the limit: this part was not imported, as after a Cancel between parts.
          if (!sent) break;
          got = sent.results;
        } catch (e) {
          setFailure(`${e instanceof Error ? e.message : String(e)} — ${json ? "links" : "rows"} from ${part.rowOffset + (json ? 1 : 2)} on were not imported.`);
          setPhase("failed");
          setResults((all) => {
            if (all.some((r) => r.status === "skipped")) setFilter("skipped");
            return all;
          });
          void mutate("/api/links", undefined, { revalidate: false });
          return;
        }
      }
      processed += part.rows;
      setResults((prev) => prev.concat(got));
      setDone(processed);
    }
    // The Link Tracker's cached list is dropped (its screen does not refetch stale data), so it is read anew when opened next.
    void mutate("/api/links", undefined, { revalidate: false });
    const wasCancelled = cancelled.current;
    // The report opens on what needs a look: the skipped rows, when there are any.
    setResults((all) => {
      if (all.some((r) => r.status === "skipped")) setFilter("skipped");
      return all;
    });
    setPhase(wasCancelled ? "cancelled" : "done");
    toast({ title: wasCancelled ? "Import cancelled" : "Import finished" });
  }

  /** After a run the file is spent: a second import takes choosing a file again, on purpose. */
  function chooseAnother() {
    started.current = false;
    setPicked(null);
    setResults([]);
    setFilter("all");
    setPhase("idle");
    setFailure(null);
    setDone(0);
    if (fileInput.current) {
      fileInput.current.value = "";
      fileInput.current.focus();
    }
  }

  const skipped = results.length - imported;
  const ran = phase === "done" || phase === "cancelled" || phase === "failed";
  const percent = total ? Math.round((done / total) * 100) : 0;

  return (
    <div className="page">
      <AppHeader />
      <main id="main" tabIndex={-1} className="container links-page import-page">
        <p className="import-back">
          <Link href="/link-tracker">← Link Tracker</Link>
        </p>
        <h1>Import links</h1>
        <p className="muted">
          A CSV file whose first row names its columns: <code>url,code,title</code> (code and title may be empty; a link without a code gets one), an export
          from this Link Tracker (CSV or JSON), from Shlink or from YOURLS. Up to 10 MB and {IMPORT_MAX_ROWS.toLocaleString("en")} rows. Every row is checked like a link
          you create here; the rows that cannot be imported are listed with the reason.
        </p>

        <div className="card import-pick">
          <p className="import-file-label">Your file</p>
          {/* The native input stays in the page for the keyboard and screen readers (visually
              hidden; its focus ring is drawn on the button-looking label beside it, which opens
              it on a click); the browser's own "Choose file / No file chosen" box is not styleable. */}
          <div className="import-file-picker">
            <input
              ref={fileInput}
              id="import-file"
              className="sr-only import-file-input"
              type="file"
              accept=".csv,.json,text/csv,application/json,text/plain"
              onChange={choose}
              disabled={running}
              aria-label="CSV or JSON file"
              aria-describedby="import-file-name import-file-status"
            />
            <label htmlFor="import-file" className={`btn btn-secondary btn-md import-file-button ${running ? "is-disabled" : ""}`} aria-hidden="true">
              {picked ? "Choose another file" : "Choose a file"}
            </label>
            <span id="import-file-name" className={picked ? "import-file-name" : "import-file-name muted"}>{picked?.name ?? "No file chosen"}</span>
          </div>
          <div id="import-file-status" role="status">
            {picked?.problem && <p className="field-error">{picked.problem}</p>}
            {picked?.format && (
              <p>
                Detected format: <strong>{FORMAT_NAMES[picked.format]}</strong>
              </p>
            )}
          </div>
        </div>

        {picked && picked.domains.length > 0 && (
          <fieldset className="card import-domains" disabled={running}>
            <legend>Where each Shlink domain's links go</legend>
            {picked.domains.map((d) => (
              <Select
                key={d}
                label={d || "Shlink's default domain"}
                value={brandDomains.includes(d) ? "brand" : "main"}
                onChange={(e) => setBrandDomains((all) => (e.target.value === "brand" ? [...all.filter((x) => x !== d), d] : all.filter((x) => x !== d)))}
                options={[
                  { value: "main", label: "Link Tracker" },
                  { value: "brand", label: "Brand link tracker" },
                ]}
              />
            ))}
            <p className="muted">
              {config && codesPerTracker(config)
                ? "A code is one link per tracker: the same code on a domain sent to the Link Tracker and on one sent to the brand link tracker makes two links, each on its own short domain; on two domains sent to one tracker it is imported once."
                : "A code is one link whichever domain served it: the same code on two domains is imported once."}
            </p>
          </fieldset>
        )}

        {picked?.format && picked.preview.length > 0 && (
          <section className="import-preview" aria-labelledby="import-preview-title">
            <h2 id="import-preview-title">Preview</h2>
            <div className="table-wrap">
              <table>
                <caption>The first {Math.min(PREVIEW_ROWS, picked.preview.length - 1)} rows of {picked.name}</caption>
                <thead>
                  <tr>
                    {picked.preview[0]!.map((h, i) => (
                      <th key={i} scope="col">{h}</th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {picked.preview.slice(1).map((cells, r) => (
                    <tr key={r}>
                      {cells.map((c, i) => (
                        <td key={i} className="break">{c.length > 120 ? `${c.slice(0, 120)}…` : c}</td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <div className="row import-actions">
              {ran ? (
                <Button variant="secondary" onClick={chooseAnother}>Import another file</Button>
              ) : (
                <Button onClick={start} busy={phase === "running"} disabled={running}>Import</Button>
              )}
              {running && (
                <Button
                  variant="secondary"
                  onClick={() => {
                    cancelled.current = true;
                    setPhase("cancelling");
                  }}
                  disabled={phase === "cancelling"}
                >
                  {phase === "cancelling" ? "Cancelling…" : "Cancel import"}
                </Button>
              )}
            </div>
          </section>
        )}

        {phase !== "idle" && (
          <section className="import-progress" aria-labelledby="import-progress-title">
            <h2 id="import-progress-title" ref={progressHeading} tabIndex={-1}>Progress</h2>
            <progress id="import-progress-bar" max={Math.max(total, 1)} value={done} aria-label="Import progress" aria-valuetext={`${done} of ${total} rows`} />
            <p role="status" aria-live="polite">
              {phase === "running" && `${done.toLocaleString("en")} of ${total.toLocaleString("en")} rows (${percent}%)`}
              {phase === "running" &&
                paused &&
                `. Paused: the server takes ${paused.limit === null ? "a limited number of" : paused.limit.toLocaleString("en")} imports, exports and analytics views a minute from one account; the import goes on at ${format(paused.until, "HH:mm:ss")}.`}
              {phase === "cancelling" && `Cancelling after the rows in progress… ${done.toLocaleString("en")} of ${total.toLocaleString("en")} rows`}
              {phase === "done" && `Done: ${imported.toLocaleString("en")} imported, ${skipped.toLocaleString("en")} skipped.`}
              {phase === "cancelled" &&
                `Cancelled: ${imported.toLocaleString("en")} imported, ${skipped.toLocaleString("en")} skipped; rows after ${(done + 1).toLocaleString("en")} were not imported.`}
              {phase === "failed" && `Stopped: ${imported.toLocaleString("en")} imported, ${skipped.toLocaleString("en")} skipped.`}
            </p>
            {failure && (
              <p className="field-error" role="alert">
                {failure}
              </p>
            )}
          </section>
        )}

        {results.length > 0 && (
          <section className="import-report" aria-labelledby="import-report-title">
            <div className="row">
              <h2 id="import-report-title" ref={reportHeading} tabIndex={-1}>Report</h2>
              <span className="spacer" />
              <Select
                label="Show rows"
                value={filter}
                onChange={(e) => setFilter(e.target.value as Filter)}
                options={[
                  { value: "all", label: `All (${results.length.toLocaleString("en")})` },
                  { value: "skipped", label: `Skipped (${skipped.toLocaleString("en")})` },
                  { value: "imported", label: `Imported (${imported.toLocaleString("en")})` },
                ]}
              />
              <Button variant="secondary" onClick={() => download(`import-report-${picked?.name.replace(/\.\w+$/, "") ?? "links"}.csv`, reportCsv(results))}>
                Download report
              </Button>
            </div>
            <div className="table-wrap">
              <table className="import-table">
                <caption>
                  {shown.length > SHOWN_ROWS ? `The first ${SHOWN_ROWS} of ${shown.length.toLocaleString("en")} rows (the download has them all)` : `${shown.length.toLocaleString("en")} rows`}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Row</th>
                    <th scope="col">Result</th>
                    <th scope="col">Details</th>
                  </tr>
                </thead>
                <tbody>
                  {shown.slice(0, SHOWN_ROWS).map((r) => (
                    <tr key={r.row} className={`import-${r.status}`}>
                      <td>{r.row}</td>
                      <td>
                        <span className={`badge ${r.status === "imported" ? "badge-primary" : "badge-ended"}`}>{r.status === "imported" ? "Imported" : "Skipped"}</span>
                      </td>
                      <td className="break">
                        {r.status === "imported" ? (
                          <>
                            <code>{r.shortUrl}</code>
                            {r.note && <span className="muted"> — {r.note}</span>}
                          </>
                        ) : (
                          r.error.message
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
        )}
      </main>
      <AppFooter />
    </div>
  );
}

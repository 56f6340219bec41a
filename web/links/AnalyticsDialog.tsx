import { useEffect, useRef, useState } from "react";
import useSWR from "swr";
import { Dialog } from "../ui/Dialog";
import { Button } from "../ui/Button";
import { Select } from "../ui/Field";
import { Tabs } from "../ui/Tabs";
import { Spinner } from "../ui/Spinner";
import { toast } from "../ui/Toast";
import { ClicksChart } from "./ClicksChart";
import { capitalise, copyLink, countryName, formatDate, locationOf, orUnknown, referrerHost } from "./format";
import type { AnalyticsReport, ClickView, Tally, Tracker } from "./types";
import { API_BASE } from "./types";
import { clickSummaries, useLiveEvent, useWatchedLinks } from "../notifications/live";
import { DownloadLink } from "../ui/DownloadLink";

const LIVE_KINDS = ["clicks.recorded", "resync"] as const;
/** The open dialog reads its link's report again at most this often while clicks come (the first at once). */
const REPORT_REREAD_MS = 3_000;

const PAGE_SIZE = 25;

/** The credit the DB-IP Lite licence (CC BY 4.0) asks for wherever its locations show. */
export function DbIpCredit() {
  return (
    <p className="dbip-credit muted">
      <a href="https://db-ip.com" target="_blank" rel="noopener noreferrer">IP Geolocation by DB-IP</a>
    </p>
  );
}

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <div className="stat card">
      <p className="stat-label">{label}</p>
      <p className="stat-value">{value}</p>
    </div>
  );
}

/** A tally with proportional bars; 'Unknown' rows are left out of location lists. */
function Bars({ title, rows, empty, name = (s: string) => s }: { title: string; rows: Tally[]; empty: string; name?: (s: string) => string }) {
  const max = Math.max(1, ...rows.map((r) => r.count));
  return (
    <section className="bars" aria-label={title}>
      <h4>{title}</h4>
      {rows.length === 0 ? (
        <p className="muted">{empty}</p>
      ) : (
        <ul>
          {rows.map((r) => (
            <li key={r.name}>
              <div className="bar-label">
                <span>{name(r.name)}</span>
                <span className="muted">{r.count.toLocaleString("en-US")}</span>
              </div>
              <div className="bar-track" aria-hidden="true">
                <div className="bar-fill" style={{ width: `${(r.count / max) * 100}%` }} />
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Timeline({ report, days, setDays }: { report: AnalyticsReport; days: number; setDays: (d: number) => void }) {
  const series = report.timeline.series;
  return (
    <section className="timeline" aria-label="Clicks over time">
      <div className="row">
        <h4>Clicks over time</h4>
        <span className="spacer" />
        <Select
          label="Range"
          value={String(days)}
          onChange={(e) => setDays(Number(e.target.value))}
          options={[
            { value: "7", label: "Last 7 days" },
            { value: "30", label: "Last 30 days" },
            { value: "90", label: "Last 90 days" },
          ]}
        />
      </div>
      <ClicksChart series={series} />
      <details>
        <summary>Show as a table</summary>
        <div className="table-wrap">
          <table>
            {/* The report's own range: after a refused read the select names the range asked for, the table the one kept. */}
            <caption>Clicks per day (UTC), last {report.timeline.days} days</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">Clicks</th>
              </tr>
            </thead>
            <tbody>
              {series.map((p) => (
                <tr key={p.day}>
                  <td>{p.day}</td>
                  <td>{p.count}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </section>
  );
}

const known = (rows: Tally[]) => rows.filter((r) => r.name !== "Unknown");

function Overview({ report, tracker, days, setDays, liveTotal }: { report: AnalyticsReport; tracker: Tracker; days: number; setDays: (d: number) => void; liveTotal: number | null }) {
  const countries = known(report.tallies.country);
  const cities = known(report.tallies.city);
  const hasLocation = countries.length > 0 || cities.length > 0;
  return (
    <div className="stack">
      <div className="stats">
        <Stat label="Total Clicks" value={Math.max(report.clickCount, liveTotal ?? 0).toLocaleString("en-US")} />
        <Stat label="Unique Visitors" value={report.uniqueVisitors.toLocaleString("en-US")} />
        <Stat label="Last Click" value={report.lastClick ? formatDate(report.lastClick) : "Never"} />
      </div>
      <Timeline report={report} days={days} setDays={setDays} />
      {tracker === "brand" ? (
        <div className="tally-grid">
          <Bars title="Browsers" rows={report.tallies.browser} empty="No data yet" />
          <Bars title="Device Types" rows={report.tallies.device} empty="No data yet" name={capitalise} />
          <Bars title="Countries" rows={countries} empty="No location data yet" name={countryName} />
          <Bars title="Cities" rows={cities} empty="No location data yet" />
        </div>
      ) : (
        <section aria-label="Top Locations">
          <h4>Top Locations</h4>
          {hasLocation ? (
            <div className="tally-grid">
              <Bars title="Countries" rows={countries} empty="No location data yet" name={countryName} />
              <Bars title="Cities" rows={cities} empty="No location data yet" />
            </div>
          ) : (
            <p className="muted">No location data yet</p>
          )}
        </section>
      )}
      {report.smart && (
        // Smart links (issue 24): which rule or split destination sent the clicks; the password page apart.
        <div className="stack">
          <Bars title="Clicks per rule or destination" rows={report.smart.routes.map((r) => ({ name: r.name, count: r.count }))} empty="No clicks yet" />
          {(report.smart.passwordViews > 0 || report.smart.unlocks > 0) && (
            <p className="muted">{`Password page: ${report.smart.passwordViews.toLocaleString("en-US")} views, ${report.smart.unlocks.toLocaleString("en-US")} unlocks (not counted as clicks).`}</p>
          )}
        </div>
      )}
      <DbIpCredit />
      {/* Issue 25: the main tracker recorded referrers but never showed them. A host per row
          (the roll-ups keep the host, 'Direct' when the visit had none). */}
      {tracker === "main" && <Bars title="Referrers" rows={report.tallies.referrer} empty="No clicks yet" />}
      {tracker === "main" && (
        <section aria-label="Link Information" className="link-info">
          <h4>Link Information</h4>
          <dl>
            <dt>Short URL</dt>
            <dd className="break">{report.link.shortUrl}</dd>
            <dt>Original URL</dt>
            <dd className="break">{report.link.originalUrl}</dd>
            <dt>Created</dt>
            <dd>{formatDate(report.link.createdAt)}</dd>
            <dt>Expires</dt>
            <dd>{report.link.expiresAt ? formatDate(report.link.expiresAt) : "Never"}</dd>
          </dl>
        </section>
      )}
    </div>
  );
}

function VisitBadges({ c, withSource }: { c: ClickView; withSource: boolean }) {
  const m = c.metadata;
  return (
    <span className="badges">
      <span className={`badge ${m.isReturningVisitor ? "badge-return" : "badge-new"}`}>{m.isReturningVisitor ? "Return Visit" : "New Visit"}</span>
      {withSource && (c.browser ?? "").includes("Safari") && <span className="badge">Safari</span>}
      {withSource && c.os === "iOS" && <span className="badge">iOS</span>}
      {withSource && (m.source === "direct" || m.source === "safari-direct") && <span className="badge">Direct</span>}
      {m.source === "qr" && <span className="badge">QR</span>}
      {m.isBot && <span className="badge">Bot</span>}
    </span>
  );
}

/** Pages of click detail, by keyset: Next follows the report's nextBefore, Previous goes back. */
type Paging = { next: () => void; previous: () => void };

function Pager({ report, paging }: { report: AnalyticsReport; paging: Paging }) {
  const pages = Math.max(1, Math.ceil(report.detail.rows / report.pageSize));
  if (pages <= 1 && report.page <= 1) return null;
  return (
    <div className="row pager">
      <Button variant="secondary" size="sm" disabled={report.page <= 1} onClick={paging.previous}>Previous</Button>
      <span className="muted">Page {report.page} of {Math.max(pages, report.page)}</span>
      <Button variant="secondary" size="sm" disabled={report.nextBefore === null} onClick={paging.next}>Next</Button>
    </div>
  );
}

function caption(report: AnalyticsReport) {
  const n = report.detail.rows;
  const from = (report.page - 1) * report.pageSize + 1;
  const to = from + report.clicks.length - 1;
  const total = `${n.toLocaleString("en-US")} ${n === 1 ? "record" : "records"}`;
  return n > report.clicks.length ? `Showing ${from}–${to} of ${total}, newest first` : `${total}, newest first`;
}

/** Which clicks the detail covers, when it is not all of them (retention, the per-address limit). Exported for its test. */
export function coverage(report: AnalyticsReport) {
  const d = report.detail;
  if (d.rows >= report.clickCount && d.retentionDays === null) return null;
  const parts = [`Click details cover ${d.rows.toLocaleString("en-US")} of ${report.clickCount.toLocaleString("en-US")} ${report.clickCount === 1 ? "click" : "clicks"}`];
  if (d.since) parts.push(` since ${formatDate(d.since)}`);
  if (d.retentionDays !== null) parts.push(` (details are kept ${d.retentionDays} ${d.retentionDays === 1 ? "day" : "days"})`);
  if (d.withoutDetail > 0) {
    const limit = d.perSourcePerMinute === null ? "" : ` past ${d.perSourcePerMinute} a minute from one address`;
    parts.push(`; ${d.withoutDetail.toLocaleString("en-US")} ${d.withoutDetail === 1 ? "was" : "were"} counted without details${limit}`);
  }
  return `${parts.join("")}. Totals and charts include every click.`;
}

function ClickDetails({ report, tracker, paging, csvHref }: { report: AnalyticsReport; tracker: Tracker; paging: Paging; csvHref: string }) {
  const brand = tracker === "brand";
  const covers = coverage(report);
  return (
    <div className="stack">
      {brand && (
        <section className="link-info" aria-label="Link information">
          <p className="break"><strong>{report.link.title}</strong></p>
          <div className="row">
            <code className="break">{report.link.shortUrl}</code>
            <Button variant="secondary" size="sm" onClick={() => copyLink(report.link.shortUrl)} aria-label="Copy short URL">Copy</Button>
            <a className="btn btn-secondary btn-sm" href={report.link.originalUrl} target="_blank" rel="noopener noreferrer">Visit</a>
          </div>
          <p className="muted break">{report.link.originalUrl}</p>
        </section>
      )}
      {report.clickCount === 0 ? (
        <p className="empty">No click data available yet</p>
      ) : (
        <>
          {brand && <h4>Click History</h4>}
          {covers && <p className="muted">{covers}</p>}
          <div className="table-wrap">
            <table className="clicks-table">
              <caption>{caption(report)}</caption>
              <thead>
                {brand ? (
                  <tr>
                    <th scope="col">Time</th>
                    <th scope="col">Referrer</th>
                    <th scope="col">Browser</th>
                    <th scope="col">Device</th>
                    <th scope="col">Location</th>
                    <th scope="col">Visit Type</th>
                    <th scope="col">#</th>
                  </tr>
                ) : (
                  <tr>
                    <th scope="col">Date</th>
                    <th scope="col">Browser</th>
                    <th scope="col">Device</th>
                    <th scope="col">OS</th>
                    <th scope="col">Location</th>
                    <th scope="col">Visit Type</th>
                    <th scope="col">Visit #</th>
                  </tr>
                )}
              </thead>
              <tbody>
                {report.clicks.map((c) => (
                  // data-label: on a phone each row is a card, and each value shows its column's name.
                  <tr key={c.id}>
                    <td data-label={brand ? "Time" : "Date"}>{formatDate(c.timestamp)}</td>
                    {brand && <td data-label="Referrer">{referrerHost(c.referrer)}</td>}
                    <td data-label="Browser">{orUnknown(c.browser)}</td>
                    <td data-label="Device">{capitalise(c.deviceType)}</td>
                    {!brand && <td data-label="OS">{orUnknown(c.os)}</td>}
                    <td data-label="Location">{locationOf(c)}</td>
                    <td data-label="Visit Type"><VisitBadges c={c} withSource={!brand} /></td>
                    <td data-label={brand ? "#" : "Visit #"}><span className={c.metadata.visitNumber > 1 ? "visit-n visit-n-repeat" : "visit-n"}>{c.metadata.visitNumber}</span></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager report={report} paging={paging} />
          <div className="row">
            <DownloadLink className="btn btn-secondary btn-sm" href={csvHref} label="Export CSV" />
          </div>
          <DbIpCredit />
        </>
      )}
    </div>
  );
}

/** Spec §2 analytics dialog: Overview and Click Details. */
export function AnalyticsDialog({ linkId, title, tracker, onClose }: { linkId: number | null; title: string; tracker: Tracker; onClose: () => void }) {
  // The `before` cursor of each page after the first that was opened (keyset paging).
  const [cursors, setCursors] = useState<number[]>([]);
  const [days, setDays] = useState(30);
  useEffect(() => {
    setCursors([]);
    setDays(30);
  }, [linkId]);
  const base = `${API_BASE[tracker]}/${linkId}`;
  const before = cursors.length ? `&before=${cursors[cursors.length - 1]}` : "";
  const key = linkId === null ? null : `${base}/analytics?page=${cursors.length + 1}&pageSize=${PAGE_SIZE}&days=${days}${before}`;
  // Caches never go stale in this app (spec §7), so opening the dialog asks for fresh numbers:
  // once (a report counts against HEAVY_RATE_LIMIT; a mount's fetch and a mutate were two),
  // and never skipped as a repeat of a read a moment before (the dialog closed and reopened).
  const { data, error, isLoading, isValidating, mutate } = useSWR<AnalyticsReport>(key, { keepPreviousData: true, revalidateOnMount: true, dedupingInterval: 0 });
  const paging = (report: AnalyticsReport): Paging => ({
    next: () => {
      if (report.nextBefore !== null) setCursors([...cursors, report.nextBefore]);
    },
    previous: () => setCursors(cursors.slice(0, -1)),
  });

  // Live updates (issue 26): the total moves with every frame that has this link (its summary's
  // `total`), and the report is read again at most every REPORT_REREAD_MS. A report is a heavy
  // call, counted against HEAVY_RATE_LIMIT (120 a minute by default): at one a second, two open
  // dialogs on busy links used it all, and the user's exports and imports were refused.
  useWatchedLinks(linkId === null ? [] : [linkId]);
  const [liveTotal, setLiveTotal] = useState<number | null>(null);
  useEffect(() => setLiveTotal(null), [linkId]);
  useLiveEvent(LIVE_KINDS, (e) => {
    const total = e ? clickSummaries(e).findLast((l) => l.linkId === linkId)?.total : undefined;
    if (total !== undefined) setLiveTotal((t) => Math.max(t ?? 0, total));
  });
  // Set while such a re-read is under way: when it fails, the figures shown stay under the note
  // that says they were not updated, without a toast each time (the next frame tries again; the
  // heavy-call limit may have said no for a moment).
  const liveRead = useRef(false);
  useLiveEvent(LIVE_KINDS, () => {
    if (linkId === null) return;
    liveRead.current = true;
    void mutate();
  }, {
    only: (e) => clickSummaries(e).some((l) => l.linkId === linkId),
    throttleMs: REPORT_REREAD_MS,
  });
  useEffect(() => {
    liveRead.current = false;
  }, [key, data]);
  // Try again goes with the error it answers: on success focus moves to the report's first tab.
  async function retry() {
    if (await mutate()) requestAnimationFrame(() => document.querySelector<HTMLElement>("[role=dialog] [role=tab]")?.focus());
  }
  // Another link shown in the same dialog reads its report afresh too.
  const shownLink = useRef(linkId);
  useEffect(() => {
    if (linkId === null || linkId === shownLink.current) return;
    shownLink.current = linkId;
    void mutate();
  }, [linkId]);

  useEffect(() => {
    if (error && !(liveRead.current && data)) toast({ title: "Error", description: "Failed to fetch analytics", variant: "destructive" });
    liveRead.current = false;
  }, [error]);

  return (
    <Dialog open={linkId !== null} onClose={onClose} title={`Analytics: ${title}`} wide>
      {isLoading && !data ? (
        <div className="row"><Spinner label="Loading analytics" /></div>
      ) : !data && error ? (
        // The report could not be read (the heavy-call limit, a link deleted meanwhile, the
        // server away): say why, with the server's words, instead of "no data".
        <div className="empty">
          <p role="alert">{error instanceof Error && error.message ? error.message : "Failed to fetch analytics"}</p>
          <Button variant="secondary" aria-busy={isValidating || undefined} onClick={() => !isValidating && void retry()}>Try again</Button>
        </div>
      ) : !data ? (
        <p className="empty">No analytics data available.</p>
      ) : (
        <>
          {error && (
            // A read refused while an earlier report is kept on screen (another range or page past
            // the heavy-call limit, a live update's read): the figures are that report's, so say
            // so, and why, in the server's words; the toast alone gave only the spec's generic text.
            <div className="row">
              <p className="field-error" role="alert">These figures were not updated: {error instanceof Error && error.message ? error.message : "Failed to fetch analytics"}</p>
              <Button variant="secondary" size="sm" aria-busy={isValidating || undefined} onClick={() => !isValidating && void retry()}>Try again</Button>
            </div>
          )}
          <Tabs
            label="Analytics views"
            tabs={[
              { id: `overview-${linkId}`, label: "Overview", panel: <Overview report={data} tracker={tracker} days={days} setDays={setDays} liveTotal={liveTotal} /> },
              { id: `clicks-${linkId}`, label: "Click Details", panel: <ClickDetails report={data} tracker={tracker} paging={paging(data)} csvHref={`${base}/clicks.csv`} /> },
            ]}
          />
        </>
      )}
    </Dialog>
  );
}

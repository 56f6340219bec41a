// The analytics response (spec §3 'Analytics response shape' plus tallies, a daily series and
// a page of click detail), built from the roll-ups alone (the click writers keep them: a first
// view of a 10,000,000-click link reads as little as any other) and one keyset page of clicks.
import type { LinkRow } from "../links/store";
import * as v from "valibot";
import { badRequest, validationFailure } from "../shared/errors";
import { AnalyticsQuery, PAGE_SIZE_DEFAULT, type AnalyticsReport, type Tally } from "./schema";
import { rollupKeys, seriesPoints, seriesRange } from "./series";
import { analyticsStore, type ClickRow } from "./store";
import { DETAIL_PER_MINUTE } from "./tallies";
import type { Database } from "../db/database";
import { smartStore } from "../smart/store";
import { routeName, type SmartStored } from "../smart/schema";
import { csvCell } from "../shared/csv";
import { loadTimeZones } from "../shared/time";
import type { SlicedStream } from "../shared/slicedStream";

/**
 * A page named by number alone (`page`, without `before`) is read from the newest click on,
 * so it may lie this many rows deep at most; deeper pages follow `nextBefore`.
 */
export const PAGE_DEPTH_MAX = 1_000;
/** Click rows formatted per turn of the thread: ~1–1.5 ms of it at 12–15 µs a row (1,000 held a redirect ~20 ms). */
const CSV_SLICE = 100;

/** Every UTC day of the range, oldest first, zero-filled. */
function daySeries(days: number, counts: { day: string; count: number }[], now = Date.now()) {
  const byDay = new Map(counts.map((c) => [c.day, Number(c.count)]));
  const out: { day: string; count: number }[] = [];
  for (let i = days - 1; i >= 0; i--) {
    const day = new Date(now - i * 86_400_000).toISOString().slice(0, 10);
    out.push({ day, count: byDay.get(day) ?? 0 });
  }
  return out;
}

export function analyticsReports(db: Database, opts: { retentionDays?: number | null; detailPerMinute?: number | null } = {}) {
  const store = analyticsStore(db);
  const gates = smartStore(db);
  // Once per server, at start: a report in a time zone other than UTC then finds Intl ready.
  loadTimeZones();

  /** Clicks per rule or split destination, and the password page's counts (issue 24). */
  function smartReport(link: LinkRow, routes: Tally[], gate: { views: number; unlocks: number }): AnalyticsReport["smart"] {
    if (!link.smart && routes.length === 0 && gate.views === 0) return null;
    let settings: SmartStored | null = null;
    try {
      settings = link.smart ? (JSON.parse(link.smart) as SmartStored) : null;
    } catch {
      settings = null;
    }
    return {
      routes: routes.map((t) => ({ route: t.name, name: routeName(t.name, settings), count: Number(t.count) })),
      passwordViews: gate.views,
      unlocks: gate.unlocks,
    };
  }
  return {
    async report(link: LinkRow, shortUrl: string, query: Record<string, string | undefined>): Promise<AnalyticsReport> {
      // The route validated the query already; read here too, so every caller gets the same 400s.
      const parsed = v.safeParse(AnalyticsQuery, query);
      if (!parsed.success) throw validationFailure(parsed.issues[0]);
      const q = parsed.output;
      const pageSize = q.pageSize === undefined ? PAGE_SIZE_DEFAULT : Number(q.pageSize);
      const page = q.page === undefined ? 1 : Number(q.page);
      const days = q.days === undefined ? 30 : Number(q.days);
      const since = new Date(Date.now() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
      const range = seriesRange(q, days);
      // Keyset: `before` is the id below which the page starts (the previous page's nextBefore).
      const before = q.before === undefined ? null : Number(q.before);
      const skip = before === null ? (page - 1) * pageSize : 0;
      if (skip + pageSize > PAGE_DEPTH_MAX) {
        throw badRequest(`Pages deeper than ${PAGE_DEPTH_MAX} clicks are read with before (the previous page's nextBefore)`, { page: "too deep without before" });
      }
      // Four reads at once, whatever the link's size: its roll-ups (one statement), a keyset page
      // of clicks, where its detail begins, and its password page's counts.
      const [{ tallies, routes, summary, days: perDay, hourRows, dayRows }, rows, detailSince, gate] = await Promise.all([
        store.rollups(link.id, { since, ...rollupKeys(range) }),
        store.page(link.id, skip + pageSize, before ?? Number.MAX_SAFE_INTEGER),
        store.firstRow(link.id),
        gates.gateTotals(link.id),
      ]);
      const points = seriesPoints(range, hourRows, dayRows);
      const clicks = rows.slice(skip);
      const lastClick = summary.last_ms ? new Date(summary.last_ms).toISOString() : await store.lastRow(link.id);
      return {
        link: {
          id: link.id,
          shortCode: link.short_code,
          shortUrl,
          originalUrl: link.original_url,
          title: link.title,
          createdAt: link.created_at,
          expiresAt: link.expires_at,
        },
        clickCount: link.click_count,
        uniqueVisitors: summary.unique ?? 0,
        lastClick,
        tallies,
        timeline: { days, series: daySeries(days, perDay) },
        series: {
          interval: range.interval,
          tz: range.tz,
          from: new Date(range.fromMs).toISOString(),
          to: new Date(range.toMs).toISOString(),
          total: points.reduce((n, p) => n + p.count, 0),
          points,
        },
        page,
        pageSize,
        clicks,
        nextBefore: clicks.length === pageSize ? clicks[clicks.length - 1]!.id : null,
        visits: { new: summary.new ?? 0, returning: summary.returning ?? 0, bots: summary.bots ?? 0 },
        smart: smartReport(link, routes, gate),
        detail: {
          rows: summary.rows ?? 0,
          since: detailSince,
          retentionDays: opts.retentionDays ?? null,
          withoutDetail: summary.undetailed ?? 0,
          perSourcePerMinute: opts.detailPerMinute === undefined ? DETAIL_PER_MINUTE : opts.detailPerMinute,
        },
      };
    },
  };
}

/**
 * All of a link's clicks as CSV, as a download (src/downloads/jobs.ts runs it, on the reader
 * thread on SQLite): a page at a time (store.cursor, a page read ahead), so a million rows never
 * sit in memory at once; a client that goes away ends the read.
 */
export function clicksDownload(store: Pick<ReturnType<typeof analyticsStore>, "cursor">, linkId: number): Omit<SlicedStream<ClickRow>, "done"> {
  return {
    batches: store.cursor(linkId),
    slice: CSV_SLICE,
    head: csvLine(["timestamp", "browser", "device", "os", "country", "city", "referrer", "visit_type", "visit_number", "source", "is_bot", "user_agent", "ip"]),
    format: (rows) => rows.map(csvRow).join(""),
  };
}

function csvRow(r: ClickRow) {
  let m: { isReturningVisitor?: boolean; visitNumber?: number; source?: string; isBot?: boolean } = {};
  try {
    m = JSON.parse(r.metadata);
  } catch {
    /* keep defaults */
  }
  return csvLine([
    r.timestamp,
    r.browser,
    r.device_type,
    r.os,
    r.country,
    r.city,
    r.referrer,
    m.isReturningVisitor ? "Return Visit" : "New Visit",
    String(m.visitNumber ?? 1),
    m.source ?? "direct",
    m.isBot ? "yes" : "no",
    r.user_agent,
    r.ip,
  ]);
}

const csvLine = (cells: (string | null | undefined)[]) => cells.map(csvCell).join(",") + "\r\n";

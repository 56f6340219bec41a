// The report side of click analytics, on both backends: reads of the roll-ups the click writers
// keep with every batch (writerStore.ts for SQLite, pgWriterStore.ts for PostgreSQL, each on the
// click worker's own connection; tallies.ts), and keyset reads of the click detail rows. Nothing
// here reads more than a page of raw rows.
import type { Database, Queries } from "../db/database";
import { type ClickView, DIMENSIONS, type Dimension, type Tally } from "./schema";
import type { SummaryValue } from "./tallies";

export type ClickRow = {
  id: number;
  timestamp: string;
  referrer: string | null;
  user_agent: string | null;
  ip: string | null;
  country: string | null;
  city: string | null;
  device_type: string | null;
  browser: string | null;
  os: string | null;
  metadata: string;
};

const TOP = 10;

export function toClickView(r: ClickRow): ClickView {
  let m: Partial<ClickView["metadata"]> = {};
  try {
    m = JSON.parse(r.metadata);
  } catch {
    m = {};
  }
  return {
    id: r.id,
    timestamp: r.timestamp,
    browser: r.browser,
    deviceType: r.device_type,
    os: r.os,
    userAgent: r.user_agent,
    country: r.country,
    city: r.city,
    referrer: r.referrer,
    metadata: {
      isReturningVisitor: Boolean(m.isReturningVisitor),
      visitNumber: Number(m.visitNumber) || 1,
      source: typeof m.source === "string" ? m.source : "direct",
      isBot: Boolean(m.isBot),
    },
  };
}

/** The columns a click page and the CSV read. */
const ROW = "id, timestamp, referrer, user_agent, ip, country, city, device_type, browser, os, metadata";

/**
 * A link's clicks in id order (`order`), `cols` starting with the id; `bound`, when given, a
 * condition on the id written with `$id`.
 *
 * SQLite (migrations/0008): the folded clicks (link_clicks, up to the fold mark) plus the
 * unfolded tail (ids above the mark, found by scanning that id range: at most a fold interval of
 * rows). Every tail id is above every folded one, and each arm comes out in id order by itself
 * (a rowid range, the index: the folded arm must name i.click_id, not a.id, for SQLite to see
 * that), so SQLite merges them without sorting a link's million clicks.
 *
 * PostgreSQL (migrations/pg/0011): one range of the index link_analytics (link_id, id), its ids
 * first, then each row by its id. Asked for the rows at once, the planner walked the primary key
 * from the newest click and dropped other links' rows: a link with most of the clicks looks as if
 * nearly every row were its own, but the clicks made since its last one all come first. At 10M
 * clicks a first page took 0.3–0.4 s behind 70,000 newer clicks of other links, and a CSV page
 * deep down 4.7 s under a generic plan; this way 0.2–5 ms under either plan (docs/performance.md,
 * "Lead, session 10"). The link's id comes through a subquery so that the planner reckons with a
 * link's average share of the clicks, not this link's (which had it prefer the primary key), and
 * OFFSET 0 keeps the row lookup a subquery, so it stays a lookup by id. Its click writer does not
 * fold: there a btree insert costs less than the fold (docs/decisions.md).
 */
export function clicksOf(db: Queries, cols: string, order: "ASC" | "DESC", limit: string, bound?: string) {
  const and = (id: string) => (bound ? ` AND ${bound.replaceAll("$id", id)}` : "");
  if (db.dialect === "postgres") {
    return `SELECT a.* FROM (SELECT id FROM link_analytics WHERE link_id = (SELECT ?1::bigint)${and("id")} ORDER BY id ${order} LIMIT ${limit}) k
      CROSS JOIN LATERAL (SELECT ${cols} FROM link_analytics WHERE id = k.id OFFSET 0) a ORDER BY k.id ${order}`;
  }
  return `SELECT ${cols} FROM link_analytics WHERE id > (SELECT folded FROM click_fold) AND link_id = ?1${and("id")}
   UNION ALL
   SELECT i.click_id, ${cols.split(", ").slice(1).map((c) => `a.${c}`).join(", ")} FROM link_clicks i JOIN link_analytics a ON a.id = i.click_id
   WHERE i.link_id = ?1${and("i.click_id")}
   ORDER BY 1 ${order} LIMIT ${limit}`;
}

/** Rows a CSV page reads (on the reader thread); the report formats them a slice at a time. */
const CSV_PAGE = 1000;
/**
 * Was the per-link lock of on-read roll-ups. Roll-ups are now written by the click writers in
 * their own transactions (which take the writers' turn, as a reset does), so nothing takes it
 * but the reset, where it is harmless; kept so that a reset running beside an older instance
 * mid-upgrade still waits for that instance's roll-up.
 */
export const ROLL_UP_LOCK = 0x746c7275;

/**
 * A link's count to zero and its history with it, inside the caller's transaction (the links
 * store's reset), so the analytics always add up to the count. A link's clicks are the folded
 * ones (link_clicks) and the unfolded tail (migrations/0008, whose trigger does the same when a
 * link is deleted); the fold tables exist on both backends.
 */
export async function clearLinkClicks(q: Queries, linkId: number) {
  // SQLite: BEGIN IMMEDIATE already holds the one writer lock (the click writer's connection
  // included). PostgreSQL, where every instance's click writer runs beside this: the fold mark's
  // row is the lock those writers take first for each batch (pgWriterStore.ts), so taken here
  // first, no batch of clicks is half counted and half deleted, and the rows, roll-ups and count
  // are cleared as one. Then the link's roll-up lock: a roll-up that read the clicks before this
  // reset must not write their tallies back after it.
  if (q.dialect === "postgres") {
    await q.run("SELECT folded FROM click_fold WHERE id = 1 FOR UPDATE");
    await q.get("SELECT pg_advisory_xact_lock(?, ?)", ROLL_UP_LOCK, linkId);
  }
  await q.run("UPDATE link_click_counts SET clicks = 0 WHERE link_id = ?", linkId);
  await q.run("DELETE FROM link_analytics WHERE id IN (SELECT click_id FROM link_clicks WHERE link_id = ?1)", linkId);
  await q.run("DELETE FROM link_analytics WHERE id > (SELECT folded FROM click_fold) AND link_id = ?1", linkId);
  await q.run("DELETE FROM link_clicks WHERE link_id = ?1", linkId);
  await q.run("DELETE FROM link_rollups WHERE link_id = ?", linkId);
}

/** What a report reads of a link's roll-ups (rollups below), each part as the single reads give it. */
export type ReportRollups = {
  tallies: Record<Dimension, Tally[]>;
  routes: Tally[];
  summary: Partial<Record<SummaryValue, number>>;
  /** 'day' rows from `since` on (the timeline). */
  days: { day: string; count: number }[];
  /** 'hour' and 'day' rows of the series' keys (series.ts rollupKeys). */
  hourRows: { value: string; count: number }[];
  dayRows: { value: string; count: number }[];
};

/** Routes a report lists (smart links): more than a tally's TOP. */
const ROUTES_TOP = 50;

export function analyticsStore(db: Database) {
  // Every read here is a report's: on the reader thread (db.reads), off the redirects' thread.
  const reads = db.reads;
  return {
    top: (linkId: number, dim: Dimension | "route", limit = TOP) =>
      reads.all<Tally>("SELECT value AS name, count FROM link_rollups WHERE link_id = ? AND dim = ? ORDER BY count DESC, value LIMIT ?", linkId, dim, limit),
    /**
     * Every roll-up a report shows, in one statement: each dimension's top (the routes' top 50),
     * the summary, the timeline's days and the series' hours and days — each arm one range of the
     * key (link_id, dim, value), a few hundred rows in all. One statement, not eleven: on
     * PostgreSQL statements sent at once each take a pooled connection (a backend process), and
     * a first view's parse and plan on each of them was most of its time (docs/decisions.md,
     * "PostgreSQL reports at tenant scale (H-pgview)"); on SQLite one trip to the reader thread.
     */
    async rollups(linkId: number, keys: { since: string; dayFrom: string; dayTo: string; hourFrom: string; hourTo: string }): Promise<ReportRollups> {
      const tops = [...DIMENSIONS, "route"];
      const rows = await reads.all<{ part: string; value: string; count: number }>(
        `SELECT dim AS part, value, count, rank FROM (
           SELECT dim, value, count, row_number() OVER (PARTITION BY dim ORDER BY count DESC, value) AS rank
           FROM link_rollups WHERE link_id = ?1 AND dim IN (${tops.map((d) => `'${d}'`).join(", ")})
         ) AS ranked WHERE rank <= CASE WHEN dim = 'route' THEN ${ROUTES_TOP} ELSE ${TOP} END
         UNION ALL SELECT 'summary', value, count, 0 FROM link_rollups WHERE link_id = ?1 AND dim = 'summary'
         UNION ALL SELECT 'days', value, count, 0 FROM link_rollups WHERE link_id = ?1 AND dim = 'day' AND value >= ?2
         UNION ALL SELECT 'dayRows', value, count, 0 FROM link_rollups WHERE link_id = ?1 AND dim = 'day' AND value >= ?3 AND value <= ?4
         UNION ALL SELECT 'hourRows', value, count, 0 FROM link_rollups WHERE link_id = ?1 AND dim = 'hour' AND value >= ?5 AND value <= ?6
         ORDER BY 1, 4, 2`,
        linkId,
        keys.since,
        keys.dayFrom,
        keys.dayTo,
        keys.hourFrom,
        keys.hourTo,
      );
      const out: ReportRollups = { tallies: Object.fromEntries(DIMENSIONS.map((d) => [d, []])) as unknown as Record<Dimension, Tally[]>, routes: [], summary: {}, days: [], hourRows: [], dayRows: [] };
      for (const r of rows) {
        const count = Number(r.count);
        if (r.part === "summary") out.summary[r.value as SummaryValue] = count;
        else if (r.part === "days") out.days.push({ day: r.value, count });
        else if (r.part === "dayRows" || r.part === "hourRows") out[r.part].push({ value: r.value, count });
        else if (r.part === "route") out.routes.push({ name: r.value, count });
        else out.tallies[r.part as Dimension].push({ name: r.value, count });
      }
      return out;
    },
    /** Clicks per UTC day from `since` (YYYY-MM-DD) on; days without clicks are absent. */
    days: (linkId: number, since: string) =>
      reads.all<{ day: string; count: number }>("SELECT value AS day, count FROM link_rollups WHERE link_id = ? AND dim = 'day' AND value >= ? ORDER BY value", linkId, since),
    /**
     * Clicks per UTC day from `since` on for several links at once (a list page's sparklines):
     * one read of the roll-ups' (link_id, dim, value) key per link, whatever the clicks.
     */
    daysOf: (linkIds: number[], since: string) =>
      linkIds.length === 0
        ? Promise.resolve([])
        : reads.all<{ link_id: number; day: string; count: number }>(
            `SELECT link_id, value AS day, count FROM link_rollups WHERE link_id IN (${linkIds.map(() => "?").join(",")}) AND dim = 'day' AND value >= ?`,
            ...linkIds,
            since,
          ),
    /** The link's 'summary' counts (tallies.ts SummaryValue), as one object. */
    summary: async (linkId: number) => {
      const rows = await reads.all<{ value: string; count: number }>("SELECT value, count FROM link_rollups WHERE link_id = ? AND dim = 'summary'", linkId);
      return Object.fromEntries(rows.map((r) => [r.value, Number(r.count)])) as Partial<Record<SummaryValue, number>>;
    },
    /** The newest stored click's time, for links whose clicks predate the 'last_ms' tally. */
    lastRow: async (linkId: number) => (await reads.get<{ timestamp: string }>(clicksOf(reads, "id, timestamp", "DESC", "1"), linkId))?.timestamp ?? null,
    /** The oldest stored click's time: where the link's click detail begins (retention). */
    firstRow: async (linkId: number) => (await reads.get<{ timestamp: string }>(clicksOf(reads, "id, timestamp", "ASC", "1"), linkId))?.timestamp ?? null,
    /**
     * A page of click detail, newest first, below the click id `before` (keyset: one index
     * range however deep the page; never an OFFSET).
     */
    page: async (linkId: number, limit: number, before: number) =>
      (await reads.all<ClickRow>(clicksOf(reads, ROW, "DESC", "?3", "$id < ?2"), linkId, before, limit)).map(toClickView),
    /**
     * Every click of a link, newest first, a page at a time (keyset: each page an index range
     * below the last id seen), so a million rows never sit in memory and no read transaction
     * stays open while a slow client downloads. Clicks written meanwhile are newer than the
     * first page and are left out; a link's clicks deleted meanwhile may end it early.
     */
    async *cursor(linkId: number): AsyncGenerator<ClickRow[]> {
      for (let below = Number.MAX_SAFE_INTEGER; ; ) {
        const page = await reads.all<ClickRow>(clicksOf(reads, ROW, "DESC", "?3", "$id < ?2"), linkId, below, CSV_PAGE);
        if (page.length) yield page;
        if (page.length < CSV_PAGE) return;
        below = page[page.length - 1]!.id;
      }
    },
  };
}

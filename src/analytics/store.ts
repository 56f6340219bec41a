// The report side of click analytics: roll-ups and the aggregate and click reads (the click
// writer's statements are in writerStore.ts, on the click worker's own connection).
import type { Db } from "../db/open";
import type { ClickView, Dimension, Tally } from "./schema";

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

const UNKNOWN = "Unknown";
const TOP = 10;

/** The referrer as the tallies show it: its host name, or 'Direct'. */
export function referrerHost(referrer: string | null) {
  if (!referrer) return "Direct";
  try {
    return new URL(referrer).hostname || "Direct";
  } catch {
    return "Direct";
  }
}

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

type Aggregate = Map<string, number>;

/** The columns a click page and the CSV read. */
const ROW = "id, timestamp, referrer, user_agent, ip, country, city, device_type, browser, os, metadata";
// A link's clicks are the folded ones (link_clicks, up to the fold mark) plus the unfolded tail
// (ids above the mark, found by scanning that id range: at most a fold interval of rows). Every
// tail id is above every folded one, so "newest first" is the tail's then the folded ones: each
// arm below comes out in id order by itself (a reverse rowid range, the index: the folded arm
// must name i.click_id, not a.id, for SQLite to see that), and SQLite merges them without
// sorting a link's million clicks (migrations/0008).
const TAIL = "id > (SELECT folded FROM click_fold) AND link_id = ?1";
const newestFirst = (cols: string) =>
  `SELECT ${cols} FROM link_analytics WHERE ${TAIL}
   UNION ALL
   SELECT i.click_id, ${cols.split(", ").slice(1).map((c) => `a.${c}`).join(", ")} FROM link_clicks i JOIN link_analytics a ON a.id = i.click_id WHERE i.link_id = ?1
   ORDER BY 1 DESC`;

export function analyticsStore(db: Db) {
  const q = {
    add: db.prepare(
      `INSERT INTO link_rollups (link_id, dim, value, count) VALUES (?, ?, ?, ?)
       ON CONFLICT (link_id, dim, value) DO UPDATE SET count = count + excluded.count RETURNING count`,
    ),
    setMark: db.prepare(
      `INSERT INTO link_rollups (link_id, dim, value, count) VALUES (?, 'summary', ?, ?)
       ON CONFLICT (link_id, dim, value) DO UPDATE SET count = excluded.count`,
    ),
    mark: db.prepare("SELECT count FROM link_rollups WHERE link_id = ? AND dim = 'summary' AND value = 'mark_id'"),
    // Above the roll-up mark, oldest first: the tail, and the folded clicks above the mark.
    fresh: db.prepare(
      `SELECT id, timestamp, country, city, browser, device_type, os, referrer, visitor_id, is_bot FROM link_analytics WHERE ${TAIL} AND id > ?2
       UNION ALL
       SELECT i.click_id, a.timestamp, a.country, a.city, a.browser, a.device_type, a.os, a.referrer, a.visitor_id, a.is_bot
       FROM link_clicks i JOIN link_analytics a ON a.id = i.click_id WHERE i.link_id = ?1 AND i.click_id > ?2
       ORDER BY 1`,
    ),
    top: db.prepare("SELECT value AS name, count FROM link_rollups WHERE link_id = ? AND dim = ? ORDER BY count DESC, value LIMIT ?"),
    summary: db.prepare("SELECT count FROM link_rollups WHERE link_id = ? AND dim = 'summary' AND value = 'unique'"),
    days: db.prepare("SELECT value AS day, count FROM link_rollups WHERE link_id = ? AND dim = 'day' AND value >= ? ORDER BY value"),
    last: db.prepare(
      `SELECT timestamp AS last FROM link_analytics WHERE id = COALESCE(
         (SELECT MAX(id) FROM link_analytics WHERE ${TAIL}), (SELECT MAX(click_id) FROM link_clicks WHERE link_id = ?1))`,
    ),
    page: db.prepare(`${newestFirst(ROW)} LIMIT ?2 OFFSET ?3`),
  };

  /**
   * Folds the clicks written since the last roll-up into the link's tallies. The mark is the
   * id of the last click folded in: a link's clicks are written in capture order, so their ids
   * only grow, and link_clicks (which holds the id) and the tail find the new ones directly.
   */
  const rollUp = db.transaction((linkId: number) => {
    const markId = (q.mark.get(linkId) as { count: number } | null)?.count ?? 0;
    const dims = new Map<string, Aggregate>();
    const visitors: Aggregate = new Map();
    const bump = (dim: string, value: string) => {
      let agg = dims.get(dim);
      if (!agg) dims.set(dim, (agg = new Map()));
      agg.set(value, (agg.get(value) ?? 0) + 1);
    };
    let lastId = markId;
    type Fresh = { id: number; timestamp: string; country: string | null; city: string | null; browser: string | null; device_type: string | null; os: string | null; referrer: string | null; visitor_id: string | null; is_bot: number };
    for (const r of q.fresh.iterate(linkId, markId) as IterableIterator<Fresh>) {
      bump("country", r.country ?? UNKNOWN);
      bump("city", r.city ?? UNKNOWN);
      bump("browser", r.browser ?? UNKNOWN);
      bump("device", r.device_type ?? UNKNOWN);
      bump("os", r.os ?? UNKNOWN);
      bump("referrer", referrerHost(r.referrer));
      bump("day", r.timestamp.slice(0, 10));
      // Bots are counted as clicks but never as visitors.
      if (!r.is_bot && r.visitor_id) visitors.set(r.visitor_id, (visitors.get(r.visitor_id) ?? 0) + 1);
      lastId = r.id;
    }
    if (lastId === markId) return;
    for (const [dim, agg] of dims) for (const [value, n] of agg) q.add.get(linkId, dim, value, n);
    let newVisitors = 0;
    for (const [visitor, n] of visitors) {
      const total = (q.add.get(linkId, "visitor", visitor, n) as { count: number }).count;
      if (total === n) newVisitors++;
    }
    if (newVisitors) q.add.get(linkId, "summary", "unique", newVisitors);
    q.setMark.run(linkId, "mark_id", lastId);
  });

  return {
    // IMMEDIATE: two connections write (the app's and the click writer's); a deferred transaction
    // that reads first would fail with SQLITE_BUSY instead of waiting if the other committed.
    rollUp: (linkId: number) => rollUp.immediate(linkId),
    top: (linkId: number, dim: Dimension, limit = TOP) => q.top.all(linkId, dim, limit) as Tally[],
    uniqueVisitors: (linkId: number) => (q.summary.get(linkId) as { count: number } | null)?.count ?? 0,
    /** Clicks per UTC day from `since` (YYYY-MM-DD) on; days without clicks are absent. */
    days: (linkId: number, since: string) => q.days.all(linkId, since) as { day: string; count: number }[],
    lastClick: (linkId: number) => (q.last.get(linkId) as { last: string } | null)?.last ?? null,
    page: (linkId: number, limit: number, offset: number) => (q.page.all(linkId, limit, offset) as ClickRow[]).map(toClickView),
    /**
     * Every click of a link, newest first, as a cursor. Each call gets its own statement (two
     * exports at once must not share one); `close` ends the read so the WAL can be checkpointed.
     */
    cursor(linkId: number) {
      const stmt = db.prepare(newestFirst(ROW));
      const rows = stmt.iterate(linkId) as IterableIterator<ClickRow>;
      return { rows, close: () => stmt.finalize() };
    },
  };
}

// The only SQL for click analytics: the batched click writer and the aggregate reads.
import type { Db } from "../db/open";
import type { ClickView, Dimension, Tally } from "./schema";

/** A click ready to store (parsed, located, anonymised). */
export type ClickRecord = {
  linkId: number;
  timestamp: string;
  referrer: string | null;
  userAgent: string | null;
  ip: string | null;
  country: string | null;
  city: string | null;
  deviceType: string | null;
  browser: string | null;
  os: string | null;
  visitorId: string;
  /** The visitor cookie was issued by this click: visit 1 without looking anything up. */
  newVisitor: boolean;
  isBot: boolean;
  source: string;
};

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

/** How a link's click count moved in one batch. */
export type CountMove = { linkId: number; before: number; after: number };
export type LinkInfo = { user_id: number | null; title: string; short_code: string; tracker: string };

type Aggregate = Map<string, number>;

/** A click's metadata column, as JSON.stringify would write it (built directly: once per click). */
export function metadataJson(visitNumber: number, source: string, isBot: boolean) {
  return `{"isReturningVisitor":${visitNumber > 1},"visitNumber":${visitNumber},"source":${JSON.stringify(source)},"isBot":${isBot}}`;
}

export function analyticsStore(db: Db) {
  const q = {
    insert: db.prepare(
      `INSERT INTO link_analytics (link_id, timestamp, referrer, user_agent, ip, country, city, device_type, browser, os, visitor_id, is_bot, metadata)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    visits: db.prepare("SELECT COUNT(*) AS n FROM link_analytics WHERE visitor_id = ? AND link_id = ?"),
    // No row: the link was deleted, and its clicks go with it (every link has a row, 0003).
    addCount: db.prepare("UPDATE link_click_counts SET clicks = clicks + ?2 WHERE link_id = ?1 RETURNING clicks"),
    lastId: db.prepare("SELECT COALESCE(MAX(id), 0) AS id FROM link_analytics"),
    // The clicks of this transaction (ids above ?1) whose link was deleted meanwhile: removed,
    // as their link's history was. Every live link has its row in link_click_counts (0003).
    dropOrphans: db.prepare(
      "DELETE FROM link_analytics WHERE id > ?1 AND NOT EXISTS (SELECT 1 FROM link_click_counts c WHERE c.link_id = link_analytics.link_id)",
    ),
    // Links whose count crosses a milestone with this transaction's clicks, before the update.
    crossings: db.prepare(
      `WITH t AS (SELECT link_id, COUNT(*) AS n FROM link_analytics NOT INDEXED WHERE id > ?1 GROUP BY link_id)
       SELECT t.link_id AS linkId, c.clicks AS before, c.clicks + t.n AS after FROM t JOIN link_click_counts c ON c.link_id = t.link_id
       WHERE (c.clicks < 1 AND c.clicks + t.n >= 1) OR (c.clicks < 100 AND c.clicks + t.n >= 100)
          OR (c.clicks < 1000 AND c.clicks + t.n >= 1000) OR (c.clicks < 10000 AND c.clicks + t.n >= 10000)`,
    ),
    // Every link's count in one statement: SQLite walks the new rows and the counts in C, where a
    // statement per link from JavaScript cost ~2 µs a click (docs/performance.md).
    addCounts: db.prepare(
      `UPDATE link_click_counts SET clicks = clicks + t.n
       FROM (SELECT link_id, COUNT(*) AS n FROM link_analytics NOT INDEXED WHERE id > ?1 GROUP BY link_id) AS t
       WHERE link_click_counts.link_id = t.link_id`,
    ),
    link: db.prepare("SELECT user_id, title, short_code, tracker FROM short_links WHERE id = ?"),
    add: db.prepare(
      `INSERT INTO link_rollups (link_id, dim, value, count) VALUES (?, ?, ?, ?)
       ON CONFLICT (link_id, dim, value) DO UPDATE SET count = count + excluded.count RETURNING count`,
    ),
    setMark: db.prepare(
      `INSERT INTO link_rollups (link_id, dim, value, count) VALUES (?, 'summary', ?, ?)
       ON CONFLICT (link_id, dim, value) DO UPDATE SET count = excluded.count`,
    ),
    mark: db.prepare("SELECT count FROM link_rollups WHERE link_id = ? AND dim = 'summary' AND value = 'mark_id'"),
    fresh: db.prepare(
      `SELECT id, timestamp, country, city, browser, device_type, os, referrer, visitor_id, is_bot
       FROM link_analytics WHERE link_id = ? AND id > ? ORDER BY id`,
    ),
    top: db.prepare("SELECT value AS name, count FROM link_rollups WHERE link_id = ? AND dim = ? ORDER BY count DESC, value LIMIT ?"),
    summary: db.prepare("SELECT count FROM link_rollups WHERE link_id = ? AND dim = 'summary' AND value = 'unique'"),
    days: db.prepare("SELECT value AS day, count FROM link_rollups WHERE link_id = ? AND dim = 'day' AND value >= ? ORDER BY value"),
    last: db.prepare("SELECT timestamp AS last FROM link_analytics WHERE link_id = ? ORDER BY id DESC LIMIT 1"),
    page: db.prepare(
      `SELECT id, timestamp, referrer, user_agent, ip, country, city, device_type, browser, os, metadata
       FROM link_analytics WHERE link_id = ? ORDER BY id DESC LIMIT ? OFFSET ?`,
    ),
  };

  /**
   * Writes a batch of clicks (in the caller's transaction): one row per click, then every link's
   * count in one statement. This is all the hot path pays for; the tallies are rolled up when
   * someone reads them. `countedOnly`: per link, clicks to count without a row (dropped under
   * overload, recorder.ts). Returns the count moves that cross a milestone (MILESTONES in
   * writer.ts) plus every counted-only move. Clicks for a link that no longer exists are dropped
   * (its history went with it).
   */
  const writeBatch = (clicks: ClickRecord[], countedOnly?: ReadonlyMap<number, number>): CountMove[] => {
    const byLink = new Map<number, ClickRecord[]>();
    for (const c of clicks) {
      const list = byLink.get(c.linkId);
      if (list) list.push(c);
      else byLink.set(c.linkId, [c]);
    }
    const lo = (q.lastId.get() as { id: number }).id;
    // In link order: the index and table pages are then visited in key order, each once.
    for (const linkId of [...byLink.keys()].sort((a, b) => a - b)) {
      const list = byLink.get(linkId)!;
      // The same visitor twice in one batch counts on from the first (most links get one click).
      const seen = list.length > 1 ? new Map<string, number>() : null;
      for (const c of list) {
        // A visitor whose cookie was minted by this very click has no history to count.
        const prior = seen?.get(c.visitorId) ?? (c.newVisitor ? 0 : (q.visits.get(c.visitorId, linkId) as { n: number }).n);
        const visitNumber = prior + 1;
        seen?.set(c.visitorId, visitNumber);
        q.insert.run(linkId, c.timestamp, c.referrer, c.userAgent, c.ip, c.country, c.city, c.deviceType, c.browser, c.os, c.visitorId, c.isBot ? 1 : 0, metadataJson(visitNumber, c.source, c.isBot));
      }
    }
    const moved: CountMove[] = [];
    if (clicks.length > 0) {
      q.dropOrphans.run(lo);
      moved.push(...(q.crossings.all(lo) as CountMove[]));
      q.addCounts.run(lo);
    }
    if (countedOnly) {
      for (const [linkId, n] of countedOnly) {
        const count = q.addCount.get(linkId, n) as { clicks: number } | null;
        if (count) moved.push({ linkId, before: count.clicks - n, after: count.clicks });
      }
    }
    return moved;
  };

  /**
   * Folds the clicks written since the last roll-up into the link's tallies. The mark is the
   * id of the last click folded in: a link's clicks are written in capture order, so their ids
   * only grow, and the (link_id) index (which holds the id) finds the new ones directly.
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
    /**
     * Runs inside the caller's transaction (the click writer's, with its notifications): a
     * nested one would copy every page it touches into a statement journal first.
     */
    writeBatch,
    /** Who owns a link and what it is called (for a milestone notification). */
    linkInfo: (linkId: number) => q.link.get(linkId) as LinkInfo | null,
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
      const stmt = db.prepare(
        `SELECT id, timestamp, referrer, user_agent, ip, country, city, device_type, browser, os, metadata
         FROM link_analytics WHERE link_id = ? ORDER BY id DESC`,
      );
      const rows = stmt.iterate(linkId) as IterableIterator<ClickRow>;
      return { rows, close: () => stmt.finalize() };
    },
  };
}

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

/** Click counts that notify the link's owner when crossed. */
export const MILESTONES = [1, 100, 1_000, 10_000];

/** How a link's click count moved in one batch. */
export type CountMove = { linkId: number; before: number; after: number };
export type LinkInfo = { user_id: number | null; title: string; short_code: string; tracker: string };

type Aggregate = Map<string, number>;

/** A click's metadata column, as JSON.stringify would write it (built directly: once per click). */
export function metadataJson(visitNumber: number, source: string, isBot: boolean) {
  return `{"isReturningVisitor":${visitNumber > 1},"visitNumber":${visitNumber},"source":${JSON.stringify(source)},"isBot":${isBot}}`;
}

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

/** Clicks per fold: the per-link index is filled in sorted bulk once this many are unfolded. */
export const FOLD_EVERY = 65_536;

export function analyticsStore(db: Db) {
  const q = {
    insert: db.prepare(
      `INSERT INTO link_analytics (id, link_id, timestamp, referrer, user_agent, ip, country, city, device_type, browser, os, visitor_id, is_bot, metadata)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    visits: db.prepare("SELECT COUNT(*) AS n FROM link_analytics WHERE visitor_id = ? AND link_id = ?"),
    // New ids go above the fold mark even when the newest clicks were deleted (0008).
    lastId: db.prepare("SELECT MAX(COALESCE((SELECT MAX(id) FROM link_analytics), 0), (SELECT folded FROM click_fold)) AS id, (SELECT folded FROM click_fold) AS folded"),
    // Every link's count in one statement, from a JSON object {linkId: clicks} (keys in
    // ascending order, so the count pages are visited in key order). A link without a row was
    // deleted (every live link has one, 0003): it is not returned, and its clicks are not kept.
    // Three statements scanning the new rows (orphans, milestone crossings, counts) cost 5.6
    // µs a click where this one costs ~1 (docs/performance.md).
    addCounts: db.prepare(
      "UPDATE link_click_counts SET clicks = clicks + j.value FROM json_each(?1) AS j WHERE link_click_counts.link_id = j.key RETURNING link_id, clicks",
    ),
    // The fold: the tail's (link_id, id) pairs sorted, so each page of link_clicks is written
    // once per fold however many of its links got clicks. OR IGNORE is for memory, not for
    // duplicates (the fold mark moves in the same transaction, so no pair comes twice): a
    // statement that cannot abort midway needs no statement journal, and with temp_store =
    // MEMORY that journal held a copy of every page the fold changed (peak RSS grew with the
    // clicks stored, 139 → 164 MB over five bench runs; flat at ~137 MB with it).
    fold: db.prepare("INSERT OR IGNORE INTO link_clicks (link_id, click_id) SELECT link_id, id FROM link_analytics WHERE id > ?1 ORDER BY link_id, id"),
    setFolded: db.prepare("UPDATE click_fold SET folded = ?1"),
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

  /** Fills link_clicks with the tail (in the caller's transaction) once it is `every` long, or always with 0. */
  const fold = (every = FOLD_EVERY) => {
    const { id, folded } = q.lastId.get() as { id: number; folded: number };
    if (id === folded || id - folded < every) return 0;
    q.fold.run(folded);
    q.setFolded.run(id);
    return id - folded;
  };

  /**
   * Writes a batch of clicks (in the caller's transaction): one row per click, then every link's
   * count in one statement. This is all the hot path pays for; the tallies are rolled up when
   * someone reads them. `countedOnly`: per link, clicks to count without a row (dropped under
   * overload, recorder.ts). Returns the count moves that cross a milestone (MILESTONES). Clicks
   * for a link that no longer exists are dropped (its history went with it).
   */
  const writeBatch = (clicks: ClickRecord[], countedOnly?: ReadonlyMap<number, number>): CountMove[] => {
    // Clicks per link (integer keys: the object lists them in ascending order).
    const counts: Record<number, number> = {};
    for (const c of clicks) counts[c.linkId] = (counts[c.linkId] ?? 0) + 1;
    if (countedOnly) for (const [linkId, n] of countedOnly) counts[linkId] = (counts[linkId] ?? 0) + n;
    const moved: CountMove[] = [];
    const live = new Set<number>();
    for (const [linkId, after] of q.addCounts.values(JSON.stringify(counts)) as [number, number][]) {
      live.add(linkId);
      const before = after - counts[linkId]!;
      if (MILESTONES.some((m) => before < m && after >= m)) moved.push({ linkId, before, after });
    }
    if (clicks.length === 0) return moved;
    let id = (q.lastId.get() as { id: number }).id;
    // In capture order, with ids given here: a visitor's clicks, and a link's, are numbered in
    // the order they happened, and new visitors' index entries land at its end.
    for (const c of clicks) {
      if (!live.has(c.linkId)) continue;
      // A visitor whose cookie was minted by this very click has no history to count. Earlier
      // clicks of this batch are already rows, so the count includes them.
      const visitNumber = (c.newVisitor ? 0 : (q.visits.get(c.visitorId, c.linkId) as { n: number }).n) + 1;
      q.insert.run(++id, c.linkId, c.timestamp, c.referrer, c.userAgent, c.ip, c.country, c.city, c.deviceType, c.browser, c.os, c.visitorId, c.isBot ? 1 : 0, metadataJson(visitNumber, c.source, c.isBot));
    }
    return moved;
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
    /**
     * Runs inside the caller's transaction (the click writer's, with its notifications): a
     * nested one would copy every page it touches into a statement journal first.
     */
    writeBatch,
    /** Folds the unfolded tail into link_clicks (in the caller's transaction): see FOLD_EVERY. */
    fold,
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
      const stmt = db.prepare(newestFirst(ROW));
      const rows = stmt.iterate(linkId) as IterableIterator<ClickRow>;
      return { rows, close: () => stmt.finalize() };
    },
  };
}

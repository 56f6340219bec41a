// The SQLite click writer's statements: rows, counts and the per-link index fold, on the click
// worker's own synchronous bun:sqlite connection (src/analytics/clickWorker.ts). The report side
// (roll-ups, pages, the CSV cursor) is store.ts.
import type { Db } from "../db/open";

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

/** Click counts that notify the link's owner when crossed. */
export const MILESTONES = [1, 100, 1_000, 10_000];

/** How a link's click count moved in one batch. */
export type CountMove = { linkId: number; before: number; after: number };
export type LinkInfo = { user_id: number | null; title: string; short_code: string; tracker: string };

/** A click's metadata column, as JSON.stringify would write it (built directly: once per click). */
export function metadataJson(visitNumber: number, source: string, isBot: boolean) {
  return `{"isReturningVisitor":${visitNumber > 1},"visitNumber":${visitNumber},"source":${JSON.stringify(source)},"isBot":${isBot}}`;
}

/** Clicks per fold: the per-link index is filled in sorted bulk once this many are unfolded. */
export const FOLD_EVERY = 65_536;

export function clickWriterStore(db: Db) {
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
  };

  // A first visit's metadata text by source and bot flag: most clicks share a handful, so each
  // is built once (a JSON.stringify and a concatenation a click otherwise).
  const firstVisit = [new Map<string, string>(), new Map<string, string>()] as const;
  const metadata = (visitNumber: number, source: string, isBot: boolean) => {
    if (visitNumber !== 1) return metadataJson(visitNumber, source, isBot);
    const bySource = firstVisit[isBot ? 1 : 0];
    let text = bySource.get(source);
    if (text === undefined) {
      text = metadataJson(1, source, isBot);
      if (bySource.size < 32) bySource.set(source, text);
    }
    return text;
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
    // Clicks per link, and the statement's JSON object of them in ascending key order, from the
    // link ids sorted: JSON.stringify of an object with thousands of sparse integer keys cost
    // 0.5 µs a click, this 0.2 (docs/performance.md).
    const ids = new Float64Array(clicks.length + (countedOnly?.size ?? 0));
    let k = 0;
    for (const c of clicks) ids[k++] = c.linkId;
    if (countedOnly) for (const linkId of countedOnly.keys()) ids[k++] = linkId;
    ids.sort();
    const counts = new Map<number, number>();
    let json = "{";
    for (let i = 0; i < ids.length; ) {
      const linkId = ids[i]!;
      let j = i + 1;
      while (j < ids.length && ids[j] === linkId) j++;
      // A countedOnly link's entry stands for its n clicks, not for one.
      const n = j - i + (countedOnly ? (countedOnly.get(linkId) ?? 1) - 1 : 0);
      json += `${i ? "," : ""}"${linkId}":${n}`;
      counts.set(linkId, n);
      i = j;
    }
    json += "}";
    const moved: CountMove[] = [];
    const live = new Set<number>();
    for (const [linkId, after] of q.addCounts.values(json) as [number, number][]) {
      live.add(linkId);
      const before = after - counts.get(linkId)!;
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
      q.insert.run(++id, c.linkId, c.timestamp, c.referrer, c.userAgent, c.ip, c.country, c.city, c.deviceType, c.browser, c.os, c.visitorId, c.isBot ? 1 : 0, metadata(visitNumber, c.source, c.isBot));
    }
    return moved;
  };

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
  };
}

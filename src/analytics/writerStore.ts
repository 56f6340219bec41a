// The SQLite click writer's statements: rows, counts and the per-link index fold, on the click
// worker's own synchronous bun:sqlite connection (src/analytics/clickWorker.ts). The report side
// (roll-ups, pages, the CSV cursor) is store.ts.
import type { Db } from "../db/open";
import { Tallies, type TalliedClick } from "./tallies";

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
  /** The smart link's rule or split destination that sent it; absent or null for a plain link. */
  route?: string | null;
  /** A detail row is stored (else counted and tallied only: the per-source throttle, tallies.ts). */
  detail: boolean;
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

/** Older clicks the backfill tallies per transaction: a few ms of the writer's time each. */
export const BACKFILL_CHUNK = 5_000;
/** Click rows retention deletes per transaction. */
export const RETENTION_CHUNK = 1_000;

/** A stored click as the backfill reads it. */
export type BackfillRow = {
  id: number;
  link_id: number;
  timestamp: string;
  country: string | null;
  city: string | null;
  browser: string | null;
  device_type: string | null;
  os: string | null;
  referrer: string | null;
  visitor_id: string | null;
  is_bot: number | boolean;
  metadata: string;
};

/** A stored click as the tallies take it (its visit number from its metadata). */
export function backfillClick(r: BackfillRow): TalliedClick {
  let visitNumber = 1;
  try {
    visitNumber = Number(JSON.parse(r.metadata).visitNumber) || 1;
  } catch {
    /* a row without metadata: a first visit */
  }
  return { linkId: r.link_id, timestamp: r.timestamp, country: r.country, city: r.city, browser: r.browser, deviceType: r.device_type, os: r.os, referrer: r.referrer, isBot: Boolean(r.is_bot), visitNumber, detail: true };
}

/** Clicks per fold: the per-link index is filled in sorted bulk once this many are unfolded. */
export const FOLD_EVERY = 65_536;

export function clickWriterStore(db: Db) {
  const q = {
    insert: db.prepare(
      `INSERT INTO link_analytics (id, link_id, timestamp, referrer, user_agent, ip, country, city, device_type, browser, os, visitor_id, is_bot, metadata, route)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    // Visit numbers from the rows: only while the backfill of older clicks is pending.
    visits: db.prepare("SELECT COUNT(*) AS n FROM link_analytics WHERE visitor_id = ? AND link_id = ? AND is_bot = ?"),
    // A click's visitor tally ('visitor' for people, 'botvisitor' for bots) before its batch:
    // plus the batch's own clicks, the visit number, and for a person a new unique visitor when
    // it is 1. Kept with every click (throttled ones too), so visit numbers stay exact whatever
    // retention or the throttle left of the rows, at one index probe per visitor per batch
    // however many visits came before; the batch's tallies add the new counts. An upsert with
    // RETURNING cost 5-7 µs a click more than this read (SQLite runs a RETURNING statement to
    // its end first, through a statement journal; docs/performance.md).
    visitor: db.prepare("SELECT count FROM link_rollups WHERE link_id = ?1 AND dim = ?2 AND value = ?3"),
    // A batch's tallies (tallies.ts), a row each, in link order; 'last_ms' keeps the larger
    // value. One statement over json_each(batch) cost more: each row's four fields were
    // extracted from its JSON text apart (71 against 62 µs a click at 100,000 links).
    tally: db.prepare("INSERT INTO link_rollups (link_id, dim, value, count) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (link_id, dim, value) DO UPDATE SET count = count + excluded.count"),
    tallyMax: db.prepare("INSERT INTO link_rollups (link_id, dim, value, count) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (link_id, dim, value) DO UPDATE SET count = MAX(count, excluded.count)"),
    backfillState: db.prepare("SELECT upto, done FROM click_backfill WHERE id = 1"),
    // The backfill's clicks: a rowid range, oldest first.
    backfillRows: db.prepare(
      "SELECT id, link_id, timestamp, country, city, browser, device_type, os, referrer, visitor_id, is_bot, metadata FROM link_analytics WHERE id > ?1 AND id <= ?2 ORDER BY id LIMIT ?3",
    ),
    setBackfill: db.prepare("UPDATE click_backfill SET done = ?1 WHERE id = 1"),
    // The last click an old on-read roll-up folded in (migrations/0002): those before it are tallied.
    mark: db.prepare("SELECT count FROM link_rollups WHERE link_id = ? AND dim = 'summary' AND value = 'mark_id'"),
    visitors: db.prepare(
      "INSERT INTO link_rollups (link_id, dim, value, count) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (link_id, dim, value) DO UPDATE SET count = count + excluded.count RETURNING count",
    ),
    // Retention: the oldest rows (a bounded id range: never a scan of the table) older than the cutoff.
    expired: db.prepare("SELECT id, link_id FROM link_analytics WHERE id IN (SELECT id FROM link_analytics ORDER BY id LIMIT ?2) AND timestamp < ?1"),
    deleteRows: db.prepare("DELETE FROM link_analytics WHERE id IN (SELECT value FROM json_each(?1))"),
    deleteIndexed: db.prepare("DELETE FROM link_clicks WHERE (link_id, click_id) IN (SELECT j.value ->> 0, j.value ->> 1 FROM json_each(?1) AS j)"),
    rowsLess: db.prepare("UPDATE link_rollups SET count = link_rollups.count - j.value FROM json_each(?1) AS j WHERE link_rollups.link_id = j.key AND link_rollups.dim = 'summary' AND link_rollups.value = 'rows'"),
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

  const upsert = (tallies: Tallies) => tallies.rows((linkId, dim, value, n) => (dim === "summary" && value === "last_ms" ? q.tallyMax : q.tally).run(linkId, dim, value, n));

  /** Fills link_clicks with the tail (in the caller's transaction) once it is `every` long, or always with 0. */
  const fold = (every = FOLD_EVERY) => {
    const { id, folded } = q.lastId.get() as { id: number; folded: number };
    if (id === folded || id - folded < every) return 0;
    q.fold.run(folded);
    q.setFolded.run(id);
    return id - folded;
  };

  /**
   * Writes a batch of clicks (in the caller's transaction): one row per click that keeps its
   * detail, every link's count in one statement, and the batch's roll-ups (tallies.ts) in one
   * more plus one visitor upsert per non-bot click, so analytics reads never fold raw rows.
   * `countedOnly`: per link, clicks to count without a row (dropped under overload,
   * recorder.ts). Returns the count moves that cross a milestone (MILESTONES). Clicks for a
   * link that no longer exists are dropped (its history went with it).
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
    const tallies = new Tallies();
    if (countedOnly) for (const [linkId, n] of countedOnly) if (live.has(linkId)) tallies.countedOnly(linkId, n);
    // Until the backfill of older clicks is done, their visitor tallies are incomplete: visit
    // numbers are then counted from the rows, as before roll-ups were written with the clicks.
    const fromRows = backfillPending();
    let id = (q.lastId.get() as { id: number }).id;
    // In capture order, with ids given here: a visitor's clicks, and a link's, are numbered in
    // the order they happened, and new visitors' index entries land at its end.
    // Visits per (link, visitor) so far, this batch's included.
    const visits = new Map<string, number>();
    for (const c of clicks) {
      if (!live.has(c.linkId)) continue;
      const dim = c.isBot ? "botvisitor" : "visitor";
      const key = `${c.linkId}\t${dim}\t${c.visitorId}`;
      // A visitor whose cookie was minted by this very click has no history to look up.
      let visitNumber = (visits.get(key) ?? (c.newVisitor ? 0 : ((q.visitor.get(c.linkId, dim, c.visitorId) as { count: number } | null)?.count ?? 0))) + 1;
      visits.set(key, visitNumber);
      tallies.add(c.linkId, dim, c.visitorId);
      if (!c.isBot && visitNumber === 1) tallies.add(c.linkId, "summary", "unique");
      // Earlier clicks of this batch are already rows, so the count includes them.
      if (fromRows && c.detail) visitNumber = (c.newVisitor ? 0 : (q.visits.get(c.visitorId, c.linkId, c.isBot ? 1 : 0) as { n: number }).n) + 1;
      tallies.click({ ...c, visitNumber });
      if (c.detail) q.insert.run(++id, c.linkId, c.timestamp, c.referrer, c.userAgent, c.ip, c.country, c.city, c.deviceType, c.browser, c.os, c.visitorId, c.isBot ? 1 : 0, metadata(visitNumber, c.source, c.isBot), c.route ?? null);
    }
    upsert(tallies);
    return moved;
  };

  /** The one-time backfill (migrations/0012) has clicks left to tally. */
  let backfillDone = false;
  const backfillPending = () => {
    if (backfillDone) return false;
    const s = q.backfillState.get() as { upto: number; done: number } | null;
    backfillDone = !s || s.done >= s.upto;
    return !backfillDone;
  };

  /**
   * One step of the one-time backfill (migrations/0012; in the caller's transaction): up to
   * `limit` clicks stored before roll-ups were written with the clicks, in id order, tallied as
   * the writer would have. Clicks up to their link's old roll-up mark already are in the
   * per-value tallies and add only the summary counts new with issue 21. True while more are left.
   */
  const backfillChunk = (limit = BACKFILL_CHUNK) => {
    const s = q.backfillState.get() as { upto: number; done: number } | null;
    if (!s || s.done >= s.upto) {
      backfillDone = true;
      return false;
    }
    const rows = q.backfillRows.all(s.done, s.upto, limit) as BackfillRow[];
    const marks = new Map<number, number>();
    const tallies = new Tallies();
    const visitors = new Map<string, { linkId: number; dim: string; visitorId: string; n: number }>();
    for (const r of rows) {
      let mark = marks.get(r.link_id);
      if (mark === undefined) marks.set(r.link_id, (mark = (q.mark.get(r.link_id) as { count: number } | null)?.count ?? 0));
      const c = backfillClick(r);
      tallies.summary(c);
      // Up to the mark the old roll-up has the per-value and people's visitor tallies; bots'
      // visitor tallies are new.
      const tallied = r.id <= mark;
      if (!tallied) tallies.dims(c);
      if (r.visitor_id && (c.isBot || !tallied)) {
        const dim = c.isBot ? "botvisitor" : "visitor";
        const key = `${r.link_id}\n${dim}\n${r.visitor_id}`;
        const v = visitors.get(key);
        if (v) v.n++;
        else visitors.set(key, { linkId: r.link_id, dim, visitorId: r.visitor_id, n: 1 });
      }
    }
    for (const v of visitors.values()) {
      // A person is new to the link when the tally is what this step added (the old roll-up's rule).
      const after = (q.visitors.get(v.linkId, v.dim, v.visitorId, v.n) as { count: number }).count;
      if (v.dim === "visitor" && after === v.n) tallies.add(v.linkId, "summary", "unique");
    }
    upsert(tallies);
    const done = rows.length < limit ? s.upto : rows[rows.length - 1]!.id;
    q.setBackfill.run(done);
    if (done >= s.upto) backfillDone = true;
    return done < s.upto;
  };

  /**
   * One step of retention (in the caller's transaction): deletes up to `limit` of the oldest
   * click rows stored before `cutoff` (an ISO time), with their link_clicks entries, and takes
   * them off their links' 'rows' counts; the tallies keep them. Returns the rows deleted (0
   * when none of the oldest `limit` is old enough).
   */
  const retentionChunk = (cutoff: string, limit = RETENTION_CHUNK) => {
    const rows = q.expired.all(cutoff, limit) as { id: number; link_id: number }[];
    if (rows.length === 0) return 0;
    const perLink: Record<string, number> = {};
    for (const r of rows) perLink[r.link_id] = (perLink[r.link_id] ?? 0) + 1;
    q.deleteRows.run(JSON.stringify(rows.map((r) => r.id)));
    q.deleteIndexed.run(JSON.stringify(rows.map((r) => [r.link_id, r.id])));
    q.rowsLess.run(JSON.stringify(perLink));
    return rows.length;
  };

  return {
    /** See backfillChunk; false once every older click is tallied. */
    backfillChunk,
    /** See retentionChunk. */
    retentionChunk,
    backfillPending,
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

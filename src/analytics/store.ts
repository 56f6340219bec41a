// The report side of click analytics: roll-ups and the aggregate and click reads, on both
// backends (the click writers' statements are in writerStore.ts for SQLite and pgWriterStore.ts
// for PostgreSQL, each on the click worker's own connection).
import type { Database, Queries } from "../db/database";
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
/** The columns a roll-up reads. */
const FRESH = "id, timestamp, country, city, browser, device_type, os, referrer, visitor_id, is_bot";

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
 * PostgreSQL (migrations/pg/0011): one range of the index link_analytics (link_id, id). Its
 * click writer does not fold: there a btree insert costs less than the fold (docs/decisions.md).
 */
function clicksOf(db: Queries, cols: string, order: "ASC" | "DESC", bound?: string) {
  const and = (id: string) => (bound ? ` AND ${bound.replaceAll("$id", id)}` : "");
  if (db.dialect === "postgres") return `SELECT ${cols} FROM link_analytics WHERE link_id = ?1${and("id")} ORDER BY id ${order}`;
  return `SELECT ${cols} FROM link_analytics WHERE id > (SELECT folded FROM click_fold) AND link_id = ?1${and("id")}
   UNION ALL
   SELECT i.click_id, ${cols.split(", ").slice(1).map((c) => `a.${c}`).join(", ")} FROM link_clicks i JOIN link_analytics a ON a.id = i.click_id
   WHERE i.link_id = ?1${and("i.click_id")}
   ORDER BY 1 ${order}`;
}

/** Clicks a roll-up transaction reads at most (memory stays flat, and the writer waits less). */
const ROLL_UP_CHUNK = 20_000;
/** Rows a CSV page reads. */
const CSV_PAGE = 1_000;
/**
 * PostgreSQL: roll-ups of one link run one at a time (a transaction-level advisory lock on
 * this class and the link id): two instances reading the same link's analytics at once would
 * otherwise both add the same new clicks. SQLite's BEGIN IMMEDIATE already serialises them.
 */
export const ROLL_UP_LOCK = 0x746c7275;

type Fresh = { id: number; timestamp: string; country: string | null; city: string | null; browser: string | null; device_type: string | null; os: string | null; referrer: string | null; visitor_id: string | null; is_bot: number };

/**
 * Adds per-value counts to a link's roll-ups in one statement, from a JSON array of
 * [dim, value, n]; `returning`: each row's count after the addition.
 */
function addAll(q: Queries, returning: boolean) {
  const from =
    q.dialect === "postgres"
      ? "SELECT ?1, j ->> 0, j ->> 1, (j ->> 2)::bigint FROM json_array_elements(?2::text::json) AS j"
      : // WHERE true: an upsert's SELECT needs one, or SQLite reads ON CONFLICT as a join's ON.
        "SELECT ?1, j.value ->> 0, j.value ->> 1, j.value ->> 2 FROM json_each(?2) AS j WHERE true";
  return `INSERT INTO link_rollups (link_id, dim, value, count) ${from}
    ON CONFLICT (link_id, dim, value) DO UPDATE SET count = link_rollups.count + excluded.count${returning ? " RETURNING value, count" : ""}`;
}

export function analyticsStore(db: Database) {
  /**
   * Folds up to ROLL_UP_CHUNK clicks written since the last roll-up into the link's tallies, in
   * one transaction; true when there may be more. The mark is the id of the last click rolled
   * up: a link's clicks are written in capture order with growing ids (on PostgreSQL the click
   * writers take turns, so ids also commit in order: pgWriterStore.ts), so the new ones are
   * exactly those above it.
   */
  const rollUpChunk = (linkId: number) =>
    db.tx(async (q) => {
      if (q.dialect === "postgres") await q.get("SELECT pg_advisory_xact_lock(?, ?)", ROLL_UP_LOCK, linkId);
      const markId = (await q.get<{ count: number }>("SELECT count FROM link_rollups WHERE link_id = ? AND dim = 'summary' AND value = 'mark_id'", linkId))?.count ?? 0;
      const fresh = await q.all<Fresh>(`${clicksOf(q, FRESH, "ASC", "$id > ?2")} LIMIT ?3`, linkId, markId, ROLL_UP_CHUNK);
      if (fresh.length === 0) return false;
      const dims = new Map<string, Aggregate>();
      const visitors: Aggregate = new Map();
      const bump = (dim: string, value: string) => {
        let agg = dims.get(dim);
        if (!agg) dims.set(dim, (agg = new Map()));
        agg.set(value, (agg.get(value) ?? 0) + 1);
      };
      for (const r of fresh) {
        bump("country", r.country ?? UNKNOWN);
        bump("city", r.city ?? UNKNOWN);
        bump("browser", r.browser ?? UNKNOWN);
        bump("device", r.device_type ?? UNKNOWN);
        bump("os", r.os ?? UNKNOWN);
        bump("referrer", referrerHost(r.referrer));
        bump("day", r.timestamp.slice(0, 10));
        // Bots are counted as clicks but never as visitors.
        if (!r.is_bot && r.visitor_id) visitors.set(r.visitor_id, (visitors.get(r.visitor_id) ?? 0) + 1);
      }
      const tallies: [string, string, number][] = [];
      for (const [dim, agg] of dims) for (const [value, n] of agg) tallies.push([dim, value, n]);
      await q.run(addAll(q, false), linkId, JSON.stringify(tallies));
      if (visitors.size) {
        // A visitor is new to the link when its count is what this roll-up added.
        const rows = await q.all<{ value: string; count: number }>(addAll(q, true), linkId, JSON.stringify([...visitors].map(([v, n]) => ["visitor", v, n])));
        const newVisitors = rows.reduce((k, r) => k + (r.count === visitors.get(r.value) ? 1 : 0), 0);
        if (newVisitors) await q.run(addAll(q, false), linkId, JSON.stringify([["summary", "unique", newVisitors]]));
      }
      await q.run(
        `INSERT INTO link_rollups (link_id, dim, value, count) VALUES (?, 'summary', 'mark_id', ?)
         ON CONFLICT (link_id, dim, value) DO UPDATE SET count = excluded.count`,
        linkId, fresh[fresh.length - 1]!.id,
      );
      return fresh.length === ROLL_UP_CHUNK;
    });

  return {
    /**
     * Brings the link's tallies up to date with its clicks. SQLite: each chunk is an IMMEDIATE
     * transaction (db.tx), as the click worker's connection writes too and a deferred one that
     * read first would fail with SQLITE_BUSY instead of waiting when it committed.
     */
    async rollUp(linkId: number) {
      while (await rollUpChunk(linkId));
    },
    top: (linkId: number, dim: Dimension, limit = TOP) =>
      db.all<Tally>("SELECT value AS name, count FROM link_rollups WHERE link_id = ? AND dim = ? ORDER BY count DESC, value LIMIT ?", linkId, dim, limit),
    uniqueVisitors: async (linkId: number) =>
      (await db.get<{ count: number }>("SELECT count FROM link_rollups WHERE link_id = ? AND dim = 'summary' AND value = 'unique'", linkId))?.count ?? 0,
    /** Clicks per UTC day from `since` (YYYY-MM-DD) on; days without clicks are absent. */
    days: (linkId: number, since: string) =>
      db.all<{ day: string; count: number }>("SELECT value AS day, count FROM link_rollups WHERE link_id = ? AND dim = 'day' AND value >= ? ORDER BY value", linkId, since),
    lastClick: async (linkId: number) => (await db.get<{ timestamp: string }>(`${clicksOf(db, "id, timestamp", "DESC")} LIMIT 1`, linkId))?.timestamp ?? null,
    page: async (linkId: number, limit: number, offset: number) =>
      (await db.all<ClickRow>(`${clicksOf(db, ROW, "DESC")} LIMIT ?2 OFFSET ?3`, linkId, limit, offset)).map(toClickView),
    /**
     * Every click of a link, newest first, a page at a time (keyset: each page an index range
     * below the last id seen), so a million rows never sit in memory and no read transaction
     * stays open while a slow client downloads. Clicks written meanwhile are newer than the
     * first page and are left out; a link's clicks deleted meanwhile may end it early.
     */
    async *cursor(linkId: number): AsyncGenerator<ClickRow[]> {
      for (let below = Number.MAX_SAFE_INTEGER; ; ) {
        const page = await db.all<ClickRow>(`${clicksOf(db, ROW, "DESC", "$id < ?2")} LIMIT ?3`, linkId, below, CSV_PAGE);
        if (page.length) yield page;
        if (page.length < CSV_PAGE) return;
        below = page[page.length - 1]!.id;
      }
    },
  };
}

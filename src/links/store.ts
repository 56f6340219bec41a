// The only SQL for short links, one text for SQLite and PostgreSQL (src/db/database.ts).
// Ownership is inside every WHERE clause, so "not yours" and "missing" are the same null → 404.
import type { Database, Queries } from "../db/database";
import { uniqueOr } from "../db/constraints";
import { conflict } from "../http/errors";
import { nowIso } from "../shared/time";
import { ROLL_UP_LOCK } from "../analytics/store";
import { appendEvents } from "../events/store";
import { MSG, type Tracker } from "./schema";

export type LinkRow = {
  id: number;
  user_id: number | null;
  tracker: Tracker;
  short_code: string;
  original_url: string;
  title: string;
  description: string | null;
  active: number;
  is_system: number;
  click_count: number;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
};

/** A link to write in a bulk create: `shortCode` null means "generate one". */
export type NewLink = { shortCode: string | null; originalUrl: string; title: string; description: string; expiresAt: string | null };

/** Generated codes tried per link before it is reported as refused (64^7 codes: never in practice). */
const GENERATE_TRIES = 10;

/** What the redirect needs, for every link at start (the in-memory map). */
export type RedirectRow = Pick<LinkRow, "id" | "short_code" | "original_url" | "active" | "expires_at">;

/** Links read per statement while the redirect map loads (keyset pages, see allForRedirect). */
const REDIRECT_PAGE = 5000;

// click_count comes from link_click_counts (migrations/0003): the click writer never rewrites a link row.
const COLS =
  "id, user_id, tracker, short_code, original_url, title, description, active, is_system, " +
  "COALESCE((SELECT clicks FROM link_click_counts WHERE link_id = short_links.id), 0) AS click_count, created_at, updated_at, expires_at";

const INSERT = "INSERT INTO short_links (user_id, tracker, short_code, original_url, title, description, expires_at, created_at, updated_at) VALUES";
/** One row's values for INSERT, in its column order. */
const ROW = "(?, ?, ?, ?, ?, ?, ?, ?, ?)";
const rowValues = (userId: number, tracker: Tracker, code: string, f: Fields, now: string) =>
  [userId, tracker, code, f.originalUrl, f.title, f.description || null, f.expiresAt, now, now] as const;

// Bulk create and import: many rows per INSERT, and a taken code returns no row instead of
// failing the statement, so one clash neither aborts its batch's transaction (PostgreSQL aborts
// a transaction at any error) nor costs an exception. A new link has no clicks, so the count is
// a constant here rather than a subquery per row.
const insertIfFree = (rows: number) =>
  `${INSERT} ${Array(rows).fill(ROW).join(", ")} ON CONFLICT (short_code) DO NOTHING
   RETURNING id, user_id, tracker, short_code, original_url, title, description, active, is_system, 0 AS click_count, created_at, updated_at, expires_at`;

/**
 * short_code is the only unique column a link write can clash on: a code taken between the
 * route's check and the write (another process, the CLI) is refused like one taken before.
 */
export const codeConflict = () => conflict(MSG.codeTaken, { shortCode: MSG.codeTaken });

/** A link's created/updated event, written with the row (src/events). */
const linkEvent = (type: "link.created" | "link.updated", r: LinkRow) =>
  ({ type, userId: r.user_id, linkId: r.id, data: { id: r.id, shortCode: r.short_code, tracker: r.tracker, originalUrl: r.original_url, title: r.title } }) as const;

/** One statement's row, and its event in the same transaction; no event when no row. */
const withEvent = (db: Database, type: "link.created" | "link.updated", text: string, ...params: (string | number | null)[]) =>
  db.tx(async (q) => {
    const row = await q.get<LinkRow>(text, ...params);
    if (row) await appendEvents(q, [linkEvent(type, row)]);
    return row;
  });

type Fields = { originalUrl: string; title: string; description: string; expiresAt: string | null };

export function linksStore(db: Database) {
  const getOwn = (id: number, userId: number, tracker: Tracker) =>
    db.get<LinkRow>(`SELECT ${COLS} FROM short_links WHERE id = ? AND user_id = ? AND tracker = ?`, id, userId, tracker);
  const getSystem = (id: number, tracker: Tracker) =>
    db.get<LinkRow>(`SELECT ${COLS} FROM short_links WHERE id = ? AND is_system = 1 AND tracker = ?`, id, tracker);

  /**
   * Many links (at most a WRITE_BATCH: 9 values a row) in one transaction, a row each, so an
   * item is written whole or not at all; `shortCode: null` asks for a generated one (`generate`,
   * retried on a clash). The result is aligned with `items`: the row, or null when the code was
   * taken. One multi-row INSERT a round (PostgreSQL: one round trip for the batch, about half
   * the time of single-row statements, even pipelined; 100,000 rows: .tmp measurements in
   * docs/decisions.md), its rows matched to items by code, since RETURNING's order is not
   * promised. Of two items naming one code the first gets it, as written one by one.
   */
  const createMany = (userId: number, tracker: Tracker, items: readonly NewLink[], generate: () => string | null) =>
    db.tx(async (q) => {
      const now = nowIso();
      const rows: (LinkRow | null)[] = items.map(() => null);
      let pending = items.map((_, i) => i);
      for (let round = 0; pending.length > 0 && round < GENERATE_TRIES; round++) {
        const claims = new Map<string, number>();
        for (const i of pending) {
          const code = items[i]!.shortCode ?? generate();
          if (code !== null && !claims.has(code)) claims.set(code, i);
        }
        if (claims.size > 0) {
          const values = [...claims].flatMap(([code, i]) => rowValues(userId, tracker, code, items[i]!, now));
          for (const row of await q.all<LinkRow>(insertIfFree(claims.size), ...values)) rows[claims.get(row.short_code)!] = row;
        }
        // A given code that is taken stays refused; a generated one is tried again.
        pending = pending.filter((i) => !rows[i] && items[i]!.shortCode === null);
      }
      await appendEvents(q, rows.flatMap((r) => (r ? [linkEvent("link.created", r)] : [])));
      return rows;
    });

  return {
    list: (userId: number, tracker: Tracker) =>
      db.all<LinkRow>(`SELECT ${COLS} FROM short_links WHERE user_id = ? AND tracker = ? ORDER BY created_at DESC, id DESC`, userId, tracker),
    /** The user's own link, or the system root link when `allowSystem` (the instance owner). */
    async get(id: number, userId: number, tracker: Tracker, allowSystem = false): Promise<LinkRow | null> {
      const own = await getOwn(id, userId, tracker);
      if (own || !allowSystem) return own;
      return getSystem(id, tracker);
    },
    byCode: (code: string) => db.get<LinkRow>(`SELECT ${COLS} FROM short_links WHERE short_code = ?`, code),
    codeTaken: async (code: string, exceptId = 0) => (await db.get("SELECT 1 AS x FROM short_links WHERE short_code = ? AND id != ?", code, exceptId)) !== null,
    create: (userId: number, tracker: Tracker, f: Fields & { shortCode: string }) =>
      uniqueOr(async () => (await withEvent(db, "link.created", `${INSERT} ${ROW} RETURNING ${COLS}`, ...rowValues(userId, tracker, f.shortCode, f, nowIso())))!, codeConflict),
    update: (id: number, userId: number, tracker: Tracker, f: { shortCode: string; originalUrl: string; title: string; description: string }) =>
      uniqueOr(
        () =>
          withEvent(
            db,
            "link.updated",
            `UPDATE short_links SET short_code = ?, original_url = ?, title = ?, description = ?, updated_at = ?
             WHERE id = ? AND user_id = ? AND tracker = ? AND is_system = 0 RETURNING ${COLS}`,
            f.shortCode, f.originalUrl, f.title, f.description || null, nowIso(), id, userId, tracker,
          ),
        codeConflict,
      ),
    // The Link Tracker's edit: the code is not among the columns, so it cannot change here.
    edit: (id: number, userId: number, tracker: Tracker, f: Fields) =>
      withEvent(
        db,
        "link.updated",
        `UPDATE short_links SET original_url = ?, title = ?, description = ?, expires_at = ?, updated_at = ?
         WHERE id = ? AND user_id = ? AND tracker = ? AND is_system = 0 RETURNING ${COLS}`,
        f.originalUrl, f.title, f.description || null, f.expiresAt, nowIso(), id, userId, tracker,
      ),
    delete: (id: number, userId: number, tracker: Tracker) =>
      db.tx(async (q) => {
        const gone = await q.get<{ id: number; short_code: string }>(
          "DELETE FROM short_links WHERE id = ? AND user_id = ? AND tracker = ? AND is_system = 0 RETURNING id, short_code",
          id, userId, tracker,
        );
        if (gone) await appendEvents(q, [{ type: "link.deleted", userId, linkId: gone.id, data: { id: gone.id, shortCode: gone.short_code, tracker } }]);
        return gone;
      }),
    /**
     * Count to zero and the history with it, so the analytics always add up to the count. A
     * link's clicks are the folded ones (link_clicks) and the unfolded tail (migrations/0008,
     * whose trigger does the same when a link is deleted); the fold tables exist on both backends.
     */
    resetClicks: (id: number) =>
      db.tx(async (q: Queries) => {
        // SQLite: BEGIN IMMEDIATE already holds the one writer lock (the click writer's
        // connection included). PostgreSQL, where every instance's click writer runs beside
        // this: the fold mark's row is the lock those writers take first for each batch
        // (analytics/pgWriterStore.ts), so taken here first, no batch of clicks is half
        // counted and half deleted, and the rows, roll-ups and count are cleared as one.
        // Then the link's roll-up lock (analytics/store.ts): a roll-up that read the clicks
        // before this reset must not write their tallies back after it.
        if (q.dialect === "postgres") {
          await q.run("SELECT folded FROM click_fold WHERE id = 1 FOR UPDATE");
          await q.get("SELECT pg_advisory_xact_lock(?, ?)", ROLL_UP_LOCK, id);
        }
        await q.run("UPDATE link_click_counts SET clicks = 0 WHERE link_id = ?", id);
        await q.run("DELETE FROM link_analytics WHERE id IN (SELECT click_id FROM link_clicks WHERE link_id = ?1)", id);
        await q.run("DELETE FROM link_analytics WHERE id > (SELECT folded FROM click_fold) AND link_id = ?1", id);
        await q.run("DELETE FROM link_clicks WHERE link_id = ?1", id);
        await q.run("DELETE FROM link_rollups WHERE link_id = ?", id);
        await q.run("UPDATE short_links SET updated_at = ? WHERE id = ?", nowIso(), id);
      }),
    /**
     * The links a batch of another instance's notifications names, as they are now
     * (PostgreSQL only: src/links/follow.ts). The ids travel as one text value, so a batch of
     * 1,000 is one parameter rather than 1,000.
     */
    forRedirectByIds: (ids: number[]) =>
      db.all<RedirectRow>(
        "SELECT id, short_code, original_url, active, expires_at FROM short_links WHERE id = ANY(string_to_array(?, ',')::bigint[])",
        ids.join(","),
      ),
    /**
     * Every link, a page at a time by id (keyset: each page an index range, never an OFFSET):
     * no 100,000-row array is held at once while the redirect map loads, and the same
     * statement serves both backends (on PostgreSQL no cursor, which would need a transaction
     * open for the whole load).
     */
    async *allForRedirect(): AsyncGenerator<RedirectRow> {
      for (let after = 0; ; ) {
        const page = await db.all<RedirectRow>(
          "SELECT id, short_code, original_url, active, expires_at FROM short_links WHERE id > ? ORDER BY id LIMIT ?",
          after, REDIRECT_PAGE,
        );
        yield* page;
        if (page.length < REDIRECT_PAGE) return;
        after = page[page.length - 1]!.id;
      }
    },
    syncRootUrl: async (url: string) =>
      (await db.run("UPDATE short_links SET original_url = ?1 WHERE short_code = 'root' AND is_system = 1 AND original_url != ?1", url)) > 0,
    root: () => db.get<LinkRow>(`SELECT ${COLS} FROM short_links WHERE short_code = 'root' AND is_system = 1`),
    createMany,
  };
}

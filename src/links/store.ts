// The only SQL for short links. Ownership is inside every WHERE clause, so "not yours" and
// "missing" are the same null → 404.
import type { Db } from "../db/open";
import { conflict } from "../http/errors";
import { uniqueOrSync as uniqueOr } from "../db/legacy";
import { nowIso } from "../shared/time";
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

// click_count comes from link_click_counts (migrations/0003): the click writer never rewrites a link row.
const COLS =
  "id, user_id, tracker, short_code, original_url, title, description, active, is_system, " +
  "COALESCE((SELECT clicks FROM link_click_counts WHERE link_id = short_links.id), 0) AS click_count, created_at, updated_at, expires_at";

/**
 * short_code is the only unique column a link write can clash on: a code taken between the
 * route's check and the write (another process, the CLI) is refused like one taken before.
 */
export const codeConflict = () => conflict(MSG.codeTaken, { shortCode: MSG.codeTaken });

export function linksStore(db: Db) {
  const q = {
    list: db.prepare(`SELECT ${COLS} FROM short_links WHERE user_id = ? AND tracker = ? ORDER BY created_at DESC, id DESC`),
    get: db.prepare(`SELECT ${COLS} FROM short_links WHERE id = ? AND user_id = ? AND tracker = ?`),
    getSystem: db.prepare(`SELECT ${COLS} FROM short_links WHERE id = ? AND is_system = 1 AND tracker = ?`),
    byCode: db.prepare(`SELECT ${COLS} FROM short_links WHERE short_code = ?`),
    codeTaken: db.prepare("SELECT 1 AS x FROM short_links WHERE short_code = ? AND id != ?"),
    insert: db.prepare(
      `INSERT INTO short_links (user_id, tracker, short_code, original_url, title, description, expires_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLS}`,
    ),
    update: db.prepare(
      `UPDATE short_links SET short_code = ?, original_url = ?, title = ?, description = ?, updated_at = ?
       WHERE id = ? AND user_id = ? AND tracker = ? AND is_system = 0 RETURNING ${COLS}`,
    ),
    // The Link Tracker's edit: the code is not among the columns, so it cannot change here.
    edit: db.prepare(
      `UPDATE short_links SET original_url = ?, title = ?, description = ?, expires_at = ?, updated_at = ?
       WHERE id = ? AND user_id = ? AND tracker = ? AND is_system = 0 RETURNING ${COLS}`,
    ),
    delete: db.prepare("DELETE FROM short_links WHERE id = ? AND user_id = ? AND tracker = ? AND is_system = 0 RETURNING id, short_code"),
    resetCount: db.prepare("UPDATE link_click_counts SET clicks = 0 WHERE link_id = ?"),
    touch: db.prepare("UPDATE short_links SET updated_at = ? WHERE id = ?"),
    // A link's clicks are the folded ones (link_clicks) and the unfolded tail (migrations/0008,
    // whose trigger does the same when a link is deleted).
    resetFolded: db.prepare("DELETE FROM link_analytics WHERE id IN (SELECT click_id FROM link_clicks WHERE link_id = ?1)"),
    resetTail: db.prepare("DELETE FROM link_analytics WHERE id > (SELECT folded FROM click_fold) AND link_id = ?1"),
    resetIndex: db.prepare("DELETE FROM link_clicks WHERE link_id = ?1"),
    resetRollups: db.prepare("DELETE FROM link_rollups WHERE link_id = ?"),
    allForRedirect: db.prepare("SELECT id, short_code, original_url, active, expires_at FROM short_links"),
    setRootUrl: db.prepare("UPDATE short_links SET original_url = ? WHERE short_code = 'root' AND is_system = 1 AND original_url != ?"),
    root: db.prepare(`SELECT ${COLS} FROM short_links WHERE short_code = 'root' AND is_system = 1`),
    // Bulk create and import: a taken code returns no row instead of failing the statement, so
    // one clash neither aborts its batch's transaction nor costs an exception. A new link has no
    // clicks, so the count is a constant here rather than a subquery per row.
    insertIfFree: db.prepare(
      `INSERT INTO short_links (user_id, tracker, short_code, original_url, title, description, expires_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (short_code) DO NOTHING
       RETURNING id, user_id, tracker, short_code, original_url, title, description, active, is_system, 0 AS click_count, created_at, updated_at, expires_at`,
    ),
  };

  const resetClicks = db.transaction((id: number) => {
    q.resetFolded.run(id);
    q.resetTail.run(id);
    q.resetIndex.run(id);
    q.resetRollups.run(id);
    q.resetCount.run(id);
    q.touch.run(nowIso(), id);
  });

  /**
   * Many links in one transaction. Each item is one INSERT, so an item is written whole or not
   * at all; `shortCode: null` asks for a generated one (`generate`, retried on a clash). The
   * result is aligned with `items`: the row, or null when the code was taken.
   */
  const createMany = db.transaction((userId: number, tracker: Tracker, items: readonly NewLink[], generate: () => string | null) => {
    const now = nowIso();
    return items.map((f) => {
      const insert = (code: string) =>
        q.insertIfFree.get(userId, tracker, code, f.originalUrl, f.title, f.description || null, f.expiresAt, now, now) as LinkRow | null;
      if (f.shortCode !== null) return insert(f.shortCode);
      for (let i = 0; i < GENERATE_TRIES; i++) {
        const code = generate();
        const row = code === null ? null : insert(code);
        if (row) return row;
      }
      return null;
    });
  });

  return {
    list: (userId: number, tracker: Tracker) => q.list.all(userId, tracker) as LinkRow[],
    /** The user's own link, or the system root link when `allowSystem` (the instance owner). */
    get(id: number, userId: number, tracker: Tracker, allowSystem = false): LinkRow | null {
      const own = q.get.get(id, userId, tracker) as LinkRow | null;
      if (own || !allowSystem) return own;
      return q.getSystem.get(id, tracker) as LinkRow | null;
    },
    byCode: (code: string) => q.byCode.get(code) as LinkRow | null,
    codeTaken: (code: string, exceptId = 0) => q.codeTaken.get(code, exceptId) !== null,
    create(userId: number, tracker: Tracker, f: { shortCode: string; originalUrl: string; title: string; description: string; expiresAt: string | null }) {
      const now = nowIso();
      return uniqueOr(
        () => q.insert.get(userId, tracker, f.shortCode, f.originalUrl, f.title, f.description || null, f.expiresAt, now, now) as LinkRow,
        codeConflict,
      );
    },
    update(id: number, userId: number, tracker: Tracker, f: { shortCode: string; originalUrl: string; title: string; description: string }) {
      return uniqueOr(
        () => q.update.get(f.shortCode, f.originalUrl, f.title, f.description || null, nowIso(), id, userId, tracker) as LinkRow | null,
        codeConflict,
      );
    },
    edit(id: number, userId: number, tracker: Tracker, f: { originalUrl: string; title: string; description: string; expiresAt: string | null }) {
      return q.edit.get(f.originalUrl, f.title, f.description || null, f.expiresAt, nowIso(), id, userId, tracker) as LinkRow | null;
    },
    delete: (id: number, userId: number, tracker: Tracker) => q.delete.get(id, userId, tracker) as { id: number; short_code: string } | null,
    /** Count to zero and the history with it, so the analytics always add up to the count. */
    // IMMEDIATE: the click writer is another connection; a deferred transaction that had read
    // before it wrote would fail at once with SQLITE_BUSY if the writer committed in between.
    resetClicks: (id: number) => resetClicks.immediate(id),
    /** Streams every link (no 100,000-row array held at once while the redirect map loads). */
    allForRedirect: () => q.allForRedirect.iterate() as IterableIterator<RedirectRow>,
    syncRootUrl: (url: string) => q.setRootUrl.run(url, url).changes > 0,
    root: () => q.root.get() as LinkRow | null,
    // IMMEDIATE for the reason resetClicks gives: the click writer is another connection.
    createMany: (userId: number, tracker: Tracker, items: readonly NewLink[], generate: () => string | null) =>
      createMany.immediate(userId, tracker, items, generate) as (LinkRow | null)[],
  };
}

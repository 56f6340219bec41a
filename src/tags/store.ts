// The only SQL for tags, one text for SQLite and PostgreSQL. A tag is its user's own (both
// trackers share it); ownership is in every WHERE clause, so another user's tag is null → 404.
// The links store writes a link's tags inside its own transaction through writeLinkTags.
import type { Database, Queries } from "../db/database";
import { uniqueOr } from "../db/constraints";
import { conflict } from "../shared/errors";
import { nowIso } from "../shared/time";
import { QUOTA_MSG, assertRoom, quotaExceeded } from "../plans/quotas";
import { TAG_MSG, type TagColor, type TagView } from "./schema";

export type TagRow = { id: number; user_id: number; name: string; color: TagColor; created_at: string; link_count: number };

const COLS = "id, user_id, name, color, created_at, (SELECT COUNT(*) FROM link_tags lt WHERE lt.tag_id = tags.id) AS link_count";

export const tagView = (r: TagRow): TagView => ({ id: r.id, name: r.name, color: r.color, linkCount: Number(r.link_count), createdAt: r.created_at });

/** "Sale" and "sale" name one tag. */
export const tagKey = (name: string) => name.toLowerCase();

const taken = () => conflict(TAG_MSG.taken, { name: TAG_MSG.taken });

/** The user's tags, counted inside a write's transaction (PostgreSQL: the user's row locked first, as links do). */
async function ownedTags(q: Queries, userId: number, cap: number) {
  if (cap <= 0) return 0;
  if (q.dialect === "postgres") await q.get("SELECT 1 AS x FROM users WHERE id = ? FOR NO KEY UPDATE", userId);
  return Number((await q.get<{ n: number }>("SELECT COUNT(*) AS n FROM tags WHERE user_id = ?", userId))!.n);
}

/**
 * The tags named (by name, any case), made where the user has none yet (grey), inside the
 * caller's transaction: id and stored name, in the order first named, duplicates once. A make
 * that would pass the cap is QUOTA_EXCEEDED; a name another connection made meanwhile is found.
 */
export async function ensureTags(q: Queries, userId: number, names: readonly string[], cap: number): Promise<{ id: number; name: string }[]> {
  const wanted = new Map<string, string>();
  for (const n of names) if (!wanted.has(tagKey(n))) wanted.set(tagKey(n), n);
  if (wanted.size === 0) return [];
  const keys = [...wanted.keys()];
  const find = () => q.all<{ id: number; name: string; name_key: string }>(`SELECT id, name, name_key FROM tags WHERE user_id = ? AND name_key IN (${keys.map(() => "?").join(", ")})`, userId, ...keys);
  let found = await find();
  const missing = keys.filter((k) => !found.some((f) => f.name_key === k));
  if (missing.length > 0) {
    const count = await ownedTags(q, userId, cap);
    if (cap > 0 && count + missing.length > cap) throw quotaExceeded(QUOTA_MSG.tags(cap));
    const now = nowIso();
    await q.run(
      `INSERT INTO tags (user_id, name, name_key, color, created_at) VALUES ${missing.map(() => "(?, ?, ?, 'gray', ?)").join(", ")} ON CONFLICT (user_id, name_key) DO NOTHING`,
      ...missing.flatMap((k) => [userId, wanted.get(k)!, k, now]),
    );
    found = await find();
  }
  const byKey = new Map(found.map((f) => [f.name_key, f]));
  return keys.flatMap((k) => (byKey.has(k) ? [{ id: byKey.get(k)!.id, name: byKey.get(k)!.name }] : []));
}

/** Sets a link's tags to exactly `tagIds` (the user's own only), inside the caller's transaction. */
export async function writeLinkTags(q: Queries, userId: number, linkId: number, tagIds: readonly number[]) {
  await q.run("DELETE FROM link_tags WHERE link_id = ?", linkId);
  if (tagIds.length === 0) return;
  await q.run(`INSERT INTO link_tags (link_id, tag_id) SELECT ?, id FROM tags WHERE user_id = ? AND id IN (${tagIds.map(() => "?").join(", ")})`, linkId, userId, ...tagIds);
}

/** `maxPerUser`: MAX_TAGS_PER_USER (0: no cap). */
export function tagsStore(db: Database, { maxPerUser = 0 }: { maxPerUser?: number } = {}) {
  return {
    maxPerUser,
    list: (userId: number) => db.all<TagRow>(`SELECT ${COLS} FROM tags WHERE user_id = ? ORDER BY name_key, id`, userId),
    get: (id: number, userId: number) => db.get<TagRow>(`SELECT ${COLS} FROM tags WHERE id = ? AND user_id = ?`, id, userId),
    create: (userId: number, name: string, color: TagColor) =>
      uniqueOr(
        () =>
          db.tx(async (q) => {
            assertRoom(await ownedTags(q, userId, maxPerUser), maxPerUser, QUOTA_MSG.tags);
            return (await q.get<TagRow>(
              `INSERT INTO tags (user_id, name, name_key, color, created_at) VALUES (?, ?, ?, ?, ?) RETURNING ${COLS}`,
              userId, name, tagKey(name), color, nowIso(),
            ))!;
          }),
        taken,
      ),
    /** Rename and/or recolour; the links keep the tag (they name it by id). */
    update: (id: number, userId: number, f: { name?: string | undefined; color?: TagColor | undefined }) =>
      uniqueOr(
        () =>
          db.get<TagRow>(
            `UPDATE tags SET name = COALESCE(?, name), name_key = COALESCE(?, name_key), color = COALESCE(?, color) WHERE id = ? AND user_id = ? RETURNING ${COLS}`,
            f.name ?? null, f.name === undefined ? null : tagKey(f.name), f.color ?? null, id, userId,
          ),
        taken,
      ),
    /** The tag goes; its links stay, without it. */
    delete: async (id: number, userId: number) => (await db.run("DELETE FROM tags WHERE id = ? AND user_id = ?", id, userId)) > 0,
    ensure: (userId: number, names: readonly string[]) => db.tx((q) => ensureTags(q, userId, names, maxPerUser)),
    /** Every click of the tag's links (the stored counts). */
    totalClicks: async (tagId: number) =>
      Number(
        (await db.get<{ n: number | null }>(
          "SELECT SUM(c.clicks) AS n FROM link_tags lt JOIN link_click_counts c ON c.link_id = lt.link_id WHERE lt.tag_id = ?",
          tagId,
        ))?.n ?? 0,
      ),
    /** Clicks a UTC day from `since` (YYYY-MM-DD) on, added up over the tag's links' day roll-ups. */
    days: (tagId: number, since: string) =>
      db.all<{ day: string; count: number }>(
        "SELECT r.value AS day, SUM(r.count) AS count FROM link_tags lt JOIN link_rollups r ON r.link_id = lt.link_id AND r.dim = 'day' AND r.value >= ? WHERE lt.tag_id = ? GROUP BY r.value ORDER BY r.value",
        since, tagId,
      ),
    topLinks: (tagId: number, limit: number) =>
      db.all<{ id: number; short_code: string; title: string; tracker: "main" | "brand"; clicks: number }>(
        `SELECT l.id, l.short_code, l.title, l.tracker, COALESCE(c.clicks, 0) AS clicks FROM link_tags lt JOIN short_links l ON l.id = lt.link_id
         LEFT JOIN link_click_counts c ON c.link_id = l.id WHERE lt.tag_id = ? ORDER BY clicks DESC, l.id LIMIT ?`,
        tagId, limit,
      ),
  };
}

export type TagsStore = ReturnType<typeof tagsStore>;

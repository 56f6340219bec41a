// The only SQL for topics, topic slugs and the sharing relation they are read through.
import type { Database, Queries } from "../db/database";
import { hasControlChars } from "../shared/text";
import { nowIso } from "../shared/time";
import type { AccessType, Topic } from "./schema";
import { slugify } from "./slug";

export type TopicRole = "owner" | "member" | "viewer";

type TopicRow = {
  id: number;
  user_id: number;
  name: string;
  emoji: string | null;
  link_slug: string;
  phone_number: string;
  sort_order: number;
  is_default: number;
  access_type: AccessType;
  click_count: number;
  created_at: string;
  updated_at: string;
  username: string;
};

export const toTopic = (r: TopicRow): Topic => ({
  id: r.id,
  userId: r.user_id,
  name: r.name,
  emoji: r.emoji,
  linkSlug: r.link_slug,
  phoneNumber: r.phone_number,
  order: r.sort_order,
  isDefault: !!r.is_default,
  accessType: r.access_type,
  clickCount: r.click_count,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  username: r.username,
});

const SELECT = `SELECT t.*, u.username FROM topics t JOIN users u ON u.id = t.user_id`;
// One tie-break everywhere, so the index the dashboard sends for a drag is the index the
// server splices.
const CUSTOM_ORDER = `ORDER BY t.sort_order, t.id`;

export type PhoneGen = () => string;

/** Random E.164 number: the prefix (e.g. +1555) then digits up to 7, never past 15 digits. */
export function randomPhone(prefix: string): string {
  const room = Math.max(1, Math.min(7, 15 - (prefix.length - 1)));
  const n = crypto.getRandomValues(new Uint32Array(1))[0]! % 10 ** room;
  return prefix + String(n).padStart(room, "0");
}

/**
 * Serializes one user's topic writes (slug, order and the plan's topic count are decided from
 * what the user already has). SQLite's BEGIN IMMEDIATE already runs one writer at a time; on
 * PostgreSQL two instances would read the same free slug or count, so the user's row is locked
 * (NO KEY: it does not block inserts elsewhere that merely reference the user).
 */
async function lockUser(q: Queries, userId: number) {
  if (q.dialect === "postgres") await q.get(`SELECT 1 AS x FROM users WHERE id = ? FOR NO KEY UPDATE`, userId);
}

export function topicsStore(db: Database) {
  /** The UTC day whose opens topic_opens holds; older rows are swept when it changes. */
  let openDay = "";

  const own = async (q: Queries, userId: number) => (await q.all<TopicRow>(`${SELECT} WHERE t.user_id = ? ${CUSTOM_ORDER}`, userId)).map(toTopic);
  const byId = async (q: Queries, userId: number, id: number) => {
    const r = await q.get<TopicRow>(`${SELECT} WHERE t.id = $id AND t.user_id = $userId`, { id, userId });
    return r ? toTopic(r) : null;
  };
  const rememberSlug = (q: Queries, userId: number, slug: string, topicId: number) =>
    q.run(`INSERT INTO topic_slugs (user_id, slug, topic_id) VALUES ($userId, $slug, $topicId) ON CONFLICT (user_id, slug) DO NOTHING`, {
      userId,
      slug,
      topicId,
    });

  /** The first of slug, slug-2, slug-3… that no other topic of this user holds or held. */
  async function freeSlug(q: Queries, userId: number, name: string, topicId: number | null) {
    const base = slugify(name);
    for (let i = 1; ; i++) {
      const slug = i === 1 ? base : `${base}-${i}`;
      // A slug is free for this topic if no topic of the user has ever held it, or this one did.
      const r = (await q.get<{ past: number | null; current: number | null }>(
        `SELECT (SELECT topic_id FROM topic_slugs WHERE user_id = $userId AND slug = $slug) AS past,
                (SELECT id FROM topics WHERE user_id = $userId AND link_slug = $slug) AS current`,
        { userId, slug },
      ))!;
      const mine = (id: number | null) => id === null || id === topicId;
      if (mine(r.past) && mine(r.current)) return slug;
    }
  }

  return {
    listOwn: (userId: number) => own(db, userId),
    get: (userId: number, id: number) => byId(db, userId, id),

    /**
     * Adds a topic. `allow(count)` is the plan's check, given the user's topic count inside the
     * transaction, so two creates at once cannot both pass it at the limit.
     */
    create(
      userId: number,
      input: { name: string; emoji: string | null; accessType?: AccessType },
      phone: PhoneGen,
      allow: (count: number) => void = () => {},
    ): Promise<Topic> {
      return db.tx(async (q) => {
        await lockUser(q, userId);
        const { n, last } = (await q.get<{ n: number; last: number | null }>(
          `SELECT COUNT(*) AS n, MAX(sort_order) AS last FROM topics WHERE user_id = ?`,
          userId,
        ))!;
        allow(n);
        const slug = await freeSlug(q, userId, input.name, null);
        let number = phone();
        // 10 million numbers per prefix: a collision is rare, so a few redraws suffice.
        for (let i = 0; i < 50 && (await q.get(`SELECT 1 AS x FROM topics WHERE phone_number = ?`, number)); i++) number = phone();
        const { id } = (await q.get<{ id: number }>(
          `INSERT INTO topics (user_id, name, emoji, link_slug, phone_number, sort_order, access_type, created_at, updated_at)
           VALUES ($userId, $name, $emoji, $slug, $phone, $order, $access, $now, $now) RETURNING id`,
          {
            userId,
            name: input.name,
            emoji: input.emoji,
            slug,
            phone: number,
            order: (last ?? -1) + 1,
            access: input.accessType ?? "personal",
            now: nowIso(),
          },
        ))!;
        await rememberSlug(q, userId, slug, id);
        return (await byId(q, userId, id))!;
      });
    },

    /** Renames keep every previous slug in topic_slugs, so old links keep resolving. */
    update(userId: number, id: number, patch: { name?: string; emoji?: string | null; accessType?: AccessType }): Promise<Topic | null> {
      return db.tx(async (q) => {
        await lockUser(q, userId);
        const cur = await byId(q, userId, id);
        if (!cur) return null;
        const name = patch.name ?? cur.name;
        const slug = name === cur.name ? cur.linkSlug : await freeSlug(q, userId, name, id);
        await q.run(
          `UPDATE topics SET name = $name, emoji = $emoji, link_slug = $slug, access_type = $access, updated_at = $now
           WHERE id = $id AND user_id = $userId`,
          {
            id,
            userId,
            name,
            emoji: patch.emoji === undefined ? cur.emoji : patch.emoji,
            slug,
            access: patch.accessType ?? cur.accessType,
            now: nowIso(),
          },
        );
        await rememberSlug(q, userId, slug, id);
        return byId(q, userId, id);
      });
    },

    remove: async (userId: number, id: number) => (await db.run(`DELETE FROM topics WHERE id = $id AND user_id = $userId`, { id, userId })) > 0,

    /** Moves the topic at fromIndex (in custom order) to toIndex; null when an index is out of range. */
    reorder(userId: number, fromIndex: number, toIndex: number): Promise<Topic[] | null> {
      return db.tx(async (q) => {
        await lockUser(q, userId);
        const list = await own(q, userId);
        if (fromIndex >= list.length || toIndex >= list.length) return null;
        const [moved] = list.splice(fromIndex, 1);
        list.splice(toIndex, 0, moved!);
        const now = nowIso();
        for (const [i, t] of list.entries()) {
          if (t.order !== i) {
            await q.run(`UPDATE topics SET sort_order = $order, updated_at = $now WHERE id = $id AND user_id = $userId`, { id: t.id, userId, order: i, now });
          }
        }
        return own(q, userId);
      });
    },

    /**
     * The topic `username/slug` (current or any earlier slug) as `viewerId` may see it, with
     * the viewer's role; null when it does not exist or the viewer may not see it (→ 404).
     */
    async findVisible(viewerId: number, username: string, slug: string): Promise<{ topic: Topic; role: TopicRole } | null> {
      // Usernames and slugs never hold control characters (and PostgreSQL cannot bind U+0000).
      if (hasControlChars(username) || hasControlChars(slug)) return null;
      const r = await db.get<TopicRow & { is_member: number | boolean }>(
        `SELECT t.*, u.username,
                EXISTS (SELECT 1 FROM shares s WHERE s.owner_id = t.user_id AND s.member_id = $viewer) AS is_member
         FROM topics t JOIN users u ON u.id = t.user_id
         WHERE u.username = $username
           AND (t.link_slug = $slug
                OR t.id = (SELECT topic_id FROM topic_slugs ts WHERE ts.user_id = u.id AND ts.slug = $slug))
         LIMIT 1`,
        { viewer: viewerId, username: username.toLowerCase(), slug: slug.toLowerCase() },
      );
      if (!r) return null;
      const { is_member, ...row } = r;
      const topic = toTopic(row);
      if (topic.userId === viewerId) return { topic, role: "owner" };
      if (is_member && topic.accessType !== "private") return { topic, role: "member" };
      if (topic.accessType === "public") return { topic, role: "viewer" };
      return null;
    },

    /** Topics of every user whose invite `memberId` accepted (private ones excluded). */
    listShared: async (memberId: number) =>
      (
        await db.all<TopicRow>(
          `${SELECT} JOIN shares s ON s.owner_id = t.user_id AND s.member_id = ?
           WHERE t.access_type IN ('personal', 'public')
           ORDER BY u.username, t.sort_order, t.id`,
          memberId,
        )
      ).map(toTopic),

    async sharingUsers(memberId: number) {
      const rows = await db.all<{ id: number; username: string; since: string; topic_count: number }>(
        `SELECT u.id, u.username, s.created_at AS since,
                (SELECT COUNT(*) FROM topics t WHERE t.user_id = u.id AND t.access_type IN ('personal', 'public')) AS topic_count
         FROM shares s JOIN users u ON u.id = s.owner_id
         WHERE s.member_id = ? ORDER BY u.username`,
        memberId,
      );
      return rows.map((u) => ({ id: u.id, username: u.username, since: u.since, topicCount: u.topic_count }));
    },

    /** `username`'s topics that `viewerId` may see, for /share/{username}. */
    listForShare: async (viewerId: number, username: string) =>
      (
        await db.all<TopicRow>(
          // Everything when it is the viewer's own, personal and public after accepting the
          // owner's invite, public otherwise.
          `${SELECT} WHERE u.username = $username AND (
             t.user_id = $viewer
             OR t.access_type = 'public'
             OR (t.access_type = 'personal' AND EXISTS (SELECT 1 FROM shares s WHERE s.owner_id = t.user_id AND s.member_id = $viewer))
           ) ${CUSTOM_ORDER}`,
          { viewer: viewerId, username: username.toLowerCase() },
        )
      ).map(toTopic),

    /**
     * An open of the topic link by `viewerId` (never its owner): counted, and true, only for
     * that viewer's first open of the topic this UTC day.
     */
    recordOpen(topicId: number, viewerId: number, now = new Date()) {
      const day = now.toISOString().slice(0, 10);
      return db.tx(async (q) => {
        if (day !== openDay) {
          // Yesterday's keys can never match again: drop them once a day.
          await q.run(`DELETE FROM topic_opens WHERE day < ?`, day);
          openDay = day;
        }
        // Opens count once per viewer per topic per UTC day (migration 0005): only the first
        // insert of the day changes a row (on PostgreSQL a second insert at once waits for the first).
        const first = await q.run(`INSERT INTO topic_opens (topic_id, viewer_id, day) VALUES ($topicId, $viewerId, $day) ON CONFLICT DO NOTHING`, {
          topicId,
          viewerId,
          day,
        });
        if (first === 0) return false;
        await q.run(`UPDATE topics SET click_count = click_count + 1 WHERE id = ?`, topicId);
        return true;
      });
    },
  };
}

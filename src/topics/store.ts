// The only SQL for topics, topic slugs and the sharing relation they are read through.
import type { Db } from "../db/open";
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

export function topicsStore(db: Db) {
  /** The UTC day whose opens topic_opens holds; older rows are swept when it changes. */
  let openDay = "";
  const q = {
    own: db.prepare(`${SELECT} WHERE t.user_id = ? ${CUSTOM_ORDER}`),
    ownById: db.prepare(`${SELECT} WHERE t.id = $id AND t.user_id = $userId`),
    countOwn: db.prepare(`SELECT COUNT(*) AS n FROM topics WHERE user_id = ?`),
    maxOrder: db.prepare(`SELECT COALESCE(MAX(sort_order), -1) AS n FROM topics WHERE user_id = ?`),
    // A slug is free for this topic if no topic of the user has ever held it, or this one did.
    slugOwner: db.prepare(`SELECT topic_id FROM topic_slugs WHERE user_id = $userId AND slug = $slug`),
    currentSlugOwner: db.prepare(`SELECT id FROM topics WHERE user_id = $userId AND link_slug = $slug`),
    phoneTaken: db.prepare(`SELECT 1 FROM topics WHERE phone_number = ?`),
    insert: db.prepare(
      `INSERT INTO topics (user_id, name, emoji, link_slug, phone_number, sort_order, access_type, created_at, updated_at)
       VALUES ($userId, $name, $emoji, $slug, $phone, $order, $access, $now, $now) RETURNING id`,
    ),
    rememberSlug: db.prepare(
      `INSERT INTO topic_slugs (user_id, slug, topic_id) VALUES ($userId, $slug, $topicId)
       ON CONFLICT (user_id, slug) DO NOTHING`,
    ),
    update: db.prepare(
      `UPDATE topics SET name = $name, emoji = $emoji, link_slug = $slug, access_type = $access, updated_at = $now
       WHERE id = $id AND user_id = $userId`,
    ),
    remove: db.prepare(`DELETE FROM topics WHERE id = $id AND user_id = $userId`),
    setOrder: db.prepare(`UPDATE topics SET sort_order = $order, updated_at = $now WHERE id = $id AND user_id = $userId`),
    visible: db.prepare(
      `SELECT t.*, u.username,
              EXISTS (SELECT 1 FROM shares s WHERE s.owner_id = t.user_id AND s.member_id = $viewer) AS is_member
       FROM topics t JOIN users u ON u.id = t.user_id
       WHERE u.username = $username
         AND (t.link_slug = $slug
              OR t.id = (SELECT topic_id FROM topic_slugs ts WHERE ts.user_id = u.id AND ts.slug = $slug))
       LIMIT 1`,
    ),
    shared: db.prepare(
      `${SELECT} JOIN shares s ON s.owner_id = t.user_id AND s.member_id = ?
       WHERE t.access_type IN ('personal', 'public')
       ORDER BY u.username, t.sort_order, t.id`,
    ),
    sharingUsers: db.prepare(
      `SELECT u.id, u.username, s.created_at AS since,
              (SELECT COUNT(*) FROM topics t WHERE t.user_id = u.id AND t.access_type IN ('personal', 'public')) AS topic_count
       FROM shares s JOIN users u ON u.id = s.owner_id
       WHERE s.member_id = ? ORDER BY u.username`,
    ),
    // What `viewer` may see of `username`'s topics: everything when it is them, personal and
    // public after accepting their invite, public otherwise.
    forShare: db.prepare(
      `${SELECT} WHERE u.username = $username AND (
         t.user_id = $viewer
         OR t.access_type = 'public'
         OR (t.access_type = 'personal' AND EXISTS (SELECT 1 FROM shares s WHERE s.owner_id = t.user_id AND s.member_id = $viewer))
       ) ${CUSTOM_ORDER}`,
    ),
    bumpClicks: db.prepare(`UPDATE topics SET click_count = click_count + 1 WHERE id = ?`),
    // Opens count once per viewer per topic per UTC day (migration 0005): only the first
    // insert of the day changes a row.
    firstOpenToday: db.prepare(`INSERT OR IGNORE INTO topic_opens (topic_id, viewer_id, day) VALUES ($topicId, $viewerId, $day)`),
    sweepOpens: db.prepare(`DELETE FROM topic_opens WHERE day < ?`),
  };

  const byId = (userId: number, id: number) => {
    const r = q.ownById.get({ id, userId }) as TopicRow | null;
    return r ? toTopic(r) : null;
  };

  /** The first of slug, slug-2, slug-3… that no other topic of this user holds or held. */
  function freeSlug(userId: number, name: string, topicId: number | null) {
    const base = slugify(name) || "topic";
    for (let i = 1; ; i++) {
      const slug = i === 1 ? base : `${base}-${i}`;
      const past = q.slugOwner.get({ userId, slug }) as { topic_id: number } | null;
      const current = q.currentSlugOwner.get({ userId, slug }) as { id: number } | null;
      const mine = (id: number | undefined) => id === undefined || id === topicId;
      if (mine(past?.topic_id) && mine(current?.id)) return slug;
    }
  }

  return {
    listOwn: (userId: number) => (q.own.all(userId) as TopicRow[]).map(toTopic),
    get: byId,
    countOwn: (userId: number) => (q.countOwn.get(userId) as { n: number }).n,

    create(userId: number, input: { name: string; emoji: string | null; accessType?: AccessType }, phone: PhoneGen): Topic {
      return db.transaction(() => {
        const slug = freeSlug(userId, input.name, null);
        let number = phone();
        // 10 million numbers per prefix: a collision is rare, so a few redraws suffice.
        for (let i = 0; q.phoneTaken.get(number) && i < 50; i++) number = phone();
        const order = (q.maxOrder.get(userId) as { n: number }).n + 1;
        const { id } = q.insert.get({
          userId,
          name: input.name,
          emoji: input.emoji,
          slug,
          phone: number,
          order,
          access: input.accessType ?? "personal",
          now: nowIso(),
        }) as { id: number };
        q.rememberSlug.run({ userId, slug, topicId: id });
        return byId(userId, id)!;
      }).immediate();
    },

    /** Renames keep every previous slug in topic_slugs, so old links keep resolving. */
    update(userId: number, id: number, patch: { name?: string; emoji?: string | null; accessType?: AccessType }): Topic | null {
      return db.transaction(() => {
        const cur = byId(userId, id);
        if (!cur) return null;
        const name = patch.name ?? cur.name;
        const slug = name === cur.name ? cur.linkSlug : freeSlug(userId, name, id);
        q.update.run({
          id,
          userId,
          name,
          emoji: patch.emoji === undefined ? cur.emoji : patch.emoji,
          slug,
          access: patch.accessType ?? cur.accessType,
          now: nowIso(),
        });
        q.rememberSlug.run({ userId, slug, topicId: id });
        return byId(userId, id);
      }).immediate();
    },

    remove: (userId: number, id: number) => q.remove.run({ id, userId }).changes > 0,

    /** Moves the topic at fromIndex (in custom order) to toIndex; null when an index is out of range. */
    reorder(userId: number, fromIndex: number, toIndex: number): Topic[] | null {
      return db.transaction(() => {
        const list = (q.own.all(userId) as TopicRow[]).map(toTopic);
        if (fromIndex >= list.length || toIndex >= list.length) return null;
        const [moved] = list.splice(fromIndex, 1);
        list.splice(toIndex, 0, moved!);
        const now = nowIso();
        list.forEach((t, i) => {
          if (t.order !== i) q.setOrder.run({ id: t.id, userId, order: i, now });
        });
        return (q.own.all(userId) as TopicRow[]).map(toTopic);
      }).immediate();
    },

    /**
     * The topic `username/slug` (current or any earlier slug) as `viewerId` may see it, with
     * the viewer's role; null when it does not exist or the viewer may not see it (→ 404).
     */
    findVisible(viewerId: number, username: string, slug: string): { topic: Topic; role: TopicRole } | null {
      const r = q.visible.get({ viewer: viewerId, username: username.toLowerCase(), slug: slug.toLowerCase() }) as
        | (TopicRow & { is_member: number })
        | null;
      if (!r) return null;
      const { is_member, ...row } = r;
      const topic = toTopic(row);
      if (topic.userId === viewerId) return { topic, role: "owner" };
      if (is_member && topic.accessType !== "private") return { topic, role: "member" };
      if (topic.accessType === "public") return { topic, role: "viewer" };
      return null;
    },

    /** Topics of every user whose invite `memberId` accepted (private ones excluded). */
    listShared: (memberId: number) => (q.shared.all(memberId) as TopicRow[]).map(toTopic),

    sharingUsers(memberId: number) {
      return (q.sharingUsers.all(memberId) as { id: number; username: string; since: string; topic_count: number }[]).map((u) => ({
        id: u.id,
        username: u.username,
        since: u.since,
        topicCount: u.topic_count,
      }));
    },

    /** `username`'s topics that `viewerId` may see, for /share/{username}. */
    listForShare: (viewerId: number, username: string) =>
      (q.forShare.all({ viewer: viewerId, username: username.toLowerCase() }) as TopicRow[]).map(toTopic),

    /**
     * An open of the topic link by `viewerId` (never its owner): counted, and true, only for
     * that viewer's first open of the topic this UTC day.
     */
    recordOpen(topicId: number, viewerId: number, now = new Date()) {
      const day = now.toISOString().slice(0, 10);
      return db.transaction(() => {
        if (day !== openDay) {
          // Yesterday's keys can never match again: drop them once a day.
          q.sweepOpens.run(day);
          openDay = day;
        }
        if (q.firstOpenToday.run({ topicId, viewerId, day }).changes === 0) return false;
        q.bumpClicks.run(topicId);
        return true;
      }).immediate();
    },
  };
}

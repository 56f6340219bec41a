// The only SQL for notifications. Other features create notifications through `create`.
import type { Db } from "../db/open";
import { nowIso } from "../shared/time";
import type { Notification } from "./schema";

type NotificationRow = {
  id: number;
  user_id: number;
  kind: string;
  message: string;
  link: string | null;
  dedupe_key: string | null;
  read_at: string | null;
  created_at: string;
};

const toNotification = (r: NotificationRow): Notification => ({
  id: r.id,
  kind: r.kind,
  message: r.message,
  link: r.link,
  read: r.read_at !== null,
  readAt: r.read_at,
  createdAt: r.created_at,
});

// The list is a feed, not an archive: the newest 200 are plenty for a person to read.
const LIST_LIMIT = 200;

export function notificationsStore(db: Db) {
  const q = {
    // dedupe_key makes repeatable events (a link passing 100 clicks) notify once per user.
    insert: db.prepare(
      `INSERT INTO notifications (user_id, kind, message, link, dedupe_key, created_at)
       VALUES ($userId, $kind, $message, $link, $dedupeKey, $now)
       ON CONFLICT (user_id, dedupe_key) DO NOTHING RETURNING *`,
    ),
    add: db.prepare(
      `INSERT INTO notifications (user_id, kind, message, link, dedupe_key, created_at)
       VALUES ($userId, $kind, $message, $link, $dedupeKey, $now)
       ON CONFLICT (user_id, dedupe_key) DO NOTHING`,
    ),
    list: db.prepare(`SELECT * FROM notifications WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT ${LIST_LIMIT}`),
    unread: db.prepare(`SELECT COUNT(*) AS n FROM notifications WHERE user_id = ? AND read_at IS NULL`),
    markRead: db.prepare(
      `UPDATE notifications SET read_at = COALESCE(read_at, $now) WHERE id = $id AND user_id = $userId RETURNING *`,
    ),
    markAll: db.prepare(`UPDATE notifications SET read_at = $now WHERE user_id = $userId AND read_at IS NULL`),
  };

  return {
    /** Stores a notification; a repeated dedupeKey for the same user is silently ignored (→ null). */
    create(n: { userId: number; kind: string; message: string; link?: string | null; dedupeKey?: string | null }) {
      const r = q.insert.get({
        userId: n.userId,
        kind: n.kind,
        message: n.message,
        link: n.link ?? null,
        dedupeKey: n.dedupeKey ?? null,
        now: nowIso(),
      }) as NotificationRow | null;
      return r ? toNotification(r) : null;
    },
    /** `create` without reading the row back, for writers that make many at once. */
    add(n: { userId: number; kind: string; message: string; link?: string | null; dedupeKey?: string | null }) {
      q.add.run({ userId: n.userId, kind: n.kind, message: n.message, link: n.link ?? null, dedupeKey: n.dedupeKey ?? null, now: nowIso() });
    },
    list: (userId: number) => (q.list.all(userId) as NotificationRow[]).map(toNotification),
    unreadCount: (userId: number) => (q.unread.get(userId) as { n: number }).n,
    markRead(userId: number, id: number) {
      const r = q.markRead.get({ id, userId, now: nowIso() }) as NotificationRow | null;
      return r ? toNotification(r) : null;
    },
    markAllRead: (userId: number) => q.markAll.run({ userId, now: nowIso() }).changes,
  };
}

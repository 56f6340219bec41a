// The only SQL for notifications. Other features create notifications through `create`.
import type { Database as SqliteHandle } from "bun:sqlite";
import type { Database } from "../db/database";
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
  count: number;
};

const toNotification = (r: NotificationRow): Notification => ({
  id: r.id,
  kind: r.kind,
  message: r.message,
  link: r.link,
  read: r.read_at !== null,
  readAt: r.read_at,
  createdAt: r.created_at,
  count: r.count,
});

type NewNotification = { userId: number; kind: string; message: string; link?: string | null; dedupeKey?: string | null };

// The list is a feed, not an archive: the newest 200 are plenty for a person to read.
const LIST_LIMIT = 200;

// dedupe_key makes repeatable events (a link passing 100 clicks) notify once per user.
const INSERT = `INSERT INTO notifications (user_id, kind, message, link, dedupe_key, created_at)
  VALUES ($userId, $kind, $message, $link, $dedupeKey, $now)
  ON CONFLICT (user_id, dedupe_key) DO NOTHING`;

const values = (n: NewNotification) => ({
  userId: n.userId,
  kind: n.kind,
  message: n.message,
  link: n.link ?? null,
  dedupeKey: n.dedupeKey ?? null,
  now: nowIso(),
});

export function notificationsStore(db: Database) {
  return {
    /** Stores a notification; a repeated dedupeKey for the same user is silently ignored (→ null). */
    async create(n: NewNotification) {
      const r = await db.get<NotificationRow>(`${INSERT} RETURNING *`, values(n));
      return r ? toNotification(r) : null;
    },
    /**
     * A notice that collapses into the user's unread notification of the same `group` (a
     * dedupe-key prefix, e.g. one topic's added titles): its count goes up by one and it takes
     * the newest message and time, and `groupLink` (the topic rather than one title); when none is unread a new one starts (dedupe key:
     * the group and `item`, so a later group never clashes with a read one). PostgreSQL: the
     * user's row is locked first, so two notices at once still make one notification.
     */
    collapse(n: Omit<NewNotification, "message" | "dedupeKey"> & { group: string; item: string | number; message: (count: number) => string; groupLink?: string | null }) {
      return db.tx(async (q) => {
        if (q.dialect === "postgres") await q.get("SELECT 1 AS x FROM users WHERE id = ? FOR NO KEY UPDATE", n.userId);
        const open = await q.get<{ id: number; count: number }>(
          `SELECT id, count FROM notifications WHERE user_id = $userId AND kind = $kind AND read_at IS NULL AND substr(dedupe_key, 1, $len) = $group
           ORDER BY id DESC LIMIT 1`,
          { userId: n.userId, kind: n.kind, group: n.group, len: n.group.length },
        );
        if (open) {
          const r = await q.get<NotificationRow>(`UPDATE notifications SET count = $count, message = $message, link = $link, created_at = $now WHERE id = $id RETURNING *`, {
            id: open.id,
            count: open.count + 1,
            message: n.message(open.count + 1),
            link: n.groupLink ?? n.link ?? null,
            now: nowIso(),
          });
          return toNotification(r!);
        }
        const r = await q.get<NotificationRow>(`${INSERT} RETURNING *`, values({ ...n, message: n.message(1), dedupeKey: `${n.group}${n.item}` }));
        return r ? toNotification(r) : null;
      });
    },
    list: async (userId: number) =>
      (await db.all<NotificationRow>(`SELECT * FROM notifications WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT ${LIST_LIMIT}`, userId)).map(
        toNotification,
      ),
    unreadCount: async (userId: number) =>
      (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM notifications WHERE user_id = ? AND read_at IS NULL`, userId))!.n,
    async markRead(userId: number, id: number) {
      const r = await db.get<NotificationRow>(
        `UPDATE notifications SET read_at = COALESCE(read_at, $now) WHERE id = $id AND user_id = $userId RETURNING *`,
        { id, userId, now: nowIso() },
      );
      return r ? toNotification(r) : null;
    },
    markAllRead: (userId: number) => db.run(`UPDATE notifications SET read_at = $now WHERE user_id = $userId AND read_at IS NULL`, { userId, now: nowIso() }),
  };
}

/**
 * For the SQLite click worker (src/analytics/writer.ts), which writes milestone notices inside
 * its own synchronous transaction on its own bun:sqlite connection: `create` without reading
 * the row back, synchronously, with the same statement.
 */
export function sqliteNotifications(db: SqliteHandle) {
  const add = db.prepare(INSERT);
  return {
    add(n: NewNotification) {
      add.run(values(n));
    },
  };
}

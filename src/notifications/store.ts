// The only SQL for notifications. Other features create notifications through `create`.
import type { Database as SqliteHandle } from "bun:sqlite";
import type { Database, Queries } from "../db/database";
import { nowIso } from "../shared/time";
import type { Notification } from "./schema";
import type { CursorKeys, Page } from "../http/paging";

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

export type NewNotification = { userId: number; kind: string; message: string; link?: string | null; dedupeKey?: string | null };


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

/** A notice that collapses into the user's unread one of the same `group` (see collapseNotice). */
export type CollapsingNotice = Omit<NewNotification, "message" | "dedupeKey"> & {
  group: string;
  item: string | number;
  message: (count: number) => string;
  groupLink?: string | null;
};

/**
 * Collapses into the user's unread notification of the same `group` (a dedupe-key prefix, e.g.
 * one topic's added titles): its count goes up by one and it takes the newest message and time,
 * and `groupLink` (the topic rather than one title); when none is unread a new one starts
 * (dedupe key: the group and `item`, so a later group never clashes with a read one).
 * PostgreSQL: the user's row is locked first, so two notices at once still make one.
 */
export async function collapseNotice(q: Queries, n: CollapsingNotice) {
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
}

/** The event log's consumer (src/events/store.ts): notices written in the event's transaction. */
export async function addNotices(q: Queries, notices: readonly NewNotification[]) {
  if (q.dialect === "sqlite" || notices.length === 1) {
    for (const n of notices) await q.run(INSERT, values(n));
    return;
  }
  // One statement however many: a PostgreSQL batch of clicks can cross thousands of milestones
  // (the redirect benchmark's 100,000 new links each get a first click), a round trip each would
  // cost more than the batch's rows.
  await q.run(
    `INSERT INTO notifications (user_id, kind, message, link, dedupe_key, created_at)
     SELECT j.user_id, j.kind, j.message, j.link, j.dedupe_key, ? FROM json_to_recordset(?::text::json) AS j(user_id integer, kind text, message text, link text, dedupe_key text)
     ON CONFLICT (user_id, dedupe_key) DO NOTHING`,
    nowIso(),
    JSON.stringify(notices.map((n) => ({ user_id: n.userId, kind: n.kind, message: n.message, link: n.link ?? null, dedupe_key: n.dedupeKey ?? null }))),
  );
}

export function notificationsStore(db: Database) {
  return {
    /** Stores a notification; a repeated dedupeKey for the same user is silently ignored (→ null). */
    async create(n: NewNotification) {
      const r = await db.get<NotificationRow>(`${INSERT} RETURNING *`, values(n));
      return r ? toNotification(r) : null;
    },
    /**
     * A page of the user's notifications, newest first (keyset on created_at, id: the index
     * notifications_user, whose rowid is the id on SQLite), and how many there are.
     */
    async page(userId: number, q: { unread: boolean; limit: number; after: CursorKeys | null }): Promise<Page<Notification & { cursor: CursorKeys }>> {
      const where = ["user_id = ?", ...(q.unread ? ["read_at IS NULL"] : [])];
      const keyset = q.after ? ["(created_at, id) < (?, ?)"] : [];
      const rows = await db.all<NotificationRow>(
        `SELECT * FROM notifications WHERE ${[...where, ...keyset].join(" AND ")} ORDER BY created_at DESC, id DESC LIMIT ?`,
        userId, ...(q.after ?? []), q.limit + 1,
      );
      const more = rows.length > q.limit;
      if (more) rows.pop();
      const total = (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM notifications WHERE ${where.join(" AND ")}`, userId))!.n;
      return { rows: rows.map((r) => ({ ...toNotification(r), cursor: [r.created_at, r.id] })), more, total: Number(total) };
    },
    /** A notice that collapses into the user's unread one of its group (collapseNotice). */
    collapse(n: CollapsingNotice) {
      return db.tx((q) => collapseNotice(q, n));
    },
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

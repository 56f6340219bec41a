// The notifications API's response shapes, shared with the web app (which may import only
// schema.ts files and src/shared/ from the server).
import * as v from "valibot";
import { Cursor, Limit } from "../shared/paging";

/** A notification as GET /api/notifications lists it. */
export const Notification = v.object({
  id: v.number(),
  kind: v.string(),
  message: v.string(),
  link: v.nullable(v.string()),
  read: v.boolean(),
  readAt: v.nullable(v.string()),
  createdAt: v.string(),
  /** How many notices this one stands for: repeated ones (titles added to one topic) collapse into it while unread. */
  count: v.number(),
});
export type Notification = v.InferOutput<typeof Notification>;

/** Notifications per page when the client names no limit, and the most it may ask for. */
export const NOTIFICATION_PAGE_DEFAULT = 50;
export const NOTIFICATION_PAGE_MAX = 200;

/** GET /api/notifications: a page (x-total-count, x-next-cursor), all or only the unread. */
export const NotificationQuery = v.object({
  status: v.optional(v.pipe(v.picklist(["all", "unread"], "status must be all or unread"), v.description("all (default) or unread."))),
  limit: Limit(NOTIFICATION_PAGE_DEFAULT, NOTIFICATION_PAGE_MAX),
  cursor: Cursor,
});

/** GET /api/notifications: a page of them, the newest first, and how many are unread in all. */
export const NotificationList = v.object({ notifications: v.array(Notification), unreadCount: v.number() });
export type NotificationList = v.InferOutput<typeof NotificationList>;

/** POST /api/notifications/read-all: how many were marked read. */
export const ReadAll = v.object({ ok: v.literal(true), updated: v.number() });

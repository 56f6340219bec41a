// The notifications API's response shapes, shared with the web app (which may import only
// schema.ts files and src/shared/ from the server).
import * as v from "valibot";

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

/** GET /api/notifications: the newest first, and how many are unread. */
export const NotificationList = v.object({ notifications: v.array(Notification), unreadCount: v.number() });
export type NotificationList = v.InferOutput<typeof NotificationList>;

/** POST /api/notifications/read-all: how many were marked read. */
export const ReadAll = v.object({ ok: v.literal(true), updated: v.number() });

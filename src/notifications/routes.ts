import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { effectivePlan, type AuthPlugin } from "../http/auth";
import { notFound } from "../shared/errors";
import { rowId } from "../db/ids";
import { DAY_MS } from "../shared/time";
import { premiumEndingNotice } from "./events";
import { notificationsStore } from "./store";
import { NOTIFICATION_PAGE_DEFAULT, NOTIFICATION_PAGE_MAX, Notification, NotificationList, NotificationQuery, ReadAll } from "./schema";
import { cursorKeys, pageHeaders } from "../http/paging";
import { NEXT_HEADER, TOTAL_HEADER } from "../shared/paging";
import { defineOperations } from "../shared/apiOperations";

const PREMIUM_WARNING_MS = 3 * DAY_MS;

export function notificationRoutes(ctx: AppContext, auth: AuthPlugin) {
  const store = notificationsStore(ctx.db);

  return new Elysia({ prefix: "/api" })
    .use(auth)
    .get(
      "/notifications",
      async ({ user, set, query }) => {
        // "Premium ends in 3 days" is raised when the user next looks (the bell loads on every
        // signed-in page), which needs no background timer; the dedupe key makes it once per term.
        const ends = user.subscription_expires_at;
        if (effectivePlan(user) === "premium" && ends && Date.parse(ends) - Date.now() <= PREMIUM_WARNING_MS) {
          await store.create({ userId: user.id, ...premiumEndingNotice(ends) });
        }
        set.headers["cache-control"] = "no-store";
        const page = await store.page(user.id, {
          unread: query.status === "unread",
          limit: query.limit ?? NOTIFICATION_PAGE_DEFAULT,
          after: cursorKeys(query.cursor, "newest", ["string", "int"]),
        });
        pageHeaders(set, page, "newest", (n) => n.cursor);
        return { notifications: page.rows.map(({ cursor: _, ...n }) => n), unreadCount: await store.unreadCount(user.id) };
      },
      { auth: true, query: NotificationQuery },
    )
    // Listed before /:id/read so "read-all" is never read as an id.
    .post("/notifications/read-all", async ({ user }) => ({ ok: true, updated: await store.markAllRead(user.id) }), { auth: true })
    .post(
      "/notifications/:id/read",
      async ({ params, user }) => {
        const id = rowId(params.id);
        const n = id === null ? null : await store.markRead(user.id, id);
        if (!n) throw notFound("Notification not found");
        return n;
      },
      { auth: true },
    );
}

export const notificationOperations = defineOperations({ tag: "Notifications", auth: "user" }, [
  {
    method: "GET",
    path: "/api/notifications",
    summary: "Your notifications",
    description: `A page of them, newest first (default ${NOTIFICATION_PAGE_DEFAULT}, at most ${NOTIFICATION_PAGE_MAX}), and how many are unread in all. \`${TOTAL_HEADER}\` gives how many match; \`${NEXT_HEADER}\` (absent on the last page) is the next page's \`cursor\`.`,
    query: NotificationQuery,
    responses: {
      200: {
        description: "A page of notifications",
        schema: NotificationList,
        headers: { [TOTAL_HEADER]: "How many notifications match" },
        optionalHeaders: { [NEXT_HEADER]: "The next page's cursor; absent on the last page" },
      },
    },
  },
  { method: "POST", path: "/api/notifications/read-all", summary: "Mark every notification read", responses: { 200: ReadAll } },
  {
    method: "POST",
    path: "/api/notifications/:id/read",
    summary: "Mark a notification read",
    params: { id: "The notification's id" },
    responses: { 200: Notification },
  },
]);

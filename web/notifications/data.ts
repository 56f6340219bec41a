import { safeLocalPath } from "../lib/safePath";
import useSWR, { mutate } from "swr";
import { api, apiPage, pageFetcher, type ApiPage } from "../lib/api";
import type { NotificationList } from "../../src/notifications/schema";
export const NOTIFICATIONS_KEY = "/api/notifications";

// Read afresh whenever a page (and so its header bell) mounts: notifications arrive from other
// people's actions, so the cached copy from the previous page may be out of date.
// The newest page (50) and the count of unread ones; older pages are read by the
// Notifications page's "Load more" (loadOlder).
export const useNotifications = (enabled = true) =>
  useSWR<ApiPage<NotificationList>>(enabled ? NOTIFICATIONS_KEY : null, pageFetcher, { revalidateOnMount: true });

/** The page after `cursor` (the previous page's x-next-cursor). */
export const loadOlder = (cursor: string) => apiPage<NotificationList>(`${NOTIFICATIONS_KEY}?cursor=${encodeURIComponent(cursor)}`);

export async function markRead(id: number) {
  await api(`${NOTIFICATIONS_KEY}/${id}/read`, { method: "POST" });
  await mutate(NOTIFICATIONS_KEY);
}

export async function markAllRead() {
  await api(`${NOTIFICATIONS_KEY}/read-all`, { method: "POST" });
  await mutate(NOTIFICATIONS_KEY);
}

/** Notification links are app paths; anything else is never followed. */
export const safeLink = (link: string | null) => safeLocalPath(link);

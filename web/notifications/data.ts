import { safeLocalPath } from "../lib/safePath";
import useSWR, { mutate } from "swr";
import { api } from "../lib/api";
import type { NotificationList } from "../../src/notifications/schema";
export const NOTIFICATIONS_KEY = "/api/notifications";

// Read afresh whenever a page (and so its header bell) mounts: notifications arrive from other
// people's actions, so the cached copy from the previous page may be out of date.
export const useNotifications = (enabled = true) => useSWR<NotificationList>(enabled ? NOTIFICATIONS_KEY : null, { revalidateOnMount: true });

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

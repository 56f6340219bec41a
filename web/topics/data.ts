// Server state for the dashboard: swr keys are the API paths (spec §7).
import useSWR from "swr";
import { api } from "../lib/api";
import type { SharingUser, Topic } from "../../src/topics/schema";

export type { SharingUser, Topic };
export type SortKey = "newest" | "oldest" | "most-clicked" | "custom";
export type ViewKey = "personal" | "shared";

export const TOPICS_KEY = "/api/topics";
export const SHARED_TOPICS_KEY = "/api/shared-topics";
export const SHARING_USERS_KEY = "/api/sharing-users";
/** Spec §9: a topic younger than this is highlighted. */
export const HIGHLIGHT_MS = 5000;

export const useTopics = () => useSWR<Topic[]>(TOPICS_KEY);
export const useSharedTopics = (enabled = true) => useSWR<Topic[]>(enabled ? SHARED_TOPICS_KEY : null);
export const useSharingUsers = () => useSWR<SharingUser[]>(SHARING_USERS_KEY);

const t = (s: string) => Date.parse(s) || 0;

/** Spec §4 'Topic list': custom is order ascending (missing counts as 0); the rest by date or clicks. */
export function sortTopics(list: Topic[], sort: SortKey): Topic[] {
  const out = [...list];
  switch (sort) {
    case "newest":
      return out.sort((a, b) => t(b.createdAt) - t(a.createdAt) || b.id - a.id);
    case "oldest":
      return out.sort((a, b) => t(a.createdAt) - t(b.createdAt) || a.id - b.id);
    case "most-clicked":
      return out.sort((a, b) => (b.clickCount ?? 0) - (a.clickCount ?? 0) || b.id - a.id);
    case "custom":
      // Same tie-break as the server, so drag indexes mean the same thing on both sides.
      return out.sort((a, b) => (a.order ?? 0) - (b.order ?? 0) || a.id - b.id);
  }
}

export const topicLabel = (x: { emoji: string | null; name: string }) => (x.emoji ? `${x.emoji} ${x.name}` : x.name);
export const topicPath = (x: { username: string; linkSlug: string }) => `/${x.username}/${x.linkSlug}`;
export const topicLink = (x: { username: string; linkSlug: string }) => `${location.origin}${topicPath(x)}`;

export const topicsApi = {
  create: (name: string) => api<Topic>(TOPICS_KEY, { method: "POST", body: { name } }),
  update: (id: number, body: { name?: string; accessType?: Topic["accessType"] }) =>
    api<Topic>(`${TOPICS_KEY}/${id}`, { method: "PUT", body }),
  remove: (id: number) => api<void>(`${TOPICS_KEY}/${id}`, { method: "DELETE" }),
  reorder: (fromIndex: number, toIndex: number) =>
    api<Topic[]>(`${TOPICS_KEY}/reorder`, { method: "POST", body: { fromIndex, toIndex } }),
};

/** Copies text; false when the browser refuses (no permission, insecure context). */
export async function copyText(text: string) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

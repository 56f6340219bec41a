// Server state for the topic page, the message list and the message detail.
import { useEffect, useRef, type RefObject } from "react";
import useSWR, { mutate } from "swr";
import { useLocation } from "wouter";
import { format } from "date-fns";
import { api, apiPage, type ApiPage } from "../lib/api";
import { useConfig } from "../lib/config";
import { TITLE_PAGE_MAX, type Title } from "../../src/titles/schema";
import type { TopicView } from "../../src/topics/schema";

export type { Title, TopicView };
export { titleSlug } from "../../src/titles/schema";

const enc = encodeURIComponent;

export const topicKey = (username?: string, topicSlug?: string) =>
  username && topicSlug ? `/api/topic/${enc(username)}/${enc(topicSlug)}` : null;

export const titlesKey = (username?: string, topicSlug?: string) =>
  username && topicSlug ? `/api/${enc(username)}/${enc(topicSlug)}/titles` : null;

/** A key of this titles list, searched or not: the list's address, with `?q=` when searched. */
const isTitlesKey = (key: unknown, base: string | null) => typeof key === "string" && !!base && (key === base || key.startsWith(`${base}?`));

/** Spec §7: fetched only when both parameters exist; no retry, no refetch on focus. */
export function useTopic(username?: string, topicSlug?: string) {
  return useSWR<TopicView>(topicKey(username, topicSlug));
}

/**
 * The topic page is what the topic link opens, so only it reports an open (the server counts
 * it unless the caller owns the topic). Once per mount: the ref keeps StrictMode's second
 * effect run and re-renders from counting twice; a new topic or a new visit counts again.
 */
export function useTopicOpen(username?: string, topicSlug?: string) {
  const reported = useRef<string | null>(null);
  useEffect(() => {
    const key = topicKey(username, topicSlug);
    if (!key || reported.current === key) return;
    reported.current = key;
    // Best effort: a failed count must not disturb the page, which shows its own load errors.
    api(`${key}/open`, { method: "POST" }).catch(() => {});
  }, [username, topicSlug]);
}

/**
 * Inline editors (title rows, message cards): Escape cancels, and when the editor closes
 * with focus dropped on <body>, focus goes back to the row's Edit button so a keyboard user
 * keeps their place. Returns the ref for that button and the form's keydown handler.
 */
export function useInlineEditor(editing: boolean, cancel: () => void, busy: boolean, field?: RefObject<HTMLElement | null>) {
  const opener = useRef<HTMLButtonElement | null>(null);
  const was = useRef(editing);
  useEffect(() => {
    const active = document.activeElement;
    // `field`: an editor that stays on the page read-only (message notes) hands focus back too.
    const lost = !active || active === document.body || (!!field?.current && field.current.contains(active));
    if (was.current && !editing && lost) opener.current?.focus();
    was.current = editing;
  }, [editing]);
  const onKeyDown = (e: { key: string; preventDefault: () => void }) => {
    if (e.key !== "Escape" || busy) return;
    e.preventDefault();
    cancel();
  };
  return { opener, onKeyDown };
}

/**
 * The versions of the title whose page is `slug`: its current slug first, else a slug it had
 * before a rename (links copied earlier keep working, as old topic slugs do).
 */
export function seriesOf(list: Title[] | undefined, slug: string) {
  const all = list ?? [];
  const now = all.filter((t) => t.slug === slug);
  return now.length ? now : all.filter((t) => t.formerSlugs.includes(slug));
}

/**
 * An old slug is swapped for the current one in the address bar, so what is copied from
 * there (or bookmarked) is the title's current link.
 */
export function useCanonicalSlug(slug: string, current: string | undefined) {
  const [location, navigate] = useLocation();
  useEffect(() => {
    if (!current || current === slug) return;
    // /{username}/{topicSlug}/{titleSlug}[/{version}]: the title slug is the third part.
    const parts = location.split("/");
    parts[3] = current;
    navigate(parts.join("/"), { replace: true });
  }, [slug, current, location]);
}

/** Titles read per request: the largest page the server gives (src/titles/schema.ts). */
const TITLES_PER_REQUEST = TITLE_PAGE_MAX;

/**
 * Every title of the topic, read page by page (the server pages its list, issue 21). These
 * screens group versions into series and find a title by its slug, so they need the whole
 * topic; each request stays bounded, and a topic's titles are bounded by its quota.
 */
async function allTitles(key: string): Promise<Title[]> {
  const titles: Title[] = [];
  for (let cursor: string | null = null; ; ) {
    const page: ApiPage<Title[]> = await apiPage<Title[]>(`${key}${key.includes("?") ? "&" : "?"}limit=${TITLES_PER_REQUEST}${cursor ? `&cursor=${cursor}` : ""}`);
    titles.push(...page.body);
    cursor = page.next;
    if (!cursor) return titles;
  }
}

/**
 * Spec §7: the titles list is not cached, so every visit to a page reads it afresh. `search`
 * (the topic page's search box): the server's `q`, read page by page like the whole list; the
 * previous answer stays on screen until the new one lands.
 */
export function useTitles(username?: string, topicSlug?: string, search = "") {
  const base = titlesKey(username, topicSlug);
  const key = base && search ? `${base}?q=${enc(search)}` : base;
  return useSWR<Title[]>(key, allTitles, { revalidateOnMount: true, dedupingInterval: 0, keepPreviousData: !!search });
}

/** Spec §7: after each title success the titles list is refetched (searched or not). */
export const refetchTitles = (username: string, topicSlug: string) => {
  const base = titlesKey(username, topicSlug);
  return mutate((key) => isTitlesKey(key, base));
};

export function titlesApi(username: string, topicSlug: string) {
  const base = titlesKey(username, topicSlug)!;
  return {
    create: (body: { name: string; originalName?: string; notes?: string; version?: number }) =>
      api<Title>(base, { method: "POST", body }),
    update: (id: number, body: Partial<Pick<Title, "name" | "displayName" | "notes" | "keyPhrase" | "version">>, allVersions = false) =>
      api<Title>(`${base}/${id}${allVersions ? "?updateAllVersions=true" : ""}`, { method: "PUT", body }),
    remove: (id: number, allVersions = false) =>
      api<void>(`${base}/${id}${allVersions ? "?allVersions=true" : ""}`, { method: "DELETE" }),
  };
}

export const topicLabel = (t: { emoji: string | null; name: string }) => (t.emoji ? `${t.emoji} ${t.name}` : t.name);

/** Spec §9 'Date display'. */
export const formatDate = (iso: string) => format(new Date(iso), "MMM d, yyyy HH:mm");

/** The {host} of the spec's copied links: this instance's public address. */
export function useHost() {
  const config = useConfig();
  return (config?.publicUrl ?? location.origin).replace(/\/+$/, "");
}

export type SortKey = "newest" | "oldest" | "custom";
export type ViewKey = "personal" | "shared";

const byCreated = (a: Title, b: Title) => a.createdAt.localeCompare(b.createdAt) || a.id - b.id;

/**
 * View (decision): Personal shows everything in the topic; Shared shows only what other
 * people (the owner or invitees) added. Custom sorts by `order`, or by version when asked.
 */
export function arrange(list: Title[], sort: SortKey, view: ViewKey, me: number | undefined, custom: "order" | "version" = "order") {
  const shown = view === "shared" ? list.filter((t) => t.createdBy !== me) : list.slice();
  if (sort === "newest") return shown.sort((a, b) => byCreated(b, a));
  if (sort === "oldest") return shown.sort(byCreated);
  if (custom === "version") return shown.sort((a, b) => a.version - b.version);
  return shown.sort((a, b) => a.order - b.order || byCreated(a, b));
}

/** Copies text, reporting failure as false (no permission, insecure context, no focus). */
export async function copyText(text: string) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

import { lazy, Suspense, useEffect, useMemo, useRef, useState } from "react";
import useSWRInfinite from "swr/infinite";
import { Link, useSearch } from "wouter";
import { AppFooter, AppHeader } from "../shell/AppHeader";
import { Button } from "../ui/Button";
import { DownloadLink } from "../ui/DownloadLink";
import { ConfirmDialog, Dialog } from "../ui/Dialog";
import { Field, Select } from "../ui/Field";
import { MultiSelect } from "../ui/MultiSelect";
import { Spinner } from "../ui/Spinner";
import { toast } from "../ui/Toast";
import { api, pageFetcher, type ApiPage } from "../lib/api";
import { useConfig } from "../lib/config";
import { useSettled } from "../lib/useSettled";
import { CreateLinkDialog } from "./CreateLinkDialog";
import { SmartDialog } from "./SmartDialog";
import { LinkRow } from "./LinkRow";
import { API_BASE, type LinkView, type Tracker } from "./types";
import { CLICK_SORT_MAX } from "../../src/links/schema";
import { SEARCH_MAX } from "../../src/shared/paging";
import { EditLinkDialog } from "../brand/EditLinkDialog";
import { QrCodeDialog } from "../brand/QrCodeDialog";
import { RootLinkCard } from "../brand/RootLinkCard";
import { TagsDialog, useTags } from "./tags";
import "./links.css";
import { clickSummaries, useLiveEvent, useWatchedLinks } from "../notifications/live";
import { PublicStatsDialog } from "../publicstats/PublicStatsDialog";

const CLICK_KINDS = ["clicks.recorded"] as const;
const LIST_KINDS = ["link.created", "link.updated", "link.deleted", "resync"] as const;
/** Live changes to the list read it again at most this often (the first at once, the last of a burst after it). */
const LIST_REREAD_MS = 500;

// The analytics dialog and its chart library are fetched when a link's analytics are first opened.
const AnalyticsDialog = lazy(async () => ({ default: (await import("./AnalyticsDialog")).AnalyticsDialog }));

export const DELETE_CONFIRM = "Are you sure you want to delete this link? This action cannot be undone.";
export const RESET_CONFIRM = "Are you sure you want to reset the click count to zero? This cannot be undone.";

/** Cards fetched at first and added by each Show more (a page of the server's list). */
const CARDS_PER_PAGE = 100;
/** Typing settles this long before the search goes to the server. */
const SEARCH_DELAY_MS = 250;
type Sort = "newest" | "oldest" | "most" | "least" | "title";
const SORTS: { value: Sort; label: string }[] = [
  { value: "newest", label: "Newest" },
  { value: "oldest", label: "Oldest" },
  { value: "most", label: "Most Clicked" },
  { value: "least", label: "Least Clicked" },
  { value: "title", label: "Title (A–Z)" },
];
type Status = "all" | "active" | "expired" | "inactive";
const STATUSES: { value: Status; label: string }[] = [
  { value: "all", label: "All links" },
  { value: "active", label: "Active" },
  { value: "expired", label: "Expired" },
  { value: "inactive", label: "Inactive" },
];

type Pending = { kind: "delete" | "reset"; link: LinkView } | null;

/** The Link Tracker (spec §2) and, with tracker="brand", the brand tracker. */
export function TrackerPage({ tracker }: { tracker: Tracker }) {
  const brand = tracker === "brand";
  const config = useConfig();
  const base = API_BASE[tracker];
  const [search, setSearch] = useState("");
  const [sort, setSort] = useState<Sort>("newest");
  const [status, setStatus] = useState<Status>("all");
  // Links carrying every tag chosen (the API's `tags`), in the order they were chosen.
  const [chosenTags, setChosenTags] = useState<string[]>([]);
  const { tags, refreshTags } = useTags();
  const tagColors = useMemo(() => new Map(tags.map((t) => [t.name.toLowerCase(), t.color])), [tags]);
  const [managingTags, setManagingTags] = useState(false);
  const query = useSettled(search.trim(), SEARCH_DELAY_MS);
  // The server searches, sorts and pages (issue 21): 100 links a page, each page's key its
  // address, the next one named by the previous page's cursor; nothing else is downloaded.
  const pageKey = (index: number, previous: ApiPage<LinkView[]> | null) => {
    if (index > 0 && !previous?.next) return null;
    const params = new URLSearchParams({ limit: String(CARDS_PER_PAGE), sort });
    if (query) params.set("q", query);
    if (status !== "all") params.set("status", status);
    if (chosenTags.length) params.set("tags", chosenTags.join(","));
    if (brand) params.set("includeRoot", "true");
    if (previous?.next) params.set("cursor", previous.next);
    return `${base}?${params}`;
  };
  const { data, error, isLoading, isValidating, mutate, size, setSize } = useSWRInfinite<ApiPage<LinkView[]>>(pageKey, pageFetcher, {
    revalidateOnMount: true,
    revalidateFirstPage: false,
    // A new search or sort keeps the cards on screen until its first page arrives.
    keepPreviousData: true,
  });
  // A count set in place while the list is being read again is held until that read lands:
  // SWR drops a fetch that a local change overtook, so a link made (or deleted) elsewhere and
  // clicked a moment later never showed (or never went) until Refresh.
  const rereads = useRef(0);
  const heldTotals = useRef(new Map<number, number>());
  const setTotals = (totals: Map<number, number>) =>
    mutate((pages) => pages?.map((p) => ({ ...p, body: p.body.map((l) => (totals.has(l.id) ? { ...l, clickCount: totals.get(l.id)! } : l)) })), { revalidate: false });
  async function reread() {
    rereads.current++;
    try {
      return await mutate();
    } finally {
      if (--rereads.current === 0 && heldTotals.current.size > 0) {
        const held = new Map(heldTotals.current);
        heldTotals.current.clear();
        void setTotals(held);
      }
    }
  }
  // Live updates (issue 26): a batch of clicks moves its card's count in place; a link made,
  // changed or deleted elsewhere (another tab, the API, an import) reads the list again, at most
  // once per LIST_REREAD_MS: an import or a bulk create of 1,000 links is 1,000 events, and each
  // open tab read its list 1,000 times.
  // The stream carries the clicks of the cards loaded (the root card's too): not the account's.
  useWatchedLinks(useMemo(() => (data ?? []).flatMap((p) => p.body.map((l) => l.id)), [data]));
  useLiveEvent(CLICK_KINDS, (e) => {
    if (!e) return;
    // One frame carries a batch's links (README "Live updates"): the cards move in one change.
    const totals = new Map<number, number>();
    for (const l of clickSummaries(e)) if (l.tracker === tracker) totals.set(l.linkId, l.total);
    if (totals.size === 0) return;
    if (rereads.current > 0) for (const [id, total] of totals) heldTotals.current.set(id, total);
    else void setTotals(totals);
  });
  useLiveEvent(LIST_KINDS, () => void reread(), { only: (e) => e.data.tracker === tracker, throttleMs: LIST_REREAD_MS });
  // A new search, sort or filter starts again from its first page.
  useEffect(() => {
    void setSize(1);
  }, [query, sort, status, chosenTags]);
  const [creating, setCreating] = useState(false);
  const [analytics, setAnalytics] = useState<LinkView | null>(null);
  const [editing, setEditing] = useState<LinkView | null>(null);
  const [smart, setSmart] = useState<LinkView | null>(null);
  const [qr, setQr] = useState<LinkView | null>(null);
  const [publicStats, setPublicStats] = useState<LinkView | null>(null);
  const [pending, setPending] = useState<Pending>(null);
  const [busy, setBusy] = useState(false);
  const createButton = useRef<HTMLButtonElement>(null);
  // /link-tracker?create=1 (the QR page's "Create a short link") opens Create Short Link at once.
  const urlSearch = useSearch();
  useEffect(() => {
    if (new URLSearchParams(urlSearch).get("create") === "1") setCreating(true);
  }, [urlSearch]);

  useEffect(() => {
    if (error) toast({ title: "Error", description: brand ? "Failed to fetch short links" : "Failed to fetch links", variant: "destructive" });
  }, [error, brand]);

  const loaded = useMemo(() => (data ?? []).flatMap((p) => p.body), [data]);
  const root = brand ? loaded.find((l) => l.isSystem) : undefined;
  const shown = useMemo(() => loaded.filter((l) => !l.isSystem), [loaded]);
  const first = data?.[0];
  const total = first?.total ?? 0;
  const more = !!data?.[data.length - 1]?.next;
  const loadingMore = isValidating && !!data && size > data.length;
  const narrowed = query !== "" || status !== "all" || chosenTags.length > 0;
  // Show more goes with the last page, and focus would fall to the page's body: once that page
  // has landed, focus moves to the first link it showed (its actions menu, as after a delete).
  const moreFrom = useRef<number | null>(null);
  useEffect(() => {
    const from = moreFrom.current;
    if (from === null || !data || data.length < size || loadingMore) return;
    moreFrom.current = null;
    if (more || (document.activeElement && document.activeElement !== document.body)) return;
    const firstNew = shown[from];
    if (firstNew) requestAnimationFrame(() => document.querySelector<HTMLElement>(`[data-link="${firstNew.id}"] .link-more`)?.focus());
  }, [data, size, loadingMore, more]);

  const title = brand ? `${config?.brandName ?? ""} Link Tracker`.trim() : "Link Tracker";

  useEffect(() => {
    document.title = config ? `${title} · ${config.appName}` : title;
  }, [title, config]);

  async function refresh() {
    try {
      await reread();
      toast({ title: "Links refreshed", description: "Click counts are up to date." });
    } catch {
      /* the error effect above shows the toast */
    }
  }

  async function confirmPending() {
    if (!pending) return;
    setBusy(true);
    const { kind, link } = pending;
    // A deleted link's row goes with its menu, and focus would fall to the page's body: it
    // moves to the next link's actions menu (the one before at the end), or to Create Link.
    const at = shown.findIndex((l) => l.id === link.id);
    const next = shown[at + 1] ?? shown[at - 1];
    try {
      if (kind === "delete") {
        await api(`${base}/${link.id}`, { method: "DELETE" });
        toast({ title: "Short link deleted successfully" });
      } else {
        await api(`${base}/${link.id}/reset-clicks${link.isSystem ? "?isRoot=true" : ""}`, { method: "POST" });
        toast({ title: "Click count has been reset to zero" });
      }
      setPending(null);
      await reread();
      if (kind === "delete") {
        requestAnimationFrame(() => {
          const target = next ? document.querySelector<HTMLElement>(`[data-link="${next.id}"] .link-more`) : createButton.current;
          target?.focus();
        });
      }
    } catch (e) {
      const fallback = kind === "delete" ? "Failed to delete short link" : "Failed to reset click count";
      // Spec §8: the brand tracker shows the server's text for a failed delete.
      const description = kind === "delete" && brand && e instanceof Error && e.message ? e.message : fallback;
      toast({ title: "Error", description, variant: "destructive" });
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="page">
      <AppHeader />
      <main id="main" tabIndex={-1} className="container links-page">
        <div className="row links-head">
          <h1>{title}</h1>
          <span className="spacer" />
          <Button variant="secondary" onClick={refresh} busy={isValidating && !isLoading}>Refresh</Button>
          <Button ref={createButton} onClick={() => setCreating(true)}>Create Link</Button>
        </div>

        {!brand && (
          // Downloads come from the API (Content-Disposition names the file), read by the page so a
          // refused one says why (DownloadLink).
          <nav className="row links-bulk" aria-label="Import and export">
            <Link href="/link-tracker/import" className="btn btn-secondary btn-sm">Import links</Link>
            <DownloadLink className="btn btn-secondary btn-sm" href="/api/links/export.csv" label="Export CSV" />
            <DownloadLink className="btn btn-secondary btn-sm" href="/api/links/export.json" label="Export JSON" />
          </nav>
        )}

        {brand && root && (
          <RootLinkCard
            link={root}
            onAnalytics={() => setAnalytics(root)}
            onReset={() => setPending({ kind: "reset", link: root })}
          />
        )}

        <div className="row links-tools">
          <Field
            label="Search links"
            hideLabel
            type="search"
            placeholder="Search links..."
            // The server refuses a longer search (400): the box takes no more than it accepts,
            // rather than showing the previous search's links beside a failed fetch.
            maxLength={SEARCH_MAX}
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            className="links-search"
          />
          <Select
            label="Sort by"
            hideLabel
            value={sort}
            onChange={(e) => setSort(e.target.value as Sort)}
            // Click order is offered while the server can sort the list (src/links/schema.ts).
            options={first && (first.capped || first.total > CLICK_SORT_MAX) && sort !== "most" && sort !== "least" ? SORTS.filter((o) => o.value !== "most" && o.value !== "least") : SORTS}
          />
          <Select label="Filter links" hideLabel value={status} onChange={(e) => setStatus(e.target.value as Status)} options={STATUSES} />
          {/* Shown once there are tags; a chosen tag that was deleted meanwhile stays in the list to untick it. */}
          {(tags.length > 0 || chosenTags.length > 0) && (
            <MultiSelect
              label="Filter by tags"
              className="links-tag-filter"
              value={chosenTags}
              onChange={setChosenTags}
              summary={chosenTags.length === 0 ? "All tags" : `Tags: ${chosenTags.join(", ")}`}
              options={[...tags.map((t) => t.name), ...chosenTags.filter((c) => !tags.some((t) => t.name === c))].map((name) => ({ value: name, label: name }))}
            />
          )}
          <Button variant="secondary" size="sm" onClick={() => setManagingTags(true)}>Manage tags</Button>
        </div>

        {isLoading ? (
          <div className="empty"><Spinner label="Loading links" /></div>
        ) : error && !data ? (
          <div className="empty">
            <p>{brand ? "Failed to fetch short links" : "Failed to fetch links"}</p>
            <Button variant="secondary" onClick={() => void reread()}>Try again</Button>
          </div>
        ) : shown.length === 0 && !narrowed ? (
          <div className="empty onboarding">
            <p className="onboarding-title">You haven't created any links yet.</p>
            <p className="muted">
              A short link sends visitors on to a long address and counts every visit: where from, on what, and when.
              {!brand && (
                <>
                  {" "}Have links elsewhere? <Link href="/link-tracker/import">import them from a CSV file</Link>.
                </>
              )}
            </p>
            <Button onClick={() => setCreating(true)}>Create your first link</Button>
          </div>
        ) : shown.length === 0 ? (
          <p className="empty">No results found. Try a different search.</p>
        ) : (
          <>
            <ul className="link-list link-rows" aria-label="Links">
              {shown.map((l) => (
                <LinkRow
                  key={l.id}
                  link={l}
                  tagColors={tagColors}
                  brand={brand}
                  onAnalytics={() => setAnalytics(l)}
                  onEdit={() => setEditing(l)}
                  onSmart={() => setSmart(l)}
                  onQr={() => setQr(l)}
                  onPublicStats={() => setPublicStats(l)}
                  onReset={() => setPending({ kind: "reset", link: l })}
                  onDelete={() => setPending({ kind: "delete", link: l })}
                />
              ))}
            </ul>
            {(more || shown.length < total) && (
              <div className="row links-more">
                <p className="muted" aria-live="polite">
                  Showing {shown.length.toLocaleString("en")} of {total.toLocaleString("en")}
                  {first?.capped ? "+" : ""} links
                </p>
                {more && (
                  // Not disabled while the page loads (a disabled button drops the keyboard's focus): a
                  // second press while loading asks for nothing new.
                  <Button
                    variant="secondary"
                    onClick={() => {
                      if (loadingMore) return;
                      moreFrom.current = shown.length;
                      void setSize(size + 1);
                    }}
                    aria-busy={loadingMore || undefined}
                    aria-label="Show more links"
                  >
                    Show more
                  </Button>
                )}
              </div>
            )}
          </>
        )}
      </main>
      <AppFooter />

      <CreateLinkDialog
        open={creating}
        onClose={() => setCreating(false)}
        apiBase={base}
        onCreated={() => {
          void reread();
          refreshTags();
        }}
      />
      <TagsDialog
        open={managingTags}
        onClose={() => setManagingTags(false)}
        onChanged={() => {
          void reread();
        }}
      />
      {analytics && (
        <Suspense
          fallback={
            <Dialog open onClose={() => setAnalytics(null)} title={`Analytics: ${analytics.title}`} wide>
              <div className="row"><Spinner label="Loading analytics" /></div>
            </Dialog>
          }
        >
          <AnalyticsDialog linkId={analytics.id} title={analytics.title} tracker={tracker} onClose={() => setAnalytics(null)} />
        </Suspense>
      )}
      <EditLinkDialog
        link={editing}
        tracker={tracker}
        onClose={() => setEditing(null)}
        onSaved={() => {
          void reread();
          refreshTags();
        }}
      />
      <SmartDialog link={smart} apiBase={base} onClose={() => setSmart(null)} onSaved={() => void reread()} />
      <QrCodeDialog link={qr} onClose={() => setQr(null)} />
      <PublicStatsDialog link={publicStats} onClose={() => setPublicStats(null)} />
      <ConfirmDialog
        open={pending !== null}
        title={pending?.kind === "reset" ? "Reset click count" : "Delete link"}
        description={pending?.kind === "reset" ? RESET_CONFIRM : DELETE_CONFIRM}
        confirmLabel={pending?.kind === "reset" ? "Reset" : "Delete"}
        busy={busy}
        onConfirm={confirmPending}
        onCancel={() => setPending(null)}
      />
    </div>
  );
}

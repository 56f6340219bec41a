import { useEffect, useRef, useState } from "react";
import { Link } from "wouter";
import { format } from "date-fns";
import { AppFooter, AppHeader } from "../shell/AppHeader";
import { Button } from "../ui/Button";
import { Spinner } from "../ui/Spinner";
import { toastError } from "../ui/Toast";
import { loadOlder, markAllRead, markRead, safeLink, useNotifications } from "./data";
import type { Notification } from "../../src/notifications/schema";
import "./notifications.css";
import { usePageTitle } from "../shell/usePageTitle";

export function NotificationsPage() {
  usePageTitle("Notifications");
  const { data: first, error } = useNotifications();
  const [busy, setBusy] = useState(false);
  // Older pages, read on demand after the newest one; marking read updates them in place.
  const [older, setOlder] = useState<{ items: Notification[]; next: string | null } | null>(null);
  const [loading, setLoading] = useState(false);
  const data = first ? { ...first.body, notifications: [...first.body.notifications, ...(older?.items ?? [])] } : undefined;
  const next = older ? older.next : (first?.next ?? null);
  // Where the older pages were read from: the newest page's end at the time.
  const olderFrom = useRef<string | null>(null);
  // The notification to focus once the last older page is shown (see loadMore).
  const focusAfterLoad = useRef<number | null>(null);
  const loadMore = async () => {
    if (!next) return;
    setLoading(true);
    const shownBefore = data?.notifications.length ?? 0;
    try {
      if (!older) olderFrom.current = next;
      const page = await loadOlder(next);
      // Load more leaves with the last page: focus moves to the first notification it showed,
      // once it is on the page (the effect below; a frame after this could come before React's commit).
      if (!page.next) focusAfterLoad.current = shownBefore;
      setOlder((o) => ({ items: [...(o?.items ?? []), ...page.body.notifications], next: page.next }));
    } catch (e) {
      toastError(e, "Failed to load notifications");
    } finally {
      setLoading(false);
    }
  };
  // A notification arriving (live) while older pages are shown moves the newest page's end:
  // the older pages, read after the old end, would miss the one that moved across it (shown
  // nowhere until a reload). They are read again from the new end, as many as were shown.
  const firstNext = first?.next ?? null;
  useEffect(() => {
    if (!older || olderFrom.current === firstNext) return;
    olderFrom.current = firstNext;
    if (!firstNext) return void setOlder(null);
    const want = older.items.length;
    let stale = false;
    void (async () => {
      const items: Notification[] = [];
      let cursor: string | null = firstNext;
      while (cursor && items.length < want) {
        const page = await loadOlder(cursor);
        items.push(...page.body.notifications);
        cursor = page.next;
      }
      if (!stale) setOlder({ items, next: cursor });
    })().catch((e) => toastError(e, "Failed to load notifications"));
    return () => {
      stale = true;
    };
  }, [firstNext]);
  const readLocally = (id: number | null) =>
    setOlder((o) => o && { ...o, items: o.items.map((n) => (id === null || n.id === id ? { ...n, read: true } : n)) });
  const heading = useRef<HTMLHeadingElement>(null);
  const focusItem = (index: number) => {
    const li = document.querySelectorAll<HTMLElement>(".notification-list > li")[index];
    (li?.querySelector<HTMLElement>("a, [data-mark-read]") ?? heading.current)?.focus();
  };
  useEffect(() => {
    const index = focusAfterLoad.current;
    if (index === null || document.querySelectorAll(".notification-list > li").length <= index) return;
    focusAfterLoad.current = null;
    focusItem(index);
  }, [older]);

  // Mark all as read is disabled once nothing is unread, which would drop focus to the body:
  // it goes to the heading instead.
  const all = async () => {
    setBusy(true);
    try {
      await markAllRead();
      readLocally(null);
      requestAnimationFrame(() => heading.current?.focus());
    } catch (e) {
      toastError(e, "Failed to mark notifications as read");
    } finally {
      setBusy(false);
    }
  };
  const one = async (id: number, from?: HTMLElement) => {
    // The pressed button goes with the unread state: focus moves to the next unread's button,
    // else to this notification's own link, else the heading (never the page's body).
    const row = from?.closest("li");
    try {
      await markRead(id);
      readLocally(id);
      if (!from) return;
      requestAnimationFrame(() => {
        const later = row ? [...(row.parentElement?.querySelectorAll<HTMLElement>("li") ?? [])] : [];
        const after = later.slice(later.indexOf(row as HTMLLIElement) + 1).concat(later.slice(0, later.indexOf(row as HTMLLIElement)));
        const next = after.map((li) => li.querySelector<HTMLElement>("[data-mark-read]")).find(Boolean);
        (next ?? row?.querySelector<HTMLElement>("a") ?? heading.current)?.focus();
      });
    } catch (e) {
      toastError(e, "Failed to mark notification as read");
    }
  };

  let body;
  if (error) body = <p className="empty" role="alert">{error.message}</p>;
  else if (!data) body = <div className="empty"><Spinner label="Loading notifications" /></div>;
  else if (!data.notifications.length)
    body = (
      <div className="empty onboarding">
        <p className="onboarding-title">You have no notifications yet.</p>
        <p className="muted">
          You hear here when someone accepts your invite or adds a title to a topic you share. To start sharing, open{" "}
          <Link href="/">your topics</Link> and choose Share Topics.
        </p>
      </div>
    );
  else
    body = (
      <ul className="notification-list">
        {data.notifications.map((n) => {
          const href = safeLink(n.link);
          return (
            <li key={n.id} className={`notification ${n.read ? "" : "unread"}`}>
              {!n.read && <span className="sr-only">Unread: </span>}
              <div className="notification-body">
                {href ? (
                  <Link href={href} onClick={() => !n.read && void one(n.id)}>{n.message}</Link>
                ) : (
                  <span>{n.message}</span>
                )}
                <time dateTime={n.createdAt} className="muted">{format(new Date(n.createdAt), "MMM d, yyyy HH:mm")}</time>
              </div>
              {!n.read && (
                <Button size="sm" variant="ghost" data-mark-read onClick={(e) => one(n.id, e.currentTarget)} aria-label={`Mark as read: ${n.message}`}>Mark as read</Button>
              )}
            </li>
          );
        })}
      </ul>
    );
  const more = data && next && (
    <div className="row notifications-more">
      <p className="muted" aria-live="polite">
        Showing {data.notifications.length.toLocaleString("en")} of {(first?.total ?? 0).toLocaleString("en")} notifications
      </p>
      {/* Not disabled while loading: a disabled button would drop the keyboard's focus. */}
      <Button variant="secondary" onClick={() => !loading && void loadMore()} aria-busy={loading || undefined}>Load more</Button>
    </div>
  );

  return (
    <div className="page">
      <AppHeader />
      <main id="main" tabIndex={-1} className="container">
        <div className="notifications-head">
          <h1 ref={heading} tabIndex={-1}>Notifications</h1>
          <Button variant="secondary" onClick={all} busy={busy} disabled={!data?.unreadCount}>Mark all as read</Button>
        </div>
        <section className="card">
          {body}
          {more}
        </section>
      </main>
      <AppFooter />
    </div>
  );
}

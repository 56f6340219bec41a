import { useRef, useState } from "react";
import { Link } from "wouter";
import { format } from "date-fns";
import { AppFooter, AppHeader } from "../shell/AppHeader";
import { Button } from "../ui/Button";
import { Spinner } from "../ui/Spinner";
import { toastError } from "../ui/Toast";
import { markAllRead, markRead, safeLink, useNotifications } from "./data";
import "./notifications.css";
import { usePageTitle } from "../shell/usePageTitle";

export function NotificationsPage() {
  usePageTitle("Notifications");
  const { data, error } = useNotifications();
  const [busy, setBusy] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);

  // Mark all as read is disabled once nothing is unread, which would drop focus to the body:
  // it goes to the heading instead.
  const all = async () => {
    setBusy(true);
    try {
      await markAllRead();
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

  return (
    <div className="page">
      <AppHeader />
      <main id="main" tabIndex={-1} className="container">
        <div className="notifications-head">
          <h1 ref={heading} tabIndex={-1}>Notifications</h1>
          <Button variant="secondary" onClick={all} busy={busy} disabled={!data?.unreadCount}>Mark all as read</Button>
        </div>
        <section className="card">{body}</section>
      </main>
      <AppFooter />
    </div>
  );
}

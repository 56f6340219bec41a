import { useState } from "react";
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

  const all = async () => {
    setBusy(true);
    try {
      await markAllRead();
    } catch (e) {
      toastError(e, "Failed to mark notifications as read");
    } finally {
      setBusy(false);
    }
  };
  const one = async (id: number) => {
    try {
      await markRead(id);
    } catch (e) {
      toastError(e, "Failed to mark notification as read");
    }
  };

  let body;
  if (error) body = <p className="empty" role="alert">{error.message}</p>;
  else if (!data) body = <div className="empty"><Spinner label="Loading notifications" /></div>;
  else if (!data.notifications.length) body = <p className="empty">You have no notifications yet.</p>;
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
                <Button size="sm" variant="ghost" onClick={() => one(n.id)} aria-label={`Mark as read: ${n.message}`}>Mark as read</Button>
              )}
            </li>
          );
        })}
      </ul>
    );

  return (
    <div className="page">
      <AppHeader />
      <main className="container">
        <div className="notifications-head">
          <h1>Notifications</h1>
          <Button variant="secondary" onClick={all} busy={busy} disabled={!data?.unreadCount}>Mark all as read</Button>
        </div>
        <section className="card">{body}</section>
      </main>
      <AppFooter />
    </div>
  );
}

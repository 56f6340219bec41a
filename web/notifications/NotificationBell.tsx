import { Link } from "wouter";
import { useUser } from "../lib/auth";
import { useNotifications } from "./data";
import { useLiveStream } from "./live";
import "./notifications.css";

/** The header bell: a link to /notifications with a dot while anything is unread. */
export function NotificationBell() {
  const { user } = useUser();
  const { data } = useNotifications(!!user);
  // Every signed-in screen shows the bell: it keeps the tab's live updates open (./live.ts).
  useLiveStream(!!user);
  if (!user) return null;
  const unread = data?.body.unreadCount ?? 0;
  return (
    <Link
      href="/notifications"
      className="btn btn-ghost btn-icon bell"
      aria-label={unread ? `Notifications (${unread} unread)` : "Notifications"}
    >
      <svg aria-hidden="true" width="20" height="20" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
        <path d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9" />
        <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
      </svg>
      {unread > 0 && <span className="bell-dot" data-testid="unread-dot" />}
    </Link>
  );
}

// The notifications, worded in one place. Most are raised by the event log (issue 26): each
// event appended is passed through `noticesFor` in its own transaction, so features append
// events and never raise notifications themselves.
import type { StoredEvent } from "../events/schema";
import { milestoneNotices } from "../analytics/writer";
import type { CollapsingNotice, NewNotification } from "./store";

export const inviteAcceptedNotice = (member: string, eventId: number) => ({
  kind: "invite_accepted",
  message: `${member} accepted your invite and can now see your shared topics.`,
  link: "/",
  dedupeKey: `invite:${eventId}`,
});

/**
 * For the titles feature: someone other than the owner added a title to a shared topic. While
 * the owner has not read it, later ones for the same topic collapse into it (notificationsStore
 * collapse): one unread notification with a count, the newest title named, linking to the topic.
 */
export const titleAddedNotice = (p: { actor: string; titleName: string; topicName: string; link: string; topicLink: string; topicId: number; titleId: number }) => ({
  kind: "title_added",
  group: `title-added:${p.topicId}:`,
  item: p.titleId,
  message: (count: number) =>
    count === 1
      ? `${p.actor} added "${p.titleName}" to your topic ${p.topicName}.`
      : `${count.toLocaleString("en")} titles were added to your topic ${p.topicName}; the latest is "${p.titleName}" by ${p.actor}.`,
  link: p.link,
  groupLink: p.topicLink,
});

export const premiumEndingNotice = (expiresAt: string) => ({
  kind: "premium_ending",
  message: `Your Premium plan ends on ${new Date(expiresAt).toLocaleDateString("en-US", { month: "short", day: "numeric", year: "numeric", timeZone: "UTC" })}. Renew it on the Pricing page to keep unlimited topics and emoji.`,
  link: "/pricing",
  dedupeKey: `premium-ending:${expiresAt}`,
});

/** A path segment that may be a receiver's own token (Slack's, Discord's): long, or long enough with a digit. */
const SECRET_LIKE = /^(?=.{24,}$)|^(?=.{16,}$)(?=.*\d)/;

/**
 * An endpoint as a notification names it: scheme, host and path, so two endpoints on one host
 * are told apart. Notifications can be read with an API key, which may not read the webhooks
 * themselves (src/apikeys/access.ts), and a receiver's URL often carries its own token, so the
 * query and fragment are left out ("?…") and token-like path segments shown as "…". The URL
 * parser's own serialisation escapes the rest: spaces, quotes, angle brackets, control and
 * direction characters are percent-encoded, a host is ASCII (punycode), user info is dropped.
 */
export function endpointLabel(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return "an endpoint";
  }
  const path = u.pathname
    .split("/")
    .map((seg) => (SECRET_LIKE.test(seg) ? "…" : seg))
    .join("/");
  const label = `${u.protocol}//${u.host}${path === "/" ? "" : path}${u.search || u.hash ? "?…" : ""}`;
  return label.length > 200 ? `${label.slice(0, 199)}…` : label;
}

/** For webhooks: an endpoint disabled after failing too often in a row. */
export const webhookDisabledNotice = (url: string, failures: number) => ({
  kind: "webhook_disabled",
  message: `Your webhook to ${endpointLabel(url)} failed ${failures} times in a row and was turned off. Fix the receiver, then turn it on again under Settings → Webhooks.`,
  link: "/settings/webhooks",
});

/** The notifications an event raises for its owner (the first consumer of the event log). */
export function noticesFor(e: StoredEvent): (NewNotification | CollapsingNotice)[] {
  if (e.userId === null) return [];
  const userId = e.userId;
  switch (e.type) {
    case "invite.accepted":
      return [{ userId, ...inviteAcceptedNotice(e.data.member, e.id) }];
    case "title.added":
      // The owner hears of a new series someone else started, not of their own titles.
      return e.data.actorId === userId || e.data.version !== 1
        ? []
        : [
            {
              userId,
              ...titleAddedNotice({
                actor: e.data.actor,
                titleName: e.data.titleName,
                topicName: e.data.topicName,
                link: e.data.path,
                // The collapsed notification links to the topic: the title's path less its last segment.
                topicLink: e.data.path.slice(0, e.data.path.lastIndexOf("/")),
                topicId: e.data.topicId,
                titleId: e.data.titleId,
              }),
            },
          ];
    case "clicks.recorded": {
      const d = e.data;
      return milestoneNotices({ linkId: d.linkId, before: d.total - d.clicks, after: d.total }, { user_id: userId, title: d.title, short_code: d.shortCode, tracker: d.tracker });
    }
    default:
      return [];
  }
}

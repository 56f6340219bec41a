// The notifications other features raise, worded in one place. Each returns the fields for
// notificationsStore(db).create({ userId, ...notice }).

export const inviteAcceptedNotice = (member: string, codeHash: string) => ({
  kind: "invite_accepted",
  message: `${member} accepted your invite and can now see your shared topics.`,
  link: "/",
  dedupeKey: `invite:${codeHash}`,
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

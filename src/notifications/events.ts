// The notifications other features raise, worded in one place. Each returns the fields for
// notificationsStore(db).create({ userId, ...notice }).

export const inviteAcceptedNotice = (member: string, codeHash: string) => ({
  kind: "invite_accepted",
  message: `${member} accepted your invite and can now see your shared topics.`,
  link: "/",
  dedupeKey: `invite:${codeHash}`,
});

/** For the titles feature: someone other than the owner added a title to a shared topic. */
export const titleAddedNotice = (p: { actor: string; titleName: string; topicName: string; link: string; titleId: number }) => ({
  kind: "title_added",
  message: `${p.actor} added "${p.titleName}" to your topic ${p.topicName}.`,
  link: p.link,
  dedupeKey: `title-added:${p.titleId}`,
});

export const premiumEndingNotice = (expiresAt: string) => ({
  kind: "premium_ending",
  message: `Your Premium plan ends on ${new Date(expiresAt).toLocaleDateString("en-US", { month: "short", day: "numeric", year: "numeric", timeZone: "UTC" })}. Renew it on the Pricing page to keep unlimited topics and emoji.`,
  link: "/pricing",
  dedupeKey: `premium-ending:${expiresAt}`,
});

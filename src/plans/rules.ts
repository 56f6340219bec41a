// What each plan allows, in one place: the topics routes ask here before writing.
import type { UserRow } from "../accounts/store";
import { effectivePlan } from "../http/auth";
import { forbidden } from "../shared/errors";
import { DAY_MS } from "../shared/time";

export const PREMIUM_DAYS = 30;

export const topicLimitMessage = (limit: number) =>
  `The Free plan includes up to ${limit} topic${limit === 1 ? "" : "s"}. Upgrade to Premium for unlimited topics.`;
export const EMOJI_PREMIUM_MESSAGE = "Topic emoji are a Premium feature. Upgrade to Premium to add emoji to your topics.";
export const UPGRADE_DISABLED_MESSAGE = "Upgrades are managed by the administrator";

type PlanUser = Pick<UserRow, "subscription_type" | "subscription_expires_at">;

/** Free users may hold at most `limit` topics (premium that has run out counts as free). */
export function assertCanAddTopic(user: PlanUser, ownedTopics: number, limit: number) {
  if (effectivePlan(user) === "free" && ownedTopics >= limit) throw forbidden(topicLimitMessage(limit));
}

/** Setting a new emoji needs premium; keeping the one a topic already has never does. */
export function assertCanUseEmoji(user: PlanUser, emoji: string | null, previous: string | null = null) {
  if (emoji && emoji !== previous && effectivePlan(user) === "free") throw forbidden(EMOJI_PREMIUM_MESSAGE);
}

/** Thirty days of premium from now, or from the current end when premium is still running. */
export function upgradedExpiry(user: PlanUser, now = Date.now()) {
  const current = effectivePlan(user, now) === "premium" && user.subscription_expires_at ? Date.parse(user.subscription_expires_at) : now;
  return new Date(Math.max(current, now) + PREMIUM_DAYS * DAY_MS).toISOString();
}

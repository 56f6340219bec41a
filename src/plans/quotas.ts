// Per-user quotas (issue 21): what one account may hold on a shared instance, whatever its
// plan. The caps come from config.ts (README "Quotas"); the stores check them inside the
// transaction that would pass them, on the count that transaction reads, so two requests at
// once cannot both take the last place (PostgreSQL: the owner's row is locked first).
import type { Config } from "../config";
import { AppError } from "../shared/errors";

export type Quotas = Config["quotas"];

/** Every cap off: what a store gets when its caller passes none (the CLI, fixtures). */
export const NO_QUOTAS: Quotas = { linksPerUser: 0, apiKeysPerUser: 0, topicsPerUser: 0, tagsPerUser: 0, titlesPerTopic: 0, topicTextBytes: 0, qrStylesPerUser: 0 };

const n = (x: number) => x.toLocaleString("en");
const megabytes = (bytes: number) => (bytes >= 1_000_000 ? `${n(Math.round(bytes / 100_000) / 10)} MB` : `${n(bytes)} bytes`);

export const QUOTA_MSG = {
  links: (cap: number) => `Your account has reached its limit of ${n(cap)} links. Delete links you no longer need to add new ones.`,
  apiKeys: (cap: number) => `Your account has reached its limit of ${n(cap)} API keys. Revoke a key you no longer use to create a new one.`,
  topics: (cap: number) => `Your account has reached its limit of ${n(cap)} topics. Delete a topic you no longer need to add a new one.`,
  tags: (cap: number) => `Your account has reached its limit of ${n(cap)} tags. Delete a tag you no longer use to add a new one.`,
  titles: (cap: number) => `This topic has reached its limit of ${n(cap)} titles. Delete titles it no longer needs to add new ones.`,
  qrStyles: (cap: number) => `Your account has reached its limit of ${n(cap)} saved QR styles. Delete a style you no longer use to save a new one.`,
  text: (cap: number) => `This topic has reached its limit of ${megabytes(cap)} of text in its titles and messages. Shorten or delete some first.`,
};

export const quotaExceeded = (message: string) => new AppError("QUOTA_EXCEEDED", message);

/** Refuses one more when `count` already fills `cap` (0: no cap). */
export function assertRoom(count: number, cap: number, message: (cap: number) => string) {
  if (cap > 0 && count >= cap) throw quotaExceeded(message(cap));
}

/** Places left under `cap` beside `count` (Infinity when there is no cap). */
export const roomLeft = (count: number, cap: number) => (cap > 0 ? Math.max(0, cap - count) : Number.POSITIVE_INFINITY);

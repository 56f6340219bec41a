// The webhooks API's contract (issue 26), shared by the routes, the OpenAPI document and the
// Settings → Webhooks form.
import * as v from "valibot";
import { EVENT_TYPES } from "../events/schema";

/** Endpoints per account: each one is a queue the delivery loop serves. */
export const MAX_WEBHOOKS = 10;
/** Links one endpoint may be limited to. */
export const MAX_WEBHOOK_LINKS = 100;
/** Deliveries the log shows per endpoint, newest first. */
export const DELIVERY_LOG = 50;

export const WEBHOOK_MSG = {
  url: "Enter a full URL starting with https:// or http://",
  events: "Choose at least one event",
  links: "Choose links of your own",
  tooMany: `You can have at most ${MAX_WEBHOOKS} webhooks. Delete one first.`,
  local: "This server's webhooks may not call a private or local address (localhost, 127.x, 10.x, 192.168.x…): give a public address",
} as const;

const Url = v.pipe(v.string(), v.trim(), v.nonEmpty(WEBHOOK_MSG.url), v.maxLength(2000, "The URL can be at most 2,000 characters"), v.url(WEBHOOK_MSG.url));
const Events = v.pipe(v.array(v.picklist(EVENT_TYPES, "Unknown event type")), v.minLength(1, WEBHOOK_MSG.events), v.maxLength(EVENT_TYPES.length));
const LinkIds = v.nullable(v.pipe(v.array(v.pipe(v.number(), v.integer(), v.minValue(1))), v.minLength(1, "Choose at least one link, or every link"), v.maxLength(MAX_WEBHOOK_LINKS)));

export const CreateWebhookBody = v.object({
  url: Url,
  events: Events,
  /** Only these links' events (link.*, clicks.recorded); absent or null: every link, and events of no link. */
  linkIds: v.optional(LinkIds, null),
});
export type CreateWebhookBody = v.InferOutput<typeof CreateWebhookBody>;

export const UpdateWebhookBody = v.object({
  url: Url,
  events: Events,
  linkIds: v.optional(LinkIds, null),
  enabled: v.boolean(),
  /** A new secret (returned once, in this response); the old one stops signing at once. */
  rotateSecret: v.optional(v.boolean(), false),
});

export const WebhookView = v.object({
  id: v.number(),
  url: v.string(),
  events: v.array(v.picklist(EVENT_TYPES)),
  linkIds: v.nullable(v.array(v.number())),
  enabled: v.boolean(),
  /** Failed attempts in a row; at 20 the endpoint is disabled. */
  failures: v.number(),
  disabledReason: v.nullable(v.string()),
  /** The secret's last four characters, to tell secrets apart. */
  secretHint: v.string(),
  createdAt: v.string(),
  updatedAt: v.string(),
});
export type WebhookView = v.InferOutput<typeof WebhookView>;

/** Create and rotate: the view with the whole secret, which is shown this once. */
export const WebhookWithSecret = v.object({ ...WebhookView.entries, secret: v.string() });

/**
 * A delivery in the log: everything but its body, whose size it gives. A clicks.recorded body
 * summarises a whole batch (up to ~100 KB), and the log lists 50 of them: the body is read one
 * delivery at a time (DeliveryView).
 */
export const DeliverySummary = v.object({
  id: v.number(),
  eventId: v.string(),
  eventType: v.string(),
  state: v.picklist(["pending", "delivered", "failed"]),
  attempts: v.number(),
  nextAttemptAt: v.nullable(v.string()),
  lastStatus: v.nullable(v.number()),
  lastLatencyMs: v.nullable(v.number()),
  /** The first 1,000 characters of the receiver's answer. */
  lastResponse: v.nullable(v.string()),
  lastError: v.nullable(v.string()),
  lastAttemptAt: v.nullable(v.string()),
  createdAt: v.string(),
  /** The body's size in bytes (UTF-8), as sent. */
  bodyBytes: v.number(),
});
export type DeliverySummary = v.InferOutput<typeof DeliverySummary>;

/** One delivery with the exact body it sends (every attempt and a Redeliver send these bytes). */
export const DeliveryView = v.object({ ...DeliverySummary.entries, body: v.string() });
export type DeliveryView = v.InferOutput<typeof DeliveryView>;

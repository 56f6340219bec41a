// The event log's shapes (issue 26): what a webhook delivery's body and a live update carry.
// Shared with the web app (the Webhooks screen lists the types).
import * as v from "valibot";
import { QueryText } from "../shared/paging";

/** Every kind of event, in the order the Webhooks screen offers them. */
export const EVENT_TYPES = ["link.created", "link.updated", "link.deleted", "clicks.recorded", "title.added", "invite.accepted", "import.finished"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** What each type's `data` holds (README "Webhooks" lists the same). */
export type EventData = {
  "link.created": LinkEventData;
  "link.updated": LinkEventData;
  "link.deleted": { id: number; shortCode: string; tracker: string };
  /**
   * One per link per batch of clicks the writer commits: `clicks` in this batch, `total` after
   * it. In the log one event each; a webhook delivery (up to 1,000) and a live stream's frame (up
   * to 500) carry a batch's as `data.links` (src/webhooks/store.ts clickFanOutSql,
   * src/events/live.ts clicksFrame; README "Webhooks", "Live updates").
   */
  "clicks.recorded": { linkId: number; shortCode: string; tracker: string; title: string; clicks: number; total: number };
  "title.added": { topicId: number; topicName: string; titleId: number; titleName: string; version: number; actorId: number; actor: string; path: string };
  "invite.accepted": { memberId: number; member: string };
  "import.finished": { format: string; rows: number; imported: number; skipped: number };
};
type LinkEventData = { id: number; shortCode: string; tracker: string; originalUrl: string; title: string };

/** An event to append: whose data it is (`userId`) and what happened. */
export type NewEvent = {
  [T in EventType]: { type: T; userId: number | null; linkId?: number | null; topicId?: number | null; data: EventData[T] };
}[EventType];

/** An event as stored, with its id and time. */
export type StoredEvent = NewEvent & { id: number; createdAt: string };

/** A delivery's body and a live update's `data`: the event as JSON. */
export const EventBody = v.object({
  id: v.pipe(v.string(), v.description('"evt_" and the event\'s number: the same for every attempt and for Redeliver, so a receiver can drop a repeat')),
  type: v.picklist(EVENT_TYPES),
  createdAt: v.pipe(v.string(), v.description("When the change was committed (ISO-8601 UTC)")),
  data: v.pipe(v.record(v.string(), v.unknown()), v.description("The type's fields (README: Webhooks)")),
});
export type EventBody = v.InferOutput<typeof EventBody>;

/** Links a live stream may name in `links` at most (ten pages of the Link Tracker's cards). */
export const STREAM_LINKS_MAX = 1000;

/** GET /api/events/stream's query. */
export const StreamQuery = v.object({
  lastEventId: v.optional(v.pipe(v.string(), v.description("Where to resume, as the Last-Event-ID header says it (for a client that cannot send headers); the header wins."))),
  links: v.optional(
    v.pipe(
      QueryText("links must be link ids separated by commas"),
      v.maxLength(STREAM_LINKS_MAX * 16, "links is too long"),
      v.regex(/^(\d{1,15}(,\d{1,15})*)?$/, "links must be link ids separated by commas"),
      v.check((s) => s === "" || s.split(",").length <= STREAM_LINKS_MAX, `links names at most ${STREAM_LINKS_MAX} links`),
      v.description(
        `Only these links' clicks.recorded summaries (comma-separated ids, at most ${STREAM_LINKS_MAX}; empty: none); a frame then holds those of a batch, and the notifications nudge still comes for any link's milestone. Other events are not filtered. Absent: every link's. The web app names the cards it shows.`,
      ),
    ),
  ),
});

/** The ids of a stream's `links` (null: absent, every link). */
export const streamLinks = (raw: string | undefined) => (raw === undefined ? null : raw === "" ? [] : raw.split(",").map(Number));


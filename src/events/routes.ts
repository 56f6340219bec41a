// GET /api/events/stream (issue 26): the signed-in user's live updates as Server-Sent Events
// (./live.ts). A session only: an API key never reaches it (src/apikeys/access.ts), as a stream
// carries every event of the account.
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import type { AuthPlugin } from "../http/auth";
import { AppError } from "../shared/errors";
import { BASE_SECURITY_HEADERS } from "../http/headers";
import { defineOperations } from "../shared/apiOperations";
import { EVENT_TYPES, StreamQuery, streamLinks } from "./schema";
import { CATCH_UP, RETRY_MS, type LiveHub } from "./live";

export const STREAM_PATH = "/api/events/stream";

/** Last-Event-ID (the header a browser sends when it reconnects, or ?lastEventId=): a log id or null. */
export function lastEventId(header: string | null, query: string | undefined) {
  const raw = header ?? query ?? null;
  return raw !== null && /^\d{1,15}$/.test(raw.trim()) ? Number(raw.trim()) : null;
}

export function eventRoutes(ctx: AppContext, auth: AuthPlugin, hub: LiveHub) {
  const max = ctx.config.liveStreamsPerUser;
  return new Elysia().use(auth).get(
    STREAM_PATH,
    async ({ user, request, query, server }) => {
      if (hub.count(user.id) >= max) {
        throw new AppError(
          "RATE_LIMITED",
          `Too many live update streams are open for this account (at most ${max}). Close another tab or window of this app and try again.`,
          undefined,
          { "retry-after": String(RETRY_MS / 1000) },
        );
      }
      // A stream is silent between events and keep-alives: Bun's idle timeout (10 s) must not end it.
      server?.timeout(request, 0);
      const body = await hub.open(user.id, user.sessionId, lastEventId(request.headers.get("last-event-id"), query.lastEventId), request.signal, streamLinks(query.links));
      return new Response(body, {
        headers: {
          ...BASE_SECURITY_HEADERS,
          "content-type": "text/event-stream; charset=utf-8",
          "cache-control": "no-store",
          // nginx: pass each event on at once (README "Behind a proxy").
          "x-accel-buffering": "no",
        },
      });
    },
    { auth: true, query: StreamQuery },
  );
}

export const eventOperations = defineOperations({ tag: "Live updates", auth: "session" }, [
  {
    method: "GET",
    path: STREAM_PATH,
    summary: "Live updates (Server-Sent Events)",
    query: StreamQuery,
    description:
      `The events of your own links and topics, and titles added to topics shared with you, as they are committed: ` +
      `each is \`id: <n>\`, \`event: <type>\` (${EVENT_TYPES.join(", ")}) and \`data:\` with the same JSON a webhook delivery carries; ` +
      "a click batch's clicks.recorded events are one frame (`data.links`, up to 500 links a frame; `id:` is the last one's). " +
      "Also `ready` (the stream's position, once the catch-up is sent), `notifications` (one of the events raised a notification for you), " +
      "`reset` (more was missed than can be replayed: read everything again) and a keep-alive comment every LIVE_HEARTBEAT_SECONDS. " +
      `Send \`Last-Event-ID\` (browsers do when they reconnect) to get up to ${CATCH_UP} missed events first. ` +
      "At most LIVE_STREAMS_PER_USER streams per account (429 past it).",
    responses: { 200: { description: "An endless text/event-stream", media: { type: "text/event-stream", example: 'id: 43\nevent: clicks.recorded\ndata: {"id":"evt_42","type":"clicks.recorded","createdAt":"2026-01-01T00:00:00.000Z","data":{"links":[{"linkId":7,"shortCode":"spring","tracker":"main","title":"Spring sale","clicks":3,"total":120},{"linkId":9,"shortCode":"fall","tracker":"main","title":"Fall sale","clicks":1,"total":88}]}}\n\n' } } },
    errors: ["VALIDATION", "RATE_LIMITED"],
  },
]);

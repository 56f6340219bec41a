// Live updates (issue 26): GET /api/events/stream sends a signed-in user the events of their own
// data as Server-Sent Events. One hub per app keeps the open streams and hands each committed
// event to the streams that may see it: the event's owner's, and for a title added to a shared
// (personal or public) topic, the streams of the members the owner shares with.
//
// Nothing here is on the redirect path: clicks reach the log as one clicks.recorded per link per
// batch from the click writer (src/events/store.ts), and the hub reads the log only when woken by
// the feed (./feed.ts) and only while a stream is open. An idle hub has no timer.
//
// A batch's clicks.recorded events go out as one frame whose data is a webhook delivery's body,
// `data.links` (src/webhooks/store.ts): a flood over thousands of links is a frame per batch, not
// one per link (20 streams were sent 146,000 frames a second under the events benchmark, and the
// web app patched its cards once per frame: docs/performance.md, session 14).
//
// Resume: every event goes out with `id:` (its id in the log), so a browser reconnecting sends
// Last-Event-ID and gets what it missed from the log, at most CATCH_UP events; past that (or
// further back than the log or CATCH_UP_SCAN ids) it gets `reset`, meaning "read everything
// again". On PostgreSQL two transactions may commit out of id order, so an event committed just
// as a stream reconnects can be missed by the catch-up; the web app reads its screens again on
// every reconnect anyway (web/notifications/live.ts).
//
// A stream belongs to the session that opened it: with each keep-alive the hub looks up the
// sessions of its open streams (one query) and ends the streams whose session has ended (signed
// out, a new password, expired; on any instance), so a signed-out tab or a revoked cookie is not
// sent the account's events for as long as it keeps the connection.
import type { AppContext } from "../context";
import { log } from "../http/log";
import { noticesFor } from "../notifications/events";
import type { EventBody, StoredEvent } from "./schema";
import type { EventFeed, Wake } from "./feed";
import { eventsStore, type StreamEvent } from "./store";
import { MILESTONES } from "../analytics/writerStore";

/** Events a reconnecting stream is sent from the log at most; more missed means `reset`. */
export const CATCH_UP = 200;
/** A Last-Event-ID further back than this many ids is not searched: `reset` at once. */
export const CATCH_UP_SCAN = 100_000;
/** Events read per statement. */
const PAGE = 500;
/** Chunks queued for a client that does not read: past this the stream is closed (it reconnects). */
const MAX_QUEUED = 1_000;
/** Ids remembered to drop repeats (PostgreSQL: overlapping notifications and catch-ups). */
const SEEN = 20_000;
/** The wait before a browser reconnects, sent to it in the stream's first lines. */
export const RETRY_MS = 2_000;

const encoder = new TextEncoder();

/**
 * Links' summaries in one clicks.recorded frame at most: the log is read a PAGE at a time, so a
 * batch larger than that comes as several frames whatever this says (README "Live updates").
 */
export const CLICK_LINKS_PER_FRAME = PAGE;

export const eventBody = (e: StoredEvent): EventBody => ({ id: `evt_${e.id}`, type: e.type, createdAt: e.createdAt, data: e.data as Record<string, unknown> });
/** One event as SSE lines: its log id, its type as the SSE event name, the webhook body as data. */
export const sseFrame = (e: StoredEvent) => `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(eventBody(e))}\n\n`;
/**
 * A batch's clicks.recorded events (in id order) as one frame: `data` is the body a webhook
 * delivery of them carries (id and time of the first, `data.links` in order), `id:` the last
 * one's, so a stream that resumes from it has had all of them.
 */
export const clicksFrame = (run: readonly StreamEvent[]) =>
  `id: ${run.at(-1)!.id}\nevent: clicks.recorded\ndata: {"id":"evt_${run[0]!.id}","type":"clicks.recorded","createdAt":${JSON.stringify(run[0]!.createdAt)},"data":{"links":[${run.map((e) => e.raw).join(",")}]}}\n\n`;

/**
 * A click summary's count before and after its batch, read off the end of its stored text: both
 * writers build it with `clicks` and `total` last (src/events/store.ts), so only a summary that
 * crossed a milestone is parsed for its notice. A text of another shape is parsed (true).
 */
const CLICK_TAIL = /"clicks"\s*:\s*(\d+)\s*,\s*"total"\s*:\s*(\d+)\s*\}\s*$/;
export function mayCrossMilestone(e: StreamEvent) {
  const m = CLICK_TAIL.exec(e.raw);
  if (!m) return true;
  const after = Number(m[2]);
  const before = after - Number(m[1]);
  return MILESTONES.some((n) => before < n && after >= n);
}

type Stream = {
  userId: number;
  /**
   * `?links=`: the only links whose clicks.recorded summaries it is sent (the web app's shown
   * cards and open dialog), with its key (the ids sorted) so streams asking the same share one
   * text; null: every link's. Other events are not filtered.
   */
  links: { ids: ReadonlySet<number>; key: string } | null;
  /** The session that opened it (sessions.id): the stream ends with it. */
  sessionId: string;
  /** Events for it while its catch-up runs: sent after, in order, repeats dropped. */
  held: StreamEvent[] | null;
  sentIds: Set<number>;
  write(chunk: string | Uint8Array): void;
  close(): void;
};

export type LiveHub = ReturnType<typeof startLiveHub>;

export function startLiveHub(ctx: AppContext, feed: EventFeed) {
  const events = eventsStore(ctx.db);
  const postgres = ctx.db.dialect === "postgres";
  const byUser = new Map<number, Set<Stream>>();
  let open = 0;
  /** SQLite: every event up to here has been handed out (null while no stream is open). */
  let watermark: number | null = null;
  /** PostgreSQL: the newest id seen, where a catch-up after a lost connection starts. */
  let newest = 0;
  const seen = new Set<number>();
  let heartbeat: ReturnType<typeof setInterval> | null = null;
  let stopped = false;

  const remember = (id: number) => {
    seen.add(id);
    if (seen.size > SEEN) for (const old of seen) {
      seen.delete(old);
      if (seen.size <= SEEN * 0.9) break;
    }
  };

  /** Who may see `e` besides its owner: members of a shared topic's owner (title.added only). */
  async function viewers(batch: StreamEvent[]) {
    const members = new Map<number, number[]>();
    for (const e of batch) {
      if (e.type === "title.added" && e.topicId != null && !members.has(e.topicId)) members.set(e.topicId, await events.topicMembers(e.topicId));
    }
    return (e: StoredEvent) => [...(e.userId === null ? [] : [e.userId]), ...(e.type === "title.added" && e.topicId != null ? (members.get(e.topicId) ?? []) : [])];
  }

  /** The users `e` raised a notice for, found once however many streams it goes to. */
  const noticed = new WeakMap<StreamEvent, Set<number>>();
  const noticedBy = (e: StreamEvent, userId: number) => {
    if (e.type === "clicks.recorded" && !mayCrossMilestone(e)) return false;
    let users = noticed.get(e);
    if (!users) noticed.set(e, (users = new Set(noticesFor(e).map((n) => n.userId))));
    return users.has(userId);
  };
  // The bell reads its notifications again when an event raised one for this user.
  const NUDGE = "event: notifications\ndata: {}\n\n";

  /**
   * What a stream of `userId` is sent for `events` (in id order): each event its frame, and the
   * clicks.recorded of one batch one frame (clicksFrame), with the bell's nudge after a frame
   * whose events raised a notice for this user.
   */
  function framesFor(userId: number, events: readonly StreamEvent[], links: ReadonlySet<number> | null = null) {
    let text = "";
    for (let i = 0; i < events.length; ) {
      const e = events[i]!;
      if (e.type !== "clicks.recorded") {
        text += sseFrame(e) + (noticedBy(e, userId) ? NUDGE : "");
        i++;
        continue;
      }
      let j = i + 1;
      // One batch's (its events share the writer's commit time), as a webhook delivery holds.
      while (j < events.length && j - i < CLICK_LINKS_PER_FRAME && events[j]!.type === "clicks.recorded" && events[j]!.createdAt === e.createdAt) j++;
      const run = events.slice(i, j);
      // A filtered stream gets its links' summaries only, and the bell's nudge whichever link
      // crossed a milestone.
      const shown = links ? run.filter((c) => links.has(c.linkId ?? 0)) : run;
      text += (shown.length ? clicksFrame(shown) : "") + (run.some((c) => noticedBy(c, userId)) ? NUDGE : "");
      i = j;
    }
    return text;
  }

  /** Sends `events` to the streams of one user, the text made and encoded once per filter for all of them. */
  function deliver(userId: number, streams: Iterable<Stream>, events: readonly StreamEvent[]) {
    const made = new Map<string, Uint8Array>();
    for (const s of streams) {
      if (s.held) {
        s.held.push(...events);
        continue;
      }
      const key = s.links?.key ?? "*";
      let bytes = made.get(key);
      if (!bytes) made.set(key, (bytes = encoder.encode(framesFor(userId, events, s.links?.ids ?? null))));
      s.write(bytes);
    }
  }

  async function dispatch(batch: StreamEvent[]) {
    const fresh = postgres ? batch.filter((e) => !seen.has(e.id)) : batch;
    if (fresh.length === 0) return;
    const who = await viewers(fresh);
    const perUser = new Map<number, StreamEvent[]>();
    for (const e of fresh) {
      if (postgres) remember(e.id);
      newest = Math.max(newest, e.id);
      for (const userId of who(e)) {
        if (!byUser.has(userId)) continue;
        const list = perUser.get(userId);
        if (list) list.push(e);
        else perUser.set(userId, [e]);
      }
    }
    for (const [userId, list] of perUser) deliver(userId, byUser.get(userId) ?? [], list);
  }

  const broadcastReset = () => {
    for (const set of byUser.values()) for (const s of set) s.write("event: reset\ndata: {}\n\n");
  };

  /**
   * Hands out the streams' events with ids in (from, upTo], a page at a time. Only the users
   * with an open stream are read (and titles, for shared topics' members).
   */
  async function readRange(from: number, upTo: number) {
    for (let pages = 0; from < upTo; pages++) {
      // A gap too large to replay (PostgreSQL, after a long loss): everyone reads afresh.
      if (pages * PAGE >= CATCH_UP_SCAN) return broadcastReset();
      const batch = await events.forStreams(from, upTo, [...byUser.keys()], PAGE);
      await dispatch(batch);
      if (batch.length < PAGE) return;
      from = batch.at(-1)!.id;
    }
  }

  /** SQLite: everything after the watermark. PostgreSQL: a notified range, or after `newest` on a gap. */
  async function read(w: Wake) {
    if (open === 0) return;
    if (postgres && w.range) return readRange(w.range[0] - 1, w.range[1]);
    const upTo = await events.lastId();
    const from = postgres ? newest : (watermark ?? upTo);
    await readRange(from, upTo);
    if (postgres) newest = Math.max(newest, upTo);
    else watermark = Math.max(watermark ?? 0, upTo);
  }

  /** Reads run one after another, so events go out in the order they were read. */
  let chain: Promise<void> = Promise.resolve();
  let scanQueued = false;
  const queue = (task: () => Promise<void>) => {
    chain = chain.then(task).catch((e) => log.error("live events: reading the log failed", { error: String(e) }));
  };
  function onWake(w: Wake) {
    if (stopped || open === 0) return;
    if (postgres && w.range) return queue(() => read(w));
    // A scan of the log's end: one queued at a time is enough, it reads everything there is.
    if (scanQueued) return;
    scanQueued = true;
    queue(async () => {
      scanQueued = false;
      await read({ range: null });
      // SQLite: a wake can come just before its transaction committed: one more look shortly
      // (that look itself is marked, so it does not schedule another).
      if (!postgres && !w.gap) setTimeout(() => onWake({ range: null, gap: true }), 50).unref?.();
    });
  }
  const unsubscribe = feed.on(onWake);

  /** Ends the streams whose session has ended (one look at a time). */
  let checking = false;
  async function endSignedOut() {
    if (checking || open === 0) return;
    checking = true;
    try {
      const all = [...byUser.values()].flatMap((set) => [...set]);
      const live = await ctx.accounts.liveSessionIds([...new Set(all.map((s) => s.sessionId))]);
      for (const s of all) if (!live.has(s.sessionId)) s.close();
    } catch (e) {
      log.error("live events: checking the streams' sessions failed", { error: String(e) });
    } finally {
      checking = false;
    }
  }

  const ensureHeartbeat = () => {
    if (heartbeat || open === 0) return;
    heartbeat = setInterval(() => {
      for (const set of byUser.values()) for (const s of set) s.write(": keep-alive\n\n");
      void endSignedOut();
    }, ctx.config.liveHeartbeatMs);
    heartbeat.unref?.();
  };

  const remove = (s: Stream) => {
    const set = byUser.get(s.userId);
    if (!set?.delete(s)) return;
    open--;
    if (set.size === 0) byUser.delete(s.userId);
    if (open === 0) {
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = null;
      // Nobody listening: nothing is read, and the next stream starts from the log's end.
      watermark = null;
    }
  };

  ctx.shutdownHooks.push(async () => {
    stopped = true;
    unsubscribe();
    for (const set of [...byUser.values()]) for (const s of [...set]) s.close();
  });

  return {
    /** Ends at once the streams a session opened (its sign-out here; elsewhere the keep-alive's look finds it). */
    endSession(sessionId: string) {
      for (const set of [...byUser.values()]) for (const s of [...set]) if (s.sessionId === sessionId) s.close();
    },
    /** Streams open now for `userId`. */
    count: (userId: number) => byUser.get(userId)?.size ?? 0,
    /** Ends every stream (a graceful stop: browsers reconnect to another instance or later). */
    closeAll() {
      for (const set of [...byUser.values()]) for (const s of [...set]) s.close();
    },
    /**
     * Opens a stream for `userId` in session `sessionId`; `lastEventId` (Last-Event-ID) asks for
     * what was missed. The caller has checked the per-user limit. `signal` ends it when the
     * client goes away; the session's end ends it too (endSignedOut).
     */
    async open(userId: number, sessionId: string, lastEventId: number | null, signal: AbortSignal, links: readonly number[] | null = null): Promise<ReadableStream<Uint8Array>> {
      let controller!: ReadableStreamDefaultController<Uint8Array>;
      let closed = false;
      const ids = links === null ? null : new Set(links);
      const s: Stream = {
        userId,
        links: ids && { ids, key: [...ids].sort((a, b) => a - b).join(",") },
        sessionId,
        held: [],
        sentIds: new Set(),
        write(chunk) {
          // An empty chunk is nothing to send (and never the end of a chunked body).
          if (closed || chunk.length === 0) return;
          try {
            if ((controller.desiredSize ?? 0) < -MAX_QUEUED) return s.close();
            // The same bytes may go to several streams of a user: they are never written to.
            controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
          } catch {
            s.close();
          }
        },
        close() {
          if (closed) return;
          closed = true;
          remove(s);
          try {
            controller.close();
          } catch {
            /* already closed by the client */
          }
        },
      };
      const body = new ReadableStream<Uint8Array>({
        start: (c) => void (controller = c),
        cancel: () => s.close(),
      });
      signal.addEventListener("abort", () => s.close(), { once: true });
      // Registered before the catch-up is read, so nothing committed meanwhile falls between.
      let set = byUser.get(userId);
      if (!set) byUser.set(userId, (set = new Set()));
      set.add(s);
      open++;
      ensureHeartbeat();
      s.write(`retry: ${RETRY_MS}\n: connected\n\n`);
      try {
        if (!postgres && watermark === null) watermark = await events.lastId();
        const position = postgres ? await events.lastId() : watermark!;
        newest = Math.max(newest, postgres ? position : 0);
        let last = position;
        if (lastEventId !== null && lastEventId < position) {
          // Too far back, or some of what followed it has aged out of the log: read everything again.
          const tooOld = position - lastEventId > CATCH_UP_SCAN || (await events.firstId()) > lastEventId + 1;
          const missed = tooOld ? null : await events.visibleAfter(userId, lastEventId, CATCH_UP + 1);
          if (missed === null || missed.length > CATCH_UP) {
            s.write("event: reset\ndata: {}\n\n");
          } else {
            for (const e of missed) s.sentIds.add(e.id);
            if (missed.length) s.write(framesFor(userId, missed, ids));
            last = Math.max(last, missed.at(-1)?.id ?? 0);
          }
        }
        // The position, so a browser that saw no event yet resumes from here.
        s.write(`id: ${last}\nevent: ready\ndata: ${JSON.stringify({ lastEventId: last })}\n\n`);
      } catch (e) {
        log.error("live events: opening a stream failed", { error: String(e) });
        s.write("event: reset\ndata: {}\n\n");
      }
      const held = (s.held ?? []).filter((e) => !s.sentIds.has(e.id)).sort((a, b) => a.id - b.id);
      s.held = null;
      if (held.length) s.write(framesFor(userId, held, ids));
      s.sentIds.clear();
      return body;
    },
  };
}

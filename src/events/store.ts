// The only SQL for the event log (issue 26). An event is appended inside the transaction of the
// change it records, and its consumers that must commit with it run in that same transaction:
// the notifications it raises and the webhook deliveries it queues (the outbox). Live updates
// read the committed log afterwards (./live.ts).
import type { Database as SqliteHandle } from "bun:sqlite";
import type { Database, Queries } from "../db/database";
import { nowIso } from "../shared/time";
import { addNotices, collapseNotice, sqliteNotifications, type CollapsingNotice, type NewNotification } from "../notifications/store";
import { noticesFor } from "../notifications/events";
import { clickFanOutSql, fanOutSql } from "../webhooks/store";
import type { EventType, NewEvent, StoredEvent } from "./schema";
import { eventsWritten } from "./feed";
import { MILESTONES } from "../analytics/writerStore";

type EventRow = { id: number; type: string; user_id: number | null; link_id: number | null; topic_id: number | null; data: string; created_at: string };

export const toEvent = (r: EventRow): StoredEvent =>
  ({ id: r.id, type: r.type as EventType, userId: r.user_id, linkId: r.link_id, topicId: r.topic_id, data: JSON.parse(r.data), createdAt: r.created_at }) as StoredEvent;

/** A stored event as the live streams take it: `raw` its data as stored (see toStreamEvent). */
export type StreamEvent = StoredEvent & { raw: string };

/**
 * An event for the live streams (./live.ts): its data is parsed only when something reads `data`.
 * A clicks.recorded frame is made of the stored texts themselves, and a flood's summaries were
 * parsed here and made into JSON again there for nothing (~4 % of the request thread's CPU
 * samples under the events benchmark, session 15).
 */
export const toStreamEvent = (r: EventRow): StreamEvent => {
  let data: unknown;
  const e = { id: r.id, type: r.type as EventType, userId: r.user_id, linkId: r.link_id, topicId: r.topic_id, createdAt: r.created_at, raw: r.data };
  return Object.defineProperty(e, "data", { enumerable: true, get: () => (data ??= JSON.parse(r.data)) }) as StreamEvent;
};

const COLS = "id, type, user_id, link_id, topic_id, data, created_at";
// Rows per INSERT: a bulk create's batch of links is a few statements, not one per link.
const CHUNK = 100;

/**
 * Appends events in the caller's transaction `q`, raises their notifications and queues their
 * webhook deliveries there too: all of it commits with the change, or none of it.
 */
export async function appendEvents(q: Queries, events: readonly NewEvent[]): Promise<StoredEvent[]> {
  const stored: StoredEvent[] = [];
  const now = nowIso();
  for (let at = 0; at < events.length; at += CHUNK) {
    const part = events.slice(at, at + CHUNK);
    const rows = await q.all<EventRow>(
      `INSERT INTO events (type, user_id, link_id, topic_id, data, created_at) VALUES ${part.map(() => "(?, ?, ?, ?, ?, ?)").join(", ")} RETURNING ${COLS}`,
      ...part.flatMap((e) => [e.type, e.userId, e.linkId ?? null, e.topicId ?? null, JSON.stringify(e.data), now]),
    );
    // RETURNING's order is not promised: the ids are, so sorted they follow the VALUES.
    stored.push(...rows.sort((a, b) => a.id - b.id).map(toEvent));
  }
  await consume(q, stored);
  // The readers in this process look once the transaction has committed (./feed.ts).
  if (stored.length) eventsWritten();
  return stored;
}

/** The consumers that commit with the events: notifications, then the webhook outbox. */
async function consume(q: Queries, stored: readonly StoredEvent[]) {
  if (stored.length === 0) return;
  await notify(q, stored);
  await q.run(fanOutSql(q.dialect), JSON.stringify(stored.map((e) => e.id)));
}

async function notify(q: Queries, stored: readonly StoredEvent[]) {
  const notices = stored.flatMap(noticesFor);
  // Repeated notices of one kind (a topic's added titles) collapse into one unread notification.
  const plain = notices.filter((n): n is NewNotification => typeof n.message === "string");
  if (plain.length) await addNotices(q, plain);
  for (const n of notices) if (typeof n.message !== "string") await collapseNotice(q, n as CollapsingNotice);
}

/** A click-count move of one link in one batch: `n` clicks, `total` after them. */
export type ClickCount = { linkId: number; n: number; total: number };

/**
 * The PostgreSQL click writer's hook (src/analytics/pgWriterStore.ts): one clicks.recorded
 * event per link of the batch, in one statement however many links (a busy batch holds
 * thousands), in the writer's transaction. Links deleted meanwhile drop out in the join.
 */
export async function appendClickEvents(q: Queries, counts: readonly ClickCount[]) {
  if (counts.length === 0) return;
  const rows = await q.all<EventRow>(
    `INSERT INTO events (type, user_id, link_id, data, created_at)
     SELECT 'clicks.recorded', l.user_id, l.id,
       json_build_object('linkId', l.id, 'shortCode', l.short_code, 'tracker', l.tracker, 'title', l.title, 'clicks', j.n, 'total', j.total)::text, ?
     FROM json_to_recordset(?::text::json) AS j(link_id integer, n bigint, total bigint) JOIN short_links l ON l.id = j.link_id
     ORDER BY l.id RETURNING ${COLS}`,
    nowIso(),
    JSON.stringify(counts.map((c) => ({ link_id: c.linkId, n: c.n, total: c.total }))),
  );
  if (rows.length === 0) return;
  const stored = rows.map(toEvent);
  await notify(q, stored);
  // The batch's ids as a range: no other click batch's can fall inside it, as the writers take
  // click_fold's row lock first and hold it to commit (pgWriterStore.ts); other types' events
  // that do are not clicks.recorded.
  let first = stored[0]!.id;
  let last = first;
  for (const e of stored) (first = Math.min(first, e.id)), (last = Math.max(last, e.id));
  const fanOut = clickFanOutSql("postgres");
  await q.run(fanOut.bodies, first, last);
  await q.run(fanOut.deliveries, first, last);
}

/**
 * The SQLite click writer's hook (src/analytics/writer.ts), synchronous on the worker's own
 * connection inside its batch transaction, after the counts moved: the totals are read from
 * link_click_counts as the batch left them. `counts`: link id → clicks in this batch.
 *
 * Per link of a flood's batch (thousands) it does the least it can: the INSERT returns nothing
 * (one statement in SQLite's single writer numbers its rows consecutively, so `changes` and the
 * last rowid give the batch's id range), only the rows that crossed a milestone come back to
 * JavaScript for their notices (SQLite reads the totals from the JSON it just wrote), and the
 * webhook outbox gets one delivery per endpoint per batch and chunk, whose body is stored once
 * (clickFanOutSql).
 */
export function sqliteClickEvents(handle: SqliteHandle) {
  const insert = handle.prepare(
    `INSERT INTO events (type, user_id, link_id, data, created_at)
     SELECT 'clicks.recorded', l.user_id, l.id,
       json_object('linkId', l.id, 'shortCode', l.short_code, 'tracker', l.tracker, 'title', l.title, 'clicks', j.value, 'total', c.clicks), ?
     FROM json_each(?) j JOIN short_links l ON l.id = CAST(j.key AS INTEGER) JOIN link_click_counts c ON c.link_id = l.id
     ORDER BY l.id`,
  );
  // The rule of milestoneNotices (src/analytics/writer.ts), as a filter: before < m <= after,
  // over the events of the links the writer saw cross one (their JSON read only for those).
  const crossed = handle.prepare(
    `SELECT ${COLS} FROM (SELECT ${COLS}, data ->> '$.total' AS after, data ->> '$.total' - (data ->> '$.clicks') AS before FROM events
       WHERE id BETWEEN ? AND ? AND link_id IN (SELECT value FROM json_each(?)))
     WHERE ${MILESTONES.map((m) => `(before < ${m} AND after >= ${m})`).join(" OR ")}`,
  );
  const clickFanOut = clickFanOutSql("sqlite");
  const bodies = handle.prepare(clickFanOut.bodies);
  const deliveries = handle.prepare(clickFanOut.deliveries);
  const notifications = sqliteNotifications(handle);
  return {
    /**
     * `crossedIds`: the links whose count crossed a milestone in this batch (writerStore's count
     * moves). Most batches have none, and then no event is read back: reading every event of a
     * batch to find them cost ~2.5 µs a click (docs/performance.md, session 12).
     */
    record(counts: ReadonlyMap<number, number>, crossedIds: readonly number[]) {
      if (counts.size === 0) return;
      let json = "{";
      for (const [linkId, n] of counts) json += `${json.length > 1 ? "," : ""}"${linkId}":${n}`;
      const { changes, lastInsertRowid } = insert.run(nowIso(), `${json}}`);
      if (changes === 0) return;
      const last = Number(lastInsertRowid);
      const first = last - changes + 1;
      // Click events raise milestone notices only, never collapsing ones.
      if (crossedIds.length > 0) {
        for (const row of crossed.all(first, last, JSON.stringify(crossedIds)) as EventRow[])
          for (const notice of noticesFor(toEvent(row))) if (typeof notice.message === "string") notifications.add(notice as NewNotification);
      }
      bodies.run(first, last);
      deliveries.run(first, last);
    },
  };
}

/** The log as the live updates (./live.ts) and the retention job read it. */
export function eventsStore(db: Database) {
  return {
    /**
     * The live updates' read: events with ids in (afterId, upTo] that belong to one of `userIds`
     * or are titles added (which members of a shared topic may see), oldest first, at most
     * `limit`. The owners' index and the id range keep it to the streams' own events, so other
     * users' click batches are neither read nor parsed.
     */
    // On the reader thread (db.reads): under a click flood the streams read hundreds of events a wake.
    forStreams: async (afterId: number, upTo: number, userIds: readonly number[], limit: number) =>
      (
        await db.reads.all<EventRow>(
          `SELECT ${COLS} FROM events WHERE id > ? AND id <= ? AND (type = 'title.added' OR user_id IN (${
            db.dialect === "postgres" ? "SELECT value::int FROM json_array_elements_text(?::text::json)" : "SELECT value FROM json_each(?)"
          })) ORDER BY id LIMIT ?`,
          afterId, upTo, JSON.stringify(userIds), limit,
        )
      ).map(toStreamEvent),
    lastId: async () => Number((await db.get<{ id: number | null }>("SELECT MAX(id) AS id FROM events"))?.id ?? 0),
    firstId: async () => Number((await db.get<{ id: number | null }>("SELECT MIN(id) AS id FROM events"))?.id ?? 0),
    /**
     * Who besides its owner sees a topic's events: the members the owner shares with, when the
     * topic is not private (the rule of topicsStore.findVisible for members).
     */
    topicMembers: async (topicId: number) =>
      (
        await db.all<{ member_id: number }>(
          "SELECT s.member_id FROM topics t JOIN shares s ON s.owner_id = t.user_id WHERE t.id = ? AND t.access_type IN ('personal', 'public')",
          topicId,
        )
      ).map((r) => Number(r.member_id)),
    /**
     * A reconnecting stream's catch-up: events after `afterId` that `userId` may see (its own,
     * and titles added to topics shared with it), oldest first, at most `limit`. Two reads, each
     * on an index or the id range, merged.
     */
    async visibleAfter(userId: number, afterId: number, limit: number) {
      const own = await db.all<EventRow>(`SELECT ${COLS} FROM events WHERE user_id = ? AND id > ? ORDER BY id LIMIT ?`, userId, afterId, limit);
      const shared = await db.all<EventRow>(
        `SELECT ${COLS} FROM events WHERE id > ? AND type = 'title.added' AND user_id != ? AND topic_id IN (
           SELECT t.id FROM topics t JOIN shares s ON s.owner_id = t.user_id WHERE s.member_id = ? AND t.access_type IN ('personal', 'public'))
         ORDER BY id LIMIT ?`,
        afterId, userId, userId, limit,
      );
      return [...own, ...shared].map(toStreamEvent).sort((a, b) => a.id - b.id).slice(0, limit);
    },
    /** Appends outside a caller's transaction (a change that is itself the event: an import's end). */
    append: (events: readonly NewEvent[]) => db.tx((q) => appendEvents(q, events)),
    /**
     * Retention: events older than `before` go, a bounded batch per statement so a large
     * backlog never holds the write lock long; returns how many went.
     */
    async prune(before: string, batch = 5000) {
      let total = 0;
      for (;;) {
        const n = await db.run(`DELETE FROM events WHERE id IN (SELECT id FROM events WHERE created_at < ? ORDER BY id LIMIT ?)`, before, batch);
        total += n;
        if (n < batch) return total;
      }
    },
  };
}

// The only SQL for webhooks (issue 26): endpoints, the outbox of deliveries, and claiming.
import type { Database, Dialect, Queries } from "../db/database";
import { nowIso } from "../shared/time";
import { addNotices } from "../notifications/store";
import { webhookDisabledNotice } from "../notifications/events";

/** At most this many links' summaries in one clicks.recorded delivery (README "Webhooks"). */
export const CLICK_LINKS_PER_DELIVERY = 1_000;

/**
 * Queues the clicks.recorded deliveries of one click batch, whose events are the ids from the
 * first parameter to the second, in the click writer's transaction: per subscribed endpoint ONE
 * delivery carrying the summaries of the batch's links it watches as an array (in chunks of
 * CLICK_LINKS_PER_DELIVERY), not one per link. Under a flood a batch holds thousands of links,
 * and a delivery per link per endpoint was tens of thousands of outbox rows per batch, each
 * claimed, signed, POSTed and recorded on the redirect thread (docs/performance.md, H-hooks).
 * The delivery's id is its first event's, so a receiver's dedupe by id still works; the range
 * bounds the read to this batch's rows (primary key). Chunks are by position in the batch, so
 * an endpoint limited to some links may get fewer than the cap in one.
 */
export const clickFanOutSql = (dialect: Dialect) => {
  const concat = dialect === "postgres" ? "string_agg" : "group_concat";
  const body = (first: string, at: string, links: string) =>
    `'{"id":"evt_' || ${first} || '","type":"clicks.recorded","createdAt":"' || ${at} || '","data":{"links":[' || ${links} || ']}}'`;
  const watches = "w.enabled = 1 AND w.events LIKE '%,clicks.recorded,%'";
  return {
    /**
     * The chunks' bodies, stored once (migrations/0025): one per owner and chunk shared by the
     * owner's endpoints on every link, one per endpoint and chunk for an endpoint limited to
     * some links (which gathers only those).
     */
    bodies: `
  INSERT INTO webhook_bodies (user_id, webhook_id, first_event_id, body, created_at)
  SELECT user_id, NULL, MIN(id), ${body("MIN(id)", "MIN(created_at)", `${concat}(data, ',' ORDER BY id)`)}, MIN(created_at)
  FROM events
  WHERE id BETWEEN ?1 AND ?2 AND type = 'clicks.recorded'
    AND user_id IN (SELECT w.user_id FROM webhooks w WHERE ${watches} AND w.link_ids IS NULL)
  GROUP BY user_id, (id - ?1) / ${CLICK_LINKS_PER_DELIVERY}
  UNION ALL
  SELECT w.user_id, w.id, MIN(e.id), ${body("MIN(e.id)", "MIN(e.created_at)", `${concat}(e.data, ',' ORDER BY e.id)`)}, MIN(e.created_at)
  FROM webhooks w JOIN events e ON e.user_id = w.user_id AND e.id BETWEEN ?1 AND ?2
  WHERE ${watches} AND w.link_ids IS NOT NULL AND e.type = 'clicks.recorded' AND w.link_ids LIKE '%,' || e.link_id || ',%'
  GROUP BY w.user_id, w.id, (e.id - ?1) / ${CLICK_LINKS_PER_DELIVERY}`,
    /** A delivery per endpoint and chunk, numbered in event order (the order an endpoint receives them). */
    deliveries: `
  INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, body, body_id, next_at, created_at)
  SELECT webhook_id, first_event_id, 'clicks.recorded', '', body_id, created_at, created_at FROM (
    SELECT w.id AS webhook_id, b.first_event_id, b.id AS body_id, b.created_at
    FROM webhook_bodies b JOIN webhooks w ON w.user_id = b.user_id
    WHERE b.first_event_id BETWEEN ?1 AND ?2 AND b.webhook_id IS NULL AND ${watches} AND w.link_ids IS NULL
    UNION ALL
    SELECT w.id, b.first_event_id, b.id, b.created_at
    FROM webhook_bodies b JOIN webhooks w ON w.id = b.webhook_id
    WHERE b.first_event_id BETWEEN ?1 AND ?2 AND ${watches}
  ) AS d
  ORDER BY first_event_id, webhook_id`,
  };
};

/**
 * Queues a delivery per (event, subscribed endpoint) for the events whose ids are the one
 * parameter (a JSON array), in the event's transaction: the outbox commits with the change.
 * The body is built here once, so every attempt and a Redeliver send the same bytes. Deliveries
 * are numbered in event order, which is the order an endpoint receives them. Click events are
 * not queued here but per batch (clickFanOutSql).
 */
export const fanOutSql = (dialect: Dialect) => `
  INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, body, next_at, created_at)
  SELECT w.id, e.id, e.type,
    '{"id":"evt_' || e.id || '","type":"' || e.type || '","createdAt":"' || e.created_at || '","data":' || e.data || '}',
    e.created_at, e.created_at
  FROM events e JOIN webhooks w ON w.user_id = e.user_id AND w.enabled = 1
  WHERE e.id IN (${dialect === "postgres" ? "SELECT value::bigint FROM json_array_elements_text(?::text::json)" : "SELECT value FROM json_each(?)"})
    AND e.type != 'clicks.recorded' AND w.events LIKE '%,' || e.type || ',%'
    AND (w.link_ids IS NULL OR w.link_ids LIKE '%,' || e.link_id || ',%')
  ORDER BY e.id, w.id`;

export type WebhookRow = {
  id: number;
  user_id: number;
  url: string;
  secret: string;
  events: string;
  link_ids: string | null;
  enabled: number;
  failures: number;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
};

export type DeliveryRow = {
  id: number;
  webhook_id: number;
  event_id: number;
  event_type: string;
  body: string;
  state: "pending" | "delivered" | "failed";
  attempts: number;
  next_at: string;
  claimed_until: string | null;
  last_status: number | null;
  last_latency_ms: number | null;
  last_response: string | null;
  last_error: string | null;
  last_at: string | null;
  created_at: string;
};

/** A claimed delivery with what sending it needs but its body (webhooksStore.bodyOf reads it when its turn comes). */
export type SummaryRow = Omit<DeliveryRow, "body"> & { body_bytes: number };

/** `body_id`: the click chunk's stored body it sends (null: its own body). */
export type Claimed = Omit<DeliveryRow, "body"> & { url: string; secret: string; user_id: number; body_id: number | null };

/** One attempt's outcome, as the delivery log shows it. */
export type AttemptResult = { status: number | null; latencyMs: number; response: string | null; error: string | null };

/** After this many failed attempts in a row an endpoint is disabled and its owner told. */
export const DISABLE_AFTER = 20;

/** ',a,b,' from [a, b]: one LIKE then matches an item (see migrations/0015_events.sql). */
export const commaList = (items: readonly (string | number)[]) => `,${items.join(",")},`;

/**
 * The head of endpoint `w`'s queue: its oldest pending delivery, one seek on the queue index
 * (webhook_id, state, id). Claiming walks the endpoints, never the backlog: a flood of click
 * events queues thousands of deliveries, and a query that looked at each of them on every
 * claim ran for tens of milliseconds on the request thread (the events benchmark).
 */
const HEAD = "SELECT MIN(p.id) FROM webhook_deliveries p WHERE p.webhook_id = w.id AND p.state = 'pending'";

const COLS = "id, user_id, url, secret, events, link_ids, enabled, failures, disabled_reason, created_at, updated_at";
const DCOLS =
  "id, webhook_id, event_id, event_type, body, state, attempts, next_at, claimed_until, last_status, last_latency_ms, last_response, last_error, last_at, created_at";

/** DCOLS read with a clicks.recorded delivery's body from webhook_bodies (FROM webhook_deliveries d + BODY_JOIN). */
const DSEL = DCOLS.split(", ")
  .map((c) => (c === "body" ? "COALESCE(b.body, d.body) AS body" : `d.${c}`))
  .join(", ");
const BODY_JOIN = "LEFT JOIN webhook_bodies b ON b.id = d.body_id";
/** DSEL with the body's size in bytes (octet_length: the same on both backends) in place of the body. */
const SUMMARY_SEL = DSEL.replace("COALESCE(b.body, d.body) AS body", "octet_length(COALESCE(b.body, d.body)) AS body_bytes");

export function webhooksStore(db: Database) {
  return {
    list: (userId: number) => db.all<WebhookRow>(`SELECT ${COLS} FROM webhooks WHERE user_id = ? ORDER BY id`, userId),
    get: (id: number, userId: number) => db.get<WebhookRow>(`SELECT ${COLS} FROM webhooks WHERE id = ? AND user_id = ?`, id, userId),
    count: async (userId: number) => (await db.get<{ n: number }>("SELECT COUNT(*) AS n FROM webhooks WHERE user_id = ?", userId))!.n,
    create: async (userId: number, w: { url: string; secret: string; events: readonly string[]; linkIds: readonly number[] | null }) => {
      const now = nowIso();
      return (await db.get<WebhookRow>(
        `INSERT INTO webhooks (user_id, url, secret, events, link_ids, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${COLS}`,
        userId, w.url, w.secret, commaList(w.events), w.linkIds ? commaList(w.linkIds) : null, now, now,
      ))!;
    },
    /** Replaces what is given; enabling again clears the failure count. */
    update: (id: number, userId: number, w: { url: string; events: readonly string[]; linkIds: readonly number[] | null; enabled: boolean; secret: string }) =>
      db.get<WebhookRow>(
        `UPDATE webhooks SET url = ?, events = ?, link_ids = ?, secret = ?,
           failures = CASE WHEN ? = 1 AND enabled = 0 THEN 0 ELSE failures END,
           disabled_reason = CASE WHEN ? = 1 THEN NULL ELSE disabled_reason END,
           enabled = ?, updated_at = ?
         WHERE id = ? AND user_id = ? RETURNING ${COLS}`,
        w.url, commaList(w.events), w.linkIds ? commaList(w.linkIds) : null, w.secret, w.enabled ? 1 : 0, w.enabled ? 1 : 0, w.enabled ? 1 : 0, nowIso(), id, userId,
      ),
    /** How many of `ids` are the user's own links (an endpoint may be limited to those). */
    ownLinkCount: async (userId: number, ids: readonly number[]) =>
      (await db.get<{ n: number }>(
        `SELECT COUNT(*) AS n FROM short_links WHERE user_id = ? AND id IN (${ids.map(() => "?").join(", ")})`,
        userId, ...ids,
      ))!.n,
    remove: async (id: number, userId: number) => (await db.run("DELETE FROM webhooks WHERE id = ? AND user_id = ?", id, userId)) > 0,
    /** The endpoint's delivery log, newest first (authorised through the endpoint's owner). */
    /** The log, newest first: each delivery's size instead of its body (DeliverySummary). */
    deliveries: (webhookId: number, userId: number, limit: number) =>
      db.all<SummaryRow>(
        `SELECT ${SUMMARY_SEL} FROM webhook_deliveries d ${BODY_JOIN} WHERE d.webhook_id = ? AND d.webhook_id IN (SELECT id FROM webhooks WHERE user_id = ?) ORDER BY d.id DESC LIMIT ?`,
        webhookId, userId, limit,
      ),
    /** One delivery with its body, when the endpoint is the user's. */
    delivery: (deliveryId: number, webhookId: number, userId: number) =>
      db.get<DeliveryRow>(
        `SELECT ${DSEL} FROM webhook_deliveries d ${BODY_JOIN} WHERE d.id = ? AND d.webhook_id = ? AND d.webhook_id IN (SELECT id FROM webhooks WHERE user_id = ?)`,
        deliveryId, webhookId, userId,
      ),
    /**
     * Queues the delivery's body again as a new delivery, at the end of the endpoint's queue
     * (the order promise holds); null when it is not the user's.
     */
    redeliver: async (deliveryId: number, webhookId: number, userId: number) => {
      const made = await db.get<{ id: number }>(
        `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, body, body_id, next_at, created_at)
         SELECT d.webhook_id, d.event_id, d.event_type, d.body, d.body_id, ?1, ?1 FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.id = ?2 AND d.webhook_id = ?3 AND w.user_id = ?4 RETURNING id`,
        nowIso(), deliveryId, webhookId, userId,
      );
      return made ? db.get<DeliveryRow>(`SELECT ${DSEL} FROM webhook_deliveries d ${BODY_JOIN} WHERE d.id = ?`, made.id) : undefined;
    },
    /**
     * Claims due deliveries of up to `limit` endpoints, in id order. PostgreSQL: only the oldest
     * pending one of each enabled endpoint (the order promise), not claimed by a live lease,
     * leased until `leaseUntil`; several instances claim at once: SKIP LOCKED passes over rows
     * another is claiming, and the lease (re-checked on the locked row) keeps a claimed one
     * theirs. SQLite: the first `chain` pending ones of each enabled endpoint whose oldest is
     * due, to be sent one after another, with no lease (see below).
     */
    async claim(now: string, leaseUntil: string, limit: number, chain = 1): Promise<Claimed[]> {
      // A read first: with nothing due (the usual case) nothing more is done.
      if (!(await db.get("SELECT 1 AS x FROM webhook_deliveries WHERE state = 'pending' AND next_at <= ? LIMIT 1", now))) return [];
      const claimedCols = `${DCOLS.split(", ").filter((c) => c !== "body").map((c) => `d.${c}`).join(", ")}, d.body_id, w.url, w.secret, w.user_id`;
      if (db.dialect === "sqlite") {
        // One process serves a SQLite file, and its one sender thread runs one round at a time:
        // what it takes needs no lease in the database, so taking it is a read, with no turn of
        // the write lock. Under a click flood each such turn waited ~150 ms for the click
        // writer's transaction, twice a round, and ten endpoints got 22 deliveries a second
        // (docs/performance.md, session 15). A process killed mid-send sends again after its
        // restart what it had not recorded (at least once).
        return db.all<Claimed>(
          `SELECT ${claimedCols}
           FROM webhooks w CROSS JOIN webhook_deliveries d
             ON d.id IN (SELECT p.id FROM webhook_deliveries p WHERE p.webhook_id = w.id AND p.state = 'pending' ORDER BY p.id LIMIT ?3)
           WHERE w.enabled = 1 AND (SELECT h.next_at FROM webhook_deliveries h WHERE h.id = (${HEAD})) <= ?1
           ORDER BY d.id LIMIT ?2`,
          now, limit * chain, chain,
        );
      }
      // The heads first, one per endpoint, then each looked up by its id: the endpoints are
      // walked, not the backlog (a claim that walked every due pending delivery took 370 ms with
      // 50,000 pending; scripts/bench/webhook-claim.ts).
      const rows = await db.all<{ id: number }>(
        `WITH heads AS MATERIALIZED (SELECT (${HEAD}) AS id FROM webhooks w WHERE w.enabled = 1)
         UPDATE webhook_deliveries SET claimed_until = ?1
         WHERE id IN (
           SELECT d.id FROM heads h JOIN webhook_deliveries d ON d.id = h.id
           WHERE d.state = 'pending' AND d.next_at <= ?2
             AND (d.claimed_until IS NULL OR d.claimed_until < ?2)
           ORDER BY d.id LIMIT ?3 FOR UPDATE OF d SKIP LOCKED
         ) RETURNING id`,
        leaseUntil, now, limit,
      );
      if (rows.length === 0) return [];
      // The claimed rows are read apart from the UPDATE, and without their bodies: RETURNING
      // buffers what it returns, and a clicks.recorded body is up to a thousand links' summaries
      // (~100 KB); the sender reads each when it sends it (bodyOf), one at a time.
      return db.all<Claimed>(
        `SELECT ${claimedCols}
         FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.id IN (${rows.map(() => "?").join(", ")}) AND d.claimed_until = ? ORDER BY d.id`,
        ...rows.map((r) => r.id), leaseUntil,
      );
    },
    /** The outbox holds a delivery still to send, due now or later (the sender thread starts then). */
    anyPending: async () => (await db.get("SELECT 1 AS x FROM webhook_deliveries WHERE state = 'pending' LIMIT 1")) !== null,
    /** A claimed delivery's body: its own, or its click chunk's (migrations/0025). */
    bodyOf: async (deliveryId: number) =>
      (await db.get<{ body: string }>(`SELECT COALESCE(b.body, d.body) AS body FROM webhook_deliveries d ${BODY_JOIN} WHERE d.id = ?`, deliveryId))?.body ?? null,
    /**
     * When the worker next has something to do without being woken: the earliest time a queue's
     * head (the oldest pending delivery of an enabled endpoint) becomes claimable, its retry
     * time or the end of another instance's lease, whichever is later; null when nothing is
     * pending. Only heads count: a delivery waiting behind its endpoint's head is due when the
     * head is done, and the worker goes round again after every attempt.
     */
    nextDue: async (): Promise<string | null> =>
      (await db.get<{ at: string | null }>(
        `SELECT MIN(CASE WHEN d.claimed_until IS NOT NULL AND d.claimed_until > d.next_at THEN d.claimed_until ELSE d.next_at END) AS at
         FROM webhooks w JOIN webhook_deliveries d ON d.id = (${HEAD})
         WHERE w.enabled = 1`,
      ))?.at ?? null,
    /**
     * Records the attempts of deliveries this worker holds (its lease), a round's in one
     * transaction: on SQLite every write transaction may wait for the click writer's, so a busy
     * outbox takes one such wait per round, not one per delivery. Each is
     * delivered, retried at `nextAt`, or given up (nextAt null); a failure counts against the
     * endpoint, and the one that reaches DISABLE_AFTER disables it and notifies its owner. Per
     * attempt: whether it disabled the endpoint; null when the lease was lost.
     */
    finishAll: (attempts: readonly { d: Claimed; ok: boolean; r: AttemptResult; nextAt: string | null }[]) =>
      db.tx(async (q) => {
        const out: (boolean | null)[] = [];
        for (const x of attempts) out.push(await finishIn(q, x.d, x.ok, x.r, x.nextAt));
        return out;
      }),
    /**
     * Retention: delivered and given-up deliveries older than `before` (pending ones stay), then
     * the click bodies of that age no delivery points at any more.
     */
    pruneFinished: async (before: string) =>
      (await db.run("DELETE FROM webhook_deliveries WHERE state != 'pending' AND created_at < ?", before)) +
      (await db.run(
        "DELETE FROM webhook_bodies WHERE created_at < ? AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.body_id = webhook_bodies.id)",
        before,
      )),
  };
}

/** One attempt's record, in the caller's transaction (webhooksStore.finishAll). */
async function finishIn(q: Queries, d: Claimed, ok: boolean, r: AttemptResult, nextAt: string | null): Promise<boolean | null> {
  const now = nowIso();
  const state = ok ? "delivered" : nextAt === null ? "failed" : "pending";
  const changed = await q.run(
    `UPDATE webhook_deliveries SET state = ?, attempts = attempts + 1, next_at = ?, claimed_until = NULL,
       last_status = ?, last_latency_ms = ?, last_response = ?, last_error = ?, last_at = ?
     WHERE id = ? AND ${q.dialect === "postgres" ? "claimed_until = ?" : "claimed_until IS ?"}`,
    state, nextAt ?? d.next_at, r.status, r.latencyMs, r.response, r.error, now, d.id, d.claimed_until,
  );
  if (changed === 0) return null;
  if (ok) {
    await q.run("UPDATE webhooks SET failures = 0 WHERE id = ? AND failures > 0", d.webhook_id);
    return false;
  }
  const w = await q.get<{ failures: number; enabled: number; url: string; user_id: number }>(
    `UPDATE webhooks SET failures = failures + 1,
       enabled = CASE WHEN failures + 1 >= ${DISABLE_AFTER} THEN 0 ELSE enabled END,
       disabled_reason = CASE WHEN failures + 1 >= ${DISABLE_AFTER} AND enabled = 1 THEN ? ELSE disabled_reason END,
       updated_at = ?
     WHERE id = ? RETURNING failures, enabled, url, user_id`,
    `Disabled after ${DISABLE_AFTER} failed deliveries in a row`, now, d.webhook_id,
  );
  if (!w || w.failures !== DISABLE_AFTER || w.enabled !== 0) return false;
  await addNotices(q, [{ ...webhookDisabledNotice(w.url, DISABLE_AFTER), userId: w.user_id }]);
  return true;
}

// The webhook delivery loop (issue 26), one per instance, off the redirect path: it runs on the
// sender thread (./senderThread.ts, started by ./sender.ts) with its own database connection, and
// claims due deliveries from the outbox (src/webhooks/store.ts), sends them (./send.ts) and
// records each attempt. What the outbox gives: at least once (a delivery stays pending until an attempt is
// recorded; a worker killed mid-send loses only its lease, which runs out), in order per
// endpoint (only the oldest pending delivery of an endpoint is ever claimed), exactly one
// claimant at a time across instances (the lease, taken with SKIP LOCKED on PostgreSQL).
import type { Config } from "../config";
import type { Database } from "../db/database";
import { isoIn } from "../shared/time";
import { log, rateLimitedLog } from "../http/log";
import { VERSION } from "../version";
import { send } from "./send";
import { type Claimed, webhooksStore } from "./store";
import type { EventFeed } from "../events/feed";

/** A delivery is retried for this long after it was queued, then given up (README "Webhooks"). */
export const RETRY_PERIOD_MS = 24 * 60 * 60 * 1000;
/** The longest wait between two attempts, in multiples of the first. */
const MAX_BACKOFF_FACTOR = 360;
/**
 * Deliveries claimed per round at most (each the head of its endpoint's queue), sent in
 * parallel. More than one account's worth of endpoints (10): with 8, a flood's rounds left two
 * of ten endpoints waiting each time and their queues grew (seconds of latency).
 */
const BATCH = 32;
/**
 * SQLite: deliveries of one endpoint a round at most, sent one after another. Each round's
 * record waits for a turn of the write lock (~150 ms behind the click writer under a flood): one
 * delivery an endpoint a round was fewer than a flood's batches make (store.ts claim).
 */
const CHAIN = 8;
/** A round that could not reach the database tries again after this long (or at the next wake). */
const RETRY_ON_ERROR_MS = 5_000;
/**
 * The pause between rounds while deliveries keep coming: each round's claim and record are write
 * transactions, and on SQLite the click writer lets a waiting one in before its next batch
 * (src/db/writeTurn.ts); spaced out, a flood of click events holds the clicks back a bounded share.
 */
const ROUND_GAP_MS = 20;

/** What the loop needs of an app: the sender thread builds it from its own connection. */
export type WebhookLoopContext = {
  db: Database;
  config: Pick<Config, "webhookRetryBaseMs" | "webhookTimeoutMs" | "webhookAllowPrivate">;
  shutdownHooks: (() => void | Promise<void>)[];
};

/**
 * The wait before attempt `attempts + 1`: doubling from `baseMs` (10 s by default) up to 360×
 * (1 hour), each wait jittered ±25 % so endpoints that failed together do not retry together.
 */
export function backoffMs(attempts: number, baseMs: number, random = Math.random) {
  const plain = Math.min(baseMs * 2 ** Math.max(0, attempts - 1), baseMs * MAX_BACKOFF_FACTOR);
  return Math.round(plain * (0.75 + random() * 0.5));
}

/** The longest the worker sleeps with deliveries pending (a lease or a retry further off is looked at again then). */
const MAX_SLEEP_MS = 60 * 60 * 1000;

/**
 * The loop is event-driven (issue 26): it runs a round when events are committed (`feed`, which
 * on PostgreSQL hears every instance's), when a route queues or unblocks deliveries (`poke`), at
 * start, and on one timer set for the next retry or lease end the outbox holds. With nothing
 * pending there is no timer at all: an idle server does no periodic database work for webhooks.
 */
export function startWebhookWorker(ctx: WebhookLoopContext, feed: Pick<EventFeed, "on" | "ready">) {
  const store = webhooksStore(ctx.db);
  const baseMs = ctx.config.webhookRetryBaseMs;
  // Longer than any attempt can take (the timeout covers the answer; recording it is a statement),
  // so a live worker never loses its lease mid-send; short enough that a killed instance's
  // claims are sent again within seconds (README "Webhooks").
  const leaseMs = 2 * ctx.config.webhookTimeoutMs + 5_000;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  /** The round under way, and whether something woke the loop while it ran. */
  let running: Promise<void> | null = null;
  let again = false;
  const inFlight = new Set<Promise<void>>();
  // A database that is down fails every wake: a few lines a minute say so.
  const claimFailed = rateLimitedLog(3, 60_000);

  /** Sends one claimed delivery; what to record of it. */
  async function attempt(d: Claimed, body: Uint8Array<ArrayBuffer>) {
    const { ok, result } = await send(
      { url: d.url, secret: d.secret, id: `evt_${d.event_id}`, body },
      { allowPrivate: ctx.config.webhookAllowPrivate, timeoutMs: ctx.config.webhookTimeoutMs, userAgent: `Threadlink-Webhooks/${VERSION}` },
    );
    const giveUp = !ok && Date.now() + backoffMs(d.attempts + 1, baseMs) - Date.parse(d.created_at) > RETRY_PERIOD_MS;
    const nextAt = ok || giveUp ? null : isoIn(backoffMs(d.attempts + 1, baseMs));
    return { d, ok, r: result, nextAt };
  }

  /**
   * Sends a round's deliveries and records them together (one transaction). Endpoints in
   * parallel; each endpoint's in order, one after another, and a failure ends its turn (the rest
   * wait behind it, as the order promises). A click chunk's body (~100 KB) is shared by its
   * owner's endpoints, which a round mostly holds together: it is read and encoded once for all of
   * them (docs/performance.md, session 14).
   */
  async function deliver(claimed: Claimed[]) {
    const shared = new Map<number, Promise<Uint8Array<ArrayBuffer> | null>>();
    const bodyOf = (d: Claimed) => {
      const read = async () => {
        const text = await store.bodyOf(d.id);
        return text === null ? null : Buffer.from(text);
      };
      if (d.body_id === null) return read();
      let body = shared.get(d.body_id);
      if (!body) shared.set(d.body_id, (body = read()));
      return body;
    };
    const chains = new Map<number, Claimed[]>();
    for (const d of claimed) {
      const chain = chains.get(d.webhook_id);
      if (chain) chain.push(d);
      else chains.set(d.webhook_id, [d]);
    }
    const sent = await Promise.all(
      [...chains.values()].map(async (chain) => {
        const done: Awaited<ReturnType<typeof attempt>>[] = [];
        for (const d of chain) {
          const body = await bodyOf(d);
          // Gone meanwhile (its endpoint deleted): nothing to send; the record's check skips it.
          if (body === null) continue;
          const a = await attempt(d, body);
          done.push(a);
          if (!a.ok) break;
        }
        return done;
      }),
    );
    const attempts = sent.flat();
    try {
      const outcomes = await store.finishAll(attempts);
      outcomes.forEach((disabled, i) => disabled && log.warn("webhook disabled", { webhookId: attempts[i]!.d.webhook_id }));
    } catch (e) {
      // Not recorded: sent again (PostgreSQL: once the leases run out; SQLite: next round) — at least once.
      log.error("webhook deliveries failed to record", { error: String(e) });
    }
  }

  /** Claims and sends until nothing is due; then sets the timer for the next due time, if any. */
  async function rounds() {
    for (;;) {
      // Stopped meanwhile (a wake, or the gap between rounds): the database may be closing.
      if (stopped) return;
      again = false;
      let claimed: Claimed[] = [];
      try {
        claimed = await store.claim(new Date().toISOString(), isoIn(leaseMs), BATCH, CHAIN);
        if (claimed.length > 0) {
          // Different endpoints, so in parallel: one slow receiver does not hold up the others' turn.
          const all = deliver(claimed);
          inFlight.add(all);
          await all;
          inFlight.delete(all);
        }
      } catch (e) {
        claimFailed("webhook claim failed", { error: String(e) });
        // The database did not answer: look again in a while (every wake also tries).
        if (!stopped) schedule(RETRY_ON_ERROR_MS);
        return;
      }
      if (stopped) return;
      // An attempt made (its endpoint's next delivery may be due now) or a wake meanwhile: again,
      // after a short pause (ROUND_GAP_MS).
      if (claimed.length > 0 || again) {
        if (claimed.length > 0) await Bun.sleep(ROUND_GAP_MS);
        continue;
      }
      try {
        const due = await store.nextDue();
        if (due !== null && !stopped) schedule(Math.max(0, Date.parse(due) - Date.now()) + 5);
      } catch (e) {
        claimFailed("webhook claim failed", { error: String(e) });
        if (!stopped) schedule(RETRY_ON_ERROR_MS);
      }
      if (!again || stopped) return;
    }
  }

  /** Runs the loop now, or once more after the round under way. */
  function wake(): Promise<void> {
    if (stopped) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    if (timer) clearTimeout(timer);
    timer = null;
    running = rounds().finally(() => {
      running = null;
    });
    return running;
  }

  // Never what keeps a process alive: the server does, and a stopped app's loop must not.
  const schedule = (ms: number) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      void wake();
    }, Math.min(ms, MAX_SLEEP_MS));
    timer.unref?.();
  };
  const unsubscribe = feed.on(() => void wake());
  // Deliveries left from before a restart (or a kill) are looked at once the feed listens, so
  // none committed in between goes unheard.
  void feed.ready.then(() => wake());
  ctx.shutdownHooks.push(async () => {
    stopped = true;
    unsubscribe();
    if (timer) clearTimeout(timer);
    // Attempts under way are recorded before the database closes (otherwise their lease runs out
    // and they are sent again), and a claim under way ends before it: the round is awaited.
    await Promise.all(inFlight);
    await running;
  });
  /** Runs a round now: a route queued deliveries (Redeliver) or unblocked some (enabled again), and tests. */
  return { poke: wake };
}

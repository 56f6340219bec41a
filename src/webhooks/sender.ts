// The request thread's side of the webhook sender (issue 26): the delivery loop runs on a thread
// of its own (./senderThread.ts, ./worker.ts), started once the outbox holds a delivery, so a
// server whose users have no webhook never starts it (nor do the tests' many apps). This side
// only forwards the event feed's wakes and the routes' pokes, and stops the thread with the app.
//
// Why a thread: on the request thread the loop's claims and records (write transactions), the
// ~100 KB bodies it read, signed and sent, and the answers it read cost every redirect under a
// click flood with ten endpoints subscribed (docs/performance.md, session 15).
import type { AppContext } from "../context";
import type { EventFeed } from "../events/feed";
import { log, rateLimitedLog } from "../http/log";
import type { FromSender, ToSender } from "./senderThread";
import { webhooksStore } from "./store";

// A separate entrypoint, so the compiled binary carries it (scripts/build.ts): there this module
// is bundled into main.js at the root of the binary's file system while the thread keeps its
// place under webhooks/; from source it sits next to this file.
const THREAD_URL = import.meta.url.includes("$bunfs")
  ? new URL("./webhooks/senderThread.ts", import.meta.url)
  : new URL("./senderThread.ts", import.meta.url);

/** How long a stopping app waits for the thread to record the attempts under way. */
const CLOSE_TIMEOUT_MS = 15_000;

export type WebhookSender = {
  /** Runs a round now: a route queued deliveries (Redeliver) or unblocked some (enabled again). */
  poke(): Promise<void>;
  /** The sender thread is running (tests). */
  readonly started: boolean;
  /** Stops it for good, once the attempts under way are recorded (the app's shutdown; tests that run a loop of their own). */
  stop(): Promise<void>;
};

export function startWebhookSender(ctx: AppContext, feed: EventFeed): WebhookSender {
  const store = webhooksStore(ctx.db);
  let thread: Worker | null = null;
  let onClosed: (() => void) | null = null;
  let stopped = false;
  const lookFailed = rateLimitedLog(3, 60_000);

  const post = (m: ToSender) => thread?.postMessage(m);
  function start() {
    if (thread || stopped) return;
    // smol: JavaScriptCore's small heap; the thread holds a round's bodies at most.
    // Named: per-thread CPU figures (scripts/bench/events.ts) tell it from the click worker.
    const w = new Worker(THREAD_URL, { smol: true, name: "webhooks" });
    // Never keeps the process alive by itself (tests open many apps in one process).
    (w as unknown as { unref(): void }).unref();
    w.onmessage = (e: MessageEvent<FromSender>) => {
      const m = e.data;
      if (m.type === "closed") onClosed?.();
      else if (m.type === "error") log.error("webhook sender", { error: m.message });
    };
    w.onerror = (e) => {
      // Ended for good, so no second sender ever runs beside it (on SQLite they take deliveries
      // without a lease). What it had not recorded is sent again (PostgreSQL: once its leases run
      // out); the next wake starts another.
      log.error("webhook sender stopped", { error: String(e.message) });
      w.terminate();
      if (thread === w) thread = null;
      onClosed?.();
    };
    thread = w;
    const { webhookRetryBaseMs, webhookTimeoutMs, webhookAllowPrivate } = ctx.config;
    post({
      type: "open",
      path: ctx.db.sqlite?.filename ?? "",
      url: ctx.db.dialect === "postgres" ? ctx.config.databaseUrl : null,
      writeTurn: (ctx.db.writeTurn?.buffer as SharedArrayBuffer | undefined) ?? null,
      walLimitBytes: ctx.config.walLimitBytes,
      config: { webhookRetryBaseMs, webhookTimeoutMs, webhookAllowPrivate },
    });
  }

  // Until the thread runs, a wake looks whether the outbox holds anything (one indexed read); a
  // wake during that look looks again after it, so a delivery committed meanwhile is not missed.
  let looking = false;
  let lookAgain = false;
  async function onWake() {
    if (stopped) return;
    if (thread) return post({ type: "wake" });
    if (looking) return void (lookAgain = true);
    looking = true;
    try {
      do {
        lookAgain = false;
        if (await store.anyPending()) start();
      } while (lookAgain && !thread && !stopped);
    } catch (e) {
      lookFailed("webhook outbox look failed", { error: String(e) });
    } finally {
      looking = false;
    }
  }
  const unsubscribe = feed.on(() => void onWake());
  // Deliveries left from before a restart (or a kill) are looked at once the feed listens, so
  // none committed in between goes unheard.
  void feed.ready.then(onWake);

  async function stop() {
    stopped = true;
    unsubscribe();
    const t = thread;
    if (!t) return;
    // The attempts under way are recorded before the app's database closes (otherwise they are
    // sent again: on PostgreSQL once their leases run out, on SQLite at the next start): the
    // thread says when.
    await Promise.race([new Promise<void>((resolve) => (onClosed = resolve, t.postMessage({ type: "close" } satisfies ToSender))), Bun.sleep(CLOSE_TIMEOUT_MS)]);
    t.terminate();
    thread = null;
  }
  ctx.shutdownHooks.push(stop);

  return {
    async poke() {
      if (stopped) return;
      start();
      post({ type: "poke" });
    },
    get started() {
      return thread !== null;
    },
    stop,
  };
}

// The webhook worker is woken, not polling (issue 26): an idle server runs no statement for it;
// a committed event wakes it (no poke, no poll); a failed delivery's retry comes from its timer.
import { expect, test } from "bun:test";
import { setup } from "../test/helpers";
import { createContext } from "../context";
import type { Database } from "../db/database";
import { eventFeed } from "../events/feed";
import { startReceiver } from "./receiver";
import { startWebhookWorker } from "./worker";

const t = await setup({ WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_RETRY_BASE_MS: "300", WEBHOOK_TIMEOUT_SECONDS: "1" });
// The loops below are the only senders: the app's own thread (./sender.ts) would send too (on
// SQLite the one sender of a file takes its deliveries without a lease).
await t.events.webhooks.stop();
const alice = await t.signUp("alice");

/** The app's real database, with every statement sent through it counted. */
function counted(db: Database) {
  let statements = 0;
  const wrapped: Database = {
    ...db,
    all: (text, ...params) => (statements++, db.all(text, ...params)),
    get: (text, ...params) => (statements++, db.get(text, ...params)),
    run: (text, ...params) => (statements++, db.run(text, ...params)),
    tx: (fn) => (statements++, db.tx(fn)),
  } as Database;
  return { db: wrapped, count: () => statements };
}

/**
 * Waits until `count` has not moved for 300 ms (at most 5 s): work still finishing on a busy
 * machine (a start-up round, an outcome being recorded) is not idleness broken. A poll more
 * often than that never settles; a slower one is caught by the 1.5 s watch that follows.
 */
async function settled(count: () => number) {
  const end = Date.now() + 5_000;
  let last = count();
  let since = Date.now();
  while (Date.now() - since < 300 && Date.now() < end) {
    await Bun.sleep(25);
    if (count() !== last) {
      last = count();
      since = Date.now();
    }
  }
  return last;
}

test("idle: no statement at all; an event wakes it; a failed attempt is retried by its timer alone", async () => {
  const rx = startReceiver();
  const c = counted(t.database);
  const ctx = createContext(c.db, t.config);
  const feed = eventFeed(t.config);
  startWebhookWorker(ctx, feed);
  // Its start-up round (deliveries left from before a restart) runs once.
  const afterStart = await settled(c.count);
  expect(afterStart).toBeGreaterThan(0);
  await Bun.sleep(1_500);
  expect(c.count()).toBe(afterStart);

  // The first attempt fails (500), the retry (~300 ms later, by the timer) succeeds.
  rx.script.push(500);
  const w = (await t.call("POST", "/api/webhooks", { body: { url: rx.url("/woken"), events: ["link.created"] }, cookie: alice.cookie })).json;
  expect(w.id).toBeGreaterThan(0);
  expect((await t.call("POST", "/api/links", { body: { originalUrl: "https://example.com/w", title: "w", shortCode: "woken-1" }, cookie: alice.cookie })).status).toBe(201);
  const end = Date.now() + 5_000;
  while (rx.received.filter((r) => r.path === "/woken").length < 2 && Date.now() < end) await Bun.sleep(25);
  expect(rx.received.filter((r) => r.path === "/woken").map((r) => r.json.data.shortCode)).toEqual(["woken-1", "woken-1"]);
  // The attempt is recorded once the receiver's answer is in, a moment after the receiver saw it.
  const row = () => t.database.get<{ state: string; attempts: number }>("SELECT state, attempts FROM webhook_deliveries WHERE webhook_id = ?", w.id);
  while ((await row())?.state !== "delivered" && Date.now() < end) await Bun.sleep(25);
  expect(await row()).toEqual({ state: "delivered", attempts: 2 });

  // Idle again: nothing pending, so no timer and no statement.
  const idle = await settled(c.count);
  await Bun.sleep(1_500);
  expect(c.count()).toBe(idle);
  for (const h of ctx.shutdownHooks) await h();
  await feed.stop();
  rx.stop();
});

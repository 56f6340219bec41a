// The webhook sender thread (./sender.ts, ./senderThread.ts): the delivery loop runs on a thread
// of its own with its own connection, started by the first delivery, so the app's connection
// (the request thread's) never claims, reads a body of or records a delivery.
import { expect, test } from "bun:test";
import type { Database, Queries } from "../db/database";
import { setup } from "../test/helpers";
import { startReceiver } from "./receiver";

/** The statements the app sends through its own connection, transactions' included. */
const seen: string[] = [];
const watch = <Q extends Queries>(q: Q): Q => ({
  ...q,
  all: (text: string, ...p: unknown[]) => (seen.push(text), q.all(text, ...(p as []))),
  get: (text: string, ...p: unknown[]) => (seen.push(text), q.get(text, ...(p as []))),
  run: (text: string, ...p: unknown[]) => (seen.push(text), q.run(text, ...(p as []))),
});
const t = await setup({ WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_RETRY_BASE_MS: "200" }, { wrap: (db) => ({ ...watch(db), tx: (fn) => db.tx((q) => fn(watch(q))) }) as Database });

test("the sender thread starts with the first delivery and sends it; the app's connection runs none of the loop's statements", async () => {
  const rx = startReceiver();
  const alice = await t.signUp("alice");
  // No webhook, no delivery: a link's events start nothing.
  expect((await t.call("POST", "/api/links", { body: { originalUrl: "https://example.com/a", title: "a", shortCode: "before-hook" }, cookie: alice.cookie })).status).toBe(201);
  await Bun.sleep(200);
  expect(t.events.webhooks.started).toBe(false);

  expect((await t.call("POST", "/api/webhooks", { body: { url: rx.url("/thread"), events: ["link.created"] }, cookie: alice.cookie })).status).toBe(201);
  expect((await t.call("POST", "/api/links", { body: { originalUrl: "https://example.com/b", title: "b", shortCode: "after-hook" }, cookie: alice.cookie })).status).toBe(201);
  const row = () => t.database.get<{ state: string; attempts: number }>("SELECT state, attempts FROM webhook_deliveries ORDER BY id DESC LIMIT 1");
  const end = Date.now() + 10_000;
  while ((await row())?.state !== "delivered" && Date.now() < end) await Bun.sleep(25);
  expect(await row()).toEqual({ state: "delivered", attempts: 1 });
  expect(rx.received.map((r) => r.json.data.shortCode)).toEqual(["after-hook"]);
  expect(t.events.webhooks.started).toBe(true);

  // The app's connection looked whether the outbox held anything; the claim, the body and the
  // record were the thread's.
  expect(seen.some((s) => s.includes("FROM webhook_deliveries WHERE state = 'pending' LIMIT 1"))).toBe(true);
  expect(seen.filter((s) => /UPDATE webhook_deliveries|COALESCE\(b\.body, d\.body\) AS body FROM/.test(s))).toEqual([]);
  rx.stop();
});

test("a stopping app waits for the thread to record the attempt under way (its lease would otherwise send it twice)", async () => {
  const u = await setup({ WEBHOOK_ALLOW_PRIVATE: "true" });
  const rx = startReceiver();
  rx.setDelay(400);
  const bob = await u.signUp("bob");
  expect((await u.call("POST", "/api/webhooks", { body: { url: rx.url("/stopping"), events: ["link.created"] }, cookie: bob.cookie })).status).toBe(201);
  expect((await u.call("POST", "/api/links", { body: { originalUrl: "https://example.com/s", title: "s", shortCode: "stopping" }, cookie: bob.cookie })).status).toBe(201);
  // The receiver has the request and holds its answer: the thread is mid-send.
  await rx.waitFor(1);
  for (const h of u.ctx.shutdownHooks) await h();
  expect(u.events.webhooks.started).toBe(false);
  expect(await u.database.get("SELECT state, attempts, claimed_until FROM webhook_deliveries WHERE webhook_id IS NOT NULL ORDER BY id DESC LIMIT 1")).toEqual({ state: "delivered", attempts: 1, claimed_until: null });
  rx.stop();
});

test("an endpoint's backlog goes in order, each once; a failure in the middle holds the rest until it goes", async () => {
  const rx = startReceiver();
  const carol = await t.signUp("carol");
  expect((await t.call("POST", "/api/webhooks", { body: { url: rx.url("/backlog"), events: ["link.created"] }, cookie: carol.cookie })).status).toBe(201);
  // The fifth request fails once (its retry comes after the base backoff); a slow receiver lets
  // a backlog build behind the first ones.
  rx.script.push(200, 200, 200, 200, 500);
  rx.setDelay(20);
  for (let i = 0; i < 12; i++) expect((await t.call("POST", "/api/links", { body: { originalUrl: `https://example.com/b${i}`, title: `b${i}`, shortCode: `backlog-${i}` }, cookie: carol.cookie })).status).toBe(201);
  const got = await rx.waitFor(13, 15_000);
  expect(got.map((r) => r.json.data.title)).toEqual(["b0", "b1", "b2", "b3", "b4", "b4", "b5", "b6", "b7", "b8", "b9", "b10", "b11"]);
  await Bun.sleep(300);
  expect(rx.received).toHaveLength(13);
  rx.stop();
}, 20_000);

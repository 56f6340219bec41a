// Webhooks (issue 26) against a real receiver on loopback: the API, signatures, order, retries,
// Redeliver, a restart, disable-after-20, redirects and size caps, and the SSRF rules.
import { afterAll, describe, expect, test } from "bun:test";
import { onPostgres, setup } from "../test/helpers";
import { createApp } from "../app";
import { openDatabase } from "../db/connect";
import { startReceiver } from "./receiver";
import { isPrivateAddress, resolveTarget, send } from "./send";
import { backoffMs } from "./worker";
import { MAX_WEBHOOKS, WEBHOOK_MSG } from "./schema";
import { clickFanOutSql, webhooksStore } from "./store";
import { eventsWritten } from "../events/feed";
import { endpointLabel } from "../notifications/events";

const env = { WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_RETRY_BASE_MS: "40", WEBHOOK_TIMEOUT_SECONDS: "1" };
const t = await setup(env);
const alice = await t.signUp("alice");
const bob = await t.signUp("bob");
const rx = startReceiver();
afterAll(() => rx.stop());

const hook = async (cookie: string, body: Record<string, unknown>) => t.call("POST", "/api/webhooks", { body, cookie });
let codes = 0;
async function makeLink(cookie = alice.cookie) {
  const code = `wh-${++codes}`;
  const r = await t.call("POST", "/api/links", { body: { originalUrl: `https://example.com/${code}`, title: code, shortCode: code }, cookie });
  expect(r.status, r.text).toBe(201);
  return r.json as { id: number; shortCode: string };
}
const deliveries = async (id: number, cookie = alice.cookie) => (await t.call("GET", `/api/webhooks/${id}/deliveries`, { cookie })).json;
async function until<T>(what: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting: ${JSON.stringify(v)}`);
    await Bun.sleep(25);
  }
}

describe("the API", () => {
  test("create returns the secret once; the list shows a hint only; bob sees none of it", async () => {
    const r = await hook(alice.cookie, { url: rx.url("/api-only"), events: ["link.deleted"] });
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({ url: rx.url("/api-only"), events: ["link.deleted"], linkIds: null, enabled: true, failures: 0 });
    expect(r.json.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const list = await t.call("GET", "/api/webhooks", { cookie: alice.cookie });
    expect(list.json.find((w: { id: number }) => w.id === r.json.id)).toEqual({ ...r.json, secret: undefined, secretHint: r.json.secret.slice(-4) });
    expect(list.text).not.toContain(r.json.secret);
    expect((await t.call("GET", "/api/webhooks", { cookie: bob.cookie })).json).toEqual([]);
    expect((await t.call("PUT", `/api/webhooks/${r.json.id}`, { body: { url: rx.url("/bob"), events: ["link.created"], enabled: true }, cookie: bob.cookie })).status).toBe(404);
    expect((await t.call("DELETE", `/api/webhooks/${r.json.id}`, { cookie: bob.cookie })).status).toBe(404);
    expect((await t.call("GET", `/api/webhooks/${r.json.id}/deliveries`, { cookie: bob.cookie })).status).toBe(404);
    expect(await t.database.get("SELECT url FROM webhooks WHERE id = ?", r.json.id)).toEqual({ url: rx.url("/api-only") });
    expect((await t.call("DELETE", `/api/webhooks/${r.json.id}`, { cookie: alice.cookie })).status).toBe(200);
    expect((await t.call("GET", "/api/webhooks")).status).toBe(401);
  });

  const bad: [string, Record<string, unknown>, string][] = [
    ["no URL", { url: "", events: ["link.created"] }, "url"],
    ["not a URL", { url: "hooks example", events: ["link.created"] }, "url"],
    ["ftp", { url: "ftp://example.com/x", events: ["link.created"] }, "url"],
    ["credentials in the URL", { url: "https://user:pw@example.com/x", events: ["link.created"] }, "url"],
    ["no events", { url: "https://example.com/x", events: [] }, "events"],
    ["unknown event", { url: "https://example.com/x", events: ["link.exploded"] }, "events"],
    ["not a list", { url: "https://example.com/x", events: "link.created" }, "events"],
    ["empty link list", { url: "https://example.com/x", events: ["link.created"], linkIds: [] }, "linkIds"],
    ["link id not a number", { url: "https://example.com/x", events: ["link.created"], linkIds: ["1; DROP TABLE"] }, "linkIds"],
  ];
  for (const [name, body, field] of bad) {
    test(`refused: ${name} (400 naming ${field}, nothing stored)`, async () => {
      const before = await t.count("webhooks");
      const r = await hook(alice.cookie, body);
      expect(r.status, r.text).toBe(400);
      expect(Object.keys(r.json.error.fields ?? {})[0]?.split(".")[0]).toBe(field);
      expect(await t.count("webhooks")).toBe(before);
    });
  }

  test("another user's links cannot be watched; an API key cannot reach webhooks; at most 10", async () => {
    const bobs = await makeLink(bob.cookie);
    const r = await hook(alice.cookie, { url: rx.url(), events: ["clicks.recorded"], linkIds: [bobs.id] });
    expect(r.status).toBe(400);
    expect(r.json.error.fields).toEqual({ linkIds: "Choose links of your own" });
    const key = (await t.call("POST", "/api/api-keys", { body: { name: "k", scope: "read-write", only: null }, cookie: bob.cookie })).json.key;
    expect((await t.call("GET", "/api/webhooks", { headers: { authorization: `Bearer ${key}` } })).status).toBe(403);
    for (let i = 0; i < MAX_WEBHOOKS; i++) expect((await hook(bob.cookie, { url: rx.url(`/q${i}`), events: ["import.finished"] })).status).toBe(201);
    const over = await hook(bob.cookie, { url: rx.url("/q-over"), events: ["import.finished"] });
    expect(over.status).toBe(409);
    expect(await t.database.get("SELECT COUNT(*) AS n FROM webhooks WHERE user_id = ?", bob.user.id)).toEqual({ n: MAX_WEBHOOKS });
    for (const w of (await t.call("GET", "/api/webhooks", { cookie: bob.cookie })).json) await t.call("DELETE", `/api/webhooks/${w.id}`, { cookie: bob.cookie });
  });
});

describe("delivery", () => {
  test("signed POSTs with the event's JSON, in order, only the events and links wanted", async () => {
    const watched = await makeLink();
    const w = (await hook(alice.cookie, { url: rx.url("/order"), events: ["link.updated", "link.deleted"], linkIds: [watched.id] })).json;
    const other = await makeLink();
    for (let i = 1; i <= 5; i++) {
      await t.call("PUT", `/api/links/${watched.id}`, { body: { originalUrl: `https://example.com/v${i}`, title: `v${i}`, description: "", expiresAt: null }, cookie: alice.cookie });
      await t.call("PUT", `/api/links/${other.id}`, { body: { originalUrl: `https://example.com/o${i}`, title: `o${i}`, description: "", expiresAt: null }, cookie: alice.cookie });
    }
    await t.call("DELETE", `/api/links/${watched.id}`, { cookie: alice.cookie });
    const got = await until(async () => rx.received.filter((r) => r.path === "/order"), (r) => r.length >= 6);
    await Bun.sleep(300);
    const mine = rx.received.filter((r) => r.path === "/order");
    expect(mine.map((r) => [r.json.type, r.json.data.title ?? null])).toEqual([
      ["link.updated", "v1"],
      ["link.updated", "v2"],
      ["link.updated", "v3"],
      ["link.updated", "v4"],
      ["link.updated", "v5"],
      ["link.deleted", null],
    ]);
    for (const r of got) {
      expect(rx.verify(r, w.secret)).toBe(true);
      expect(rx.verify(r, `${w.secret}x`)).toBe(false);
      expect(r.json.id).toBe(r.id);
      expect(r.id).toMatch(/^evt_\d+$/);
      expect(Math.abs(r.timestamp - Date.now() / 1000)).toBeLessThan(30);
    }
    // Ids increase with the events.
    const ids = got.map((r) => Number(r.id.slice(4)));
    expect(ids).toEqual(ids.toSorted((a, b) => a - b));
    const log = await deliveries(w.id);
    expect(log).toHaveLength(6);
    expect(log[0]).toMatchObject({ state: "delivered", attempts: 1, lastStatus: 200, lastResponse: "thanks", lastError: null, eventType: "link.deleted" });
    expect(log[0].lastLatencyMs).toBeGreaterThanOrEqual(0);
    await t.call("DELETE", `/api/webhooks/${w.id}`, { cookie: alice.cookie });
  }, 20_000);

  test("failures are retried with backoff, in order: the next event waits behind the failing one", async () => {
    const w = (await hook(alice.cookie, { url: rx.url("/retry"), events: ["link.created"] })).json;
    rx.script.push(500, 503, 500);
    const first = await makeLink();
    const second = await makeLink();
    const got = await until(async () => rx.received.filter((r) => r.path === "/retry"), (r) => r.length >= 5);
    expect(got.map((r) => r.json.data.id)).toEqual([first.id, first.id, first.id, first.id, second.id]);
    // The same id and body every attempt (a receiver drops repeats by id).
    expect(new Set(got.slice(0, 4).map((r) => r.body)).size).toBe(1);
    // Backoff: the three waits (40, 80, 160 ms ±25 %) at least as long as their lower bounds.
    expect(got[3]!.at - got[0]!.at).toBeGreaterThanOrEqual(0.75 * (40 + 80 + 160) - 5);
    const log = await until(() => deliveries(w.id), (l) => l.every((d: { state: string }) => d.state === "delivered"));
    expect(log.map((d: { attempts: number }) => d.attempts)).toEqual([1, 4]);
    expect((await t.database.get<{ failures: number }>("SELECT failures FROM webhooks WHERE id = ?", w.id))!.failures).toBe(0);
    await t.call("DELETE", `/api/webhooks/${w.id}`, { cookie: alice.cookie });
  }, 20_000);

  test("clicks.recorded: one delivery per endpoint per batch, its links' summaries as an array; a limited endpoint gets only its links", async () => {
    const [a, b, c] = [await makeLink(), await makeLink(), await makeLink()];
    const all = (await hook(alice.cookie, { url: rx.url("/clicks-all"), events: ["clicks.recorded"] })).json;
    const onlyA = (await hook(alice.cookie, { url: rx.url("/clicks-a"), events: ["clicks.recorded"], linkIds: [a.id] })).json;
    // A second endpoint on every link shares the chunks' stored bodies (sent from one read), signed with its own secret.
    const all2 = (await hook(alice.cookie, { url: rx.url("/clicks-all-2"), events: ["clicks.recorded"] })).json;
    await Promise.all([...[a, a, a, b, b, c].map((l) => t.call("GET", `/${l.shortCode}`))]);
    const mine = new Set([a.id, b.id, c.id]);
    type Summary = { linkId: number; shortCode: string; clicks: number; total: number };
    const linksAt = (path: string) => rx.received.filter((r) => r.path === path).flatMap((r) => r.json.data.links as Summary[]).filter((l) => mine.has(l.linkId));
    await until(async () => linksAt("/clicks-all"), (l) => l.reduce((n, x) => n + x.clicks, 0) === 6);
    await until(async () => linksAt("/clicks-a"), (l) => l.reduce((n, x) => n + x.clicks, 0) === 3);
    const events = await t.database.all<{ id: number; data: string; created_at: string }>(
      `SELECT id, data, created_at FROM events WHERE type = 'clicks.recorded' AND link_id IN (?, ?, ?) ORDER BY id`, a.id, b.id, c.id);
    const got = rx.received.filter((r) => r.path === "/clicks-all");
    // The summaries are the events' data, in order, each once; one delivery per batch (a batch's events share their time).
    expect(got.flatMap((r) => r.json.data.links)).toEqual(events.map((e) => JSON.parse(e.data)));
    expect(got).toHaveLength(new Set(events.map((e) => e.created_at)).size);
    expect(got.length).toBeLessThan(events.length + 1);
    for (const r of got) {
      const first = r.json.data.links[0] as Summary;
      expect(rx.verify(r, all.secret)).toBe(true);
      expect(r.json).toMatchObject({ id: r.id, type: "clicks.recorded" });
      // Its id is its first summary's event.
      expect(r.id).toBe(`evt_${events.find((e) => JSON.parse(e.data).linkId === first.linkId && e.created_at === r.json.createdAt)!.id}`);
    }
    await until(async () => linksAt("/clicks-all-2"), (l) => l.reduce((n, x) => n + x.clicks, 0) === 6);
    const got2 = rx.received.filter((r) => r.path === "/clicks-all-2");
    expect(got2.map((r) => r.body)).toEqual(got.map((r) => r.body));
    for (const r of got2) {
      expect(rx.verify(r, all2.secret)).toBe(true);
      expect(rx.verify(r, all.secret)).toBe(false);
    }
    expect(linksAt("/clicks-a").every((l) => l.linkId === a.id)).toBe(true);
    expect(linksAt("/clicks-a").at(-1)).toMatchObject({ shortCode: a.shortCode, total: 3 });
    await t.call("DELETE", `/api/webhooks/${all.id}`, { cookie: alice.cookie });
    await t.call("DELETE", `/api/webhooks/${onlyA.id}`, { cookie: alice.cookie });
    await t.call("DELETE", `/api/webhooks/${all2.id}`, { cookie: alice.cookie });
  }, 20_000);

  test("a batch of more than 1,000 links goes in chunks of at most 1,000, in order, per endpoint; each chunk's body is stored once; Redeliver and retention", async () => {
    const w = (await hook(alice.cookie, { url: rx.url("/chunks"), events: ["clicks.recorded"] })).json;
    const twin = (await hook(alice.cookie, { url: rx.url("/chunks-twin"), events: ["clicks.recorded"] })).json;
    const at = new Date().toISOString();
    const bodiesBefore = await t.count("webhook_bodies");
    // A flood's batch as the click writer appends it (ids consecutive), then its fan-out, in one transaction.
    const ids = await t.database.tx(async (q) => {
      const made: number[] = [];
      for (let i = 0; i < 2_345; i++)
        made.push((await q.get<{ id: number }>("INSERT INTO events (type, user_id, link_id, data, created_at) VALUES ('clicks.recorded', ?, ?, ?, ?) RETURNING id",
          alice.user.id, 900_000 + i, JSON.stringify({ linkId: 900_000 + i, clicks: 1, total: 1 }), at))!.id);
      const fanOut = clickFanOutSql(q.dialect);
      await q.run(fanOut.bodies, made[0], made.at(-1));
      await q.run(fanOut.deliveries, made[0], made.at(-1));
      return made;
    });
    // As the click writer's thread tells the request thread (src/analytics/recorder.ts).
    eventsWritten();
    const got = await until(async () => rx.received.filter((r) => r.path === "/chunks"), (r) => r.length === 3);
    expect(got.map((r) => r.json.data.links.length)).toEqual([1_000, 1_000, 345]);
    expect(got.map((r) => r.id)).toEqual([`evt_${ids[0]}`, `evt_${ids[1_000]}`, `evt_${ids[2_000]}`]);
    expect(got.flatMap((r) => r.json.data.links.map((l: { linkId: number }) => l.linkId))).toEqual(ids.map((_, i) => 900_000 + i));
    const twins = await until(async () => rx.received.filter((r) => r.path === "/chunks-twin"), (r) => r.length === 3);
    expect(twins.map((r) => r.body)).toEqual(got.map((r) => r.body));
    // Two endpoints, three chunks: three bodies stored, not six.
    expect((await t.count("webhook_bodies")) - bodiesBefore).toBe(3);
    // Redeliver sends the same bytes. The log gives each body's size; a delivery's own address, its body.
    const log = await until(() => deliveries(w.id), (l) => l.length === 3 && l.every((d: { state: string }) => d.state === "delivered"));
    expect(log.every((d: { body?: string }) => d.body === undefined)).toBe(true);
    expect(log.map((d: { bodyBytes: number }) => d.bodyBytes)).toEqual(got.map((r) => Buffer.byteLength(r.body)).toReversed());
    const one = await Promise.all(log.map((d: { id: number }) => t.call("GET", `/api/webhooks/${w.id}/deliveries/${d.id}`, { cookie: alice.cookie })));
    expect(one.map((r) => r.json.body)).toEqual(got.map((r) => r.body).toReversed());
    expect(one.map((r) => ({ ...r.json, body: undefined }))).toEqual(log.map((d: object) => ({ ...d, body: undefined })));
    const again = await t.call("POST", `/api/webhooks/${w.id}/deliveries/${log[2].id}/redeliver`, { cookie: alice.cookie });
    expect(again.status, again.text).toBe(201);
    expect(again.json.body).toBe(got[0]!.body);
    const resent = await until(async () => rx.received.filter((r) => r.path === "/chunks"), (r) => r.length === 4);
    expect(resent[3]!.body).toBe(got[0]!.body);
    expect(resent[3]!.id).toBe(got[0]!.id);
    await until(() => deliveries(w.id), (l) => l.every((d: { state: string }) => d.state === "delivered"));
    // Retention: finished deliveries go, then the bodies none points at.
    await t.call("DELETE", `/api/webhooks/${twin.id}`, { cookie: alice.cookie });
    await t.call("DELETE", `/api/webhooks/${w.id}`, { cookie: alice.cookie });
    await webhooksStore(t.database).pruneFinished(new Date(Date.now() + 60_000).toISOString());
    expect(await t.count("webhook_bodies")).toBe(0);
  }, 20_000);

  test("Redeliver sends the same event again; another user's delivery is 404", async () => {
    const w = (await hook(alice.cookie, { url: rx.url("/again"), events: ["link.created"] })).json;
    await makeLink();
    await until(async () => rx.received.filter((r) => r.path === "/again"), (r) => r.length === 1);
    const [d] = await until(() => deliveries(w.id), (l) => l[0]?.state === "delivered");
    expect((await t.call("POST", `/api/webhooks/${w.id}/deliveries/${d.id}/redeliver`, { cookie: bob.cookie })).status).toBe(404);
    // Reading one: bob, an id of another endpoint, an unknown or malformed id are all 404.
    const other = (await hook(alice.cookie, { url: rx.url("/other"), events: ["link.deleted"] })).json;
    for (const [path, cookie] of [
      [`/api/webhooks/${w.id}/deliveries/${d.id}`, bob.cookie],
      [`/api/webhooks/${other.id}/deliveries/${d.id}`, alice.cookie],
      [`/api/webhooks/${w.id}/deliveries/99999999`, alice.cookie],
      [`/api/webhooks/${w.id}/deliveries/1%27%20OR%201=1`, alice.cookie],
    ] as const) {
      const r = await t.call("GET", path, { cookie });
      expect([r.status, r.json.error.message]).toEqual([404, expect.stringMatching(/not found$/)]);
    }
    expect((await t.call("GET", `/api/webhooks/${w.id}/deliveries/${d.id}`, { cookie: alice.cookie })).json.body).toContain('"link.created"');
    await t.call("DELETE", `/api/webhooks/${other.id}`, { cookie: alice.cookie });
    const again = await t.call("POST", `/api/webhooks/${w.id}/deliveries/${d.id}/redeliver`, { cookie: alice.cookie });
    expect(again.status).toBe(201);
    const got = await until(async () => rx.received.filter((r) => r.path === "/again"), (r) => r.length === 2);
    expect(got[1]!.id).toBe(got[0]!.id);
    expect(got[1]!.body).toBe(got[0]!.body);
    await t.call("DELETE", `/api/webhooks/${w.id}`, { cookie: alice.cookie });
  }, 20_000);

  test("after 20 failures in a row the endpoint is disabled and its owner notified; turning it on again resumes", async () => {
    const w = (await hook(alice.cookie, { url: rx.url("/dead"), events: ["link.created"] })).json;
    // 18 failures already (the schedule's real waits would take hours): two more reach 20.
    await t.database.run("UPDATE webhooks SET failures = 18 WHERE id = ?", w.id);
    rx.script.push(500, 500);
    const link = await makeLink();
    const row = await until(() => t.database.get<{ enabled: number; failures: number; disabled_reason: string }>("SELECT enabled, failures, disabled_reason FROM webhooks WHERE id = ?", w.id), (r) => r!.enabled === 0);
    expect(row).toEqual({ enabled: 0, failures: 20, disabled_reason: "Disabled after 20 failed deliveries in a row" });
    const note = await t.database.all("SELECT kind, message, link FROM notifications WHERE user_id = ? AND kind = 'webhook_disabled'", alice.user.id);
    // The endpoint is named by its address (scheme, host and path), not its host alone.
    expect(note).toEqual([{ kind: "webhook_disabled", message: expect.stringContaining(`Your webhook to ${rx.url("/dead")} failed 20 times in a row and was turned off`), link: "/settings/webhooks" }]);
    // Disabled: nothing is sent, and new events queue no delivery.
    const sent = rx.received.filter((r) => r.path === "/dead").length;
    expect(sent).toBe(2);
    await makeLink();
    await Bun.sleep(400);
    expect(rx.received.filter((r) => r.path === "/dead").length).toBe(sent);
    expect(await deliveries(w.id)).toHaveLength(1);
    // On again: the failure count starts over and the waiting delivery goes out.
    const on = await t.call("PUT", `/api/webhooks/${w.id}`, { body: { url: rx.url("/dead"), events: ["link.created"], enabled: true }, cookie: alice.cookie });
    expect(on.json).toMatchObject({ enabled: true, failures: 0, disabledReason: null });
    const got = await until(async () => rx.received.filter((r) => r.path === "/dead"), (r) => r.length === 3);
    expect(got[2]!.json.data.id).toBe(link.id);
    await t.call("DELETE", `/api/webhooks/${w.id}`, { cookie: alice.cookie });
  }, 20_000);

  test("a redirect is not followed; an answer's read is capped; a silent receiver times out", async () => {
    const r = await send({ url: rx.url("/redirect"), secret: "s", id: "evt_1", body: "{}" }, { allowPrivate: true, timeoutMs: 1000, userAgent: "t" });
    expect(r).toMatchObject({ ok: false, result: { status: 302, error: "Redirects are not followed" } });
    expect(rx.received.some((x) => x.path === "/elsewhere")).toBe(false);
    const big = await send({ url: rx.url("/big"), secret: "s", id: "evt_1", body: "{}" }, { allowPrivate: true, timeoutMs: 2000, userAgent: "t" });
    expect(big.ok).toBe(true);
    expect(big.result.response).toHaveLength(1000);
    rx.script.push("hang");
    const slow = await send({ url: rx.url("/hang"), secret: "s", id: "evt_1", body: "{}" }, { allowPrivate: true, timeoutMs: 300, userAgent: "t" });
    expect(slow).toMatchObject({ ok: false, result: { status: null, error: "No answer within 0.3 s" } });
    expect(slow.result.latencyMs).toBeLessThan(2000);
  });

  test("the outbox survives a restart: a delivery failing before it is sent by the next process", async () => {
    // An app of its own on its own database, stopped (its shutdown hooks) and started again.
    const config = { ...t.config, dataDir: `${t.dir}/restart` };
    if (onPostgres) return; // PostgreSQL: the two-instance test (webhooks.pg.test.ts) covers the outbox's durability.
    const first = await openDatabase(config);
    const a = await createApp({ db: first.db, config });
    const res = await a.app.handle(new Request("http://localhost:3000/api/register", { method: "POST", headers: { host: "localhost:3000", "content-type": "application/json", origin: "http://localhost:3000" }, body: JSON.stringify({ username: "rita", password: "correct horse battery", email: "r@example.test" }) }));
    expect(res.status).toBe(201);
    const cookie = res.headers.get("set-cookie")!.split(";")[0]!;
    const call = (app: typeof a.app, method: string, path: string, body: unknown) =>
      app.handle(new Request(`http://localhost:3000${path}`, { method, headers: { host: "localhost:3000", "content-type": "application/json", cookie, origin: "http://localhost:3000" }, body: JSON.stringify(body) }));
    expect((await call(a.app, "POST", "/api/webhooks", { url: rx.url("/restart"), events: ["link.created"] })).status).toBe(201);
    rx.script.push(500);
    expect((await call(a.app, "POST", "/api/links", { originalUrl: "https://example.com/r", title: "r", shortCode: "restart-1" })).status).toBe(201);
    await until(async () => rx.received.filter((r) => r.path === "/restart"), (r) => r.length === 1);
    for (const h of a.ctx.shutdownHooks) await h();
    await first.db.close();
    const second = await openDatabase(config);
    const b = await createApp({ db: second.db, config });
    const got = await until(async () => rx.received.filter((r) => r.path === "/restart"), (r) => r.length === 2);
    expect(got[1]!.json.data.shortCode).toBe("restart-1");
    for (const h of b.ctx.shutdownHooks) await h();
    await second.db.close();
  }, 20_000);
});

describe("backoff", () => {
  test("doubles from the base up to 360 times it, jittered ±25 %", () => {
    expect([1, 2, 3, 4].map((n) => backoffMs(n, 10_000, () => 0.5))).toEqual([10_000, 20_000, 40_000, 80_000]);
    expect(backoffMs(30, 10_000, () => 0.5)).toBe(3_600_000);
    expect(backoffMs(1, 10_000, () => 0)).toBe(7_500);
    expect(backoffMs(1, 10_000, () => 0.999999)).toBe(12_500);
  });
});

describe("SSRF rules", () => {
  const refused = [
    "127.0.0.1", "127.255.255.254", "0.0.0.0", "10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.255", "192.168.0.1", "192.168.255.255",
    "169.254.169.254", "100.64.0.1", "224.0.0.1", "255.255.255.255",
    "::1", "::", "[::1]", "fc00::1", "fdff:ffff::1", "fe80::1", "febf::1", "fe80::1%eth0", "ff02::1",
    "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:10.0.0.1", "::ffff:a9fe:a9fe", "::127.0.0.1", "64:ff9b::7f00:1", "2002:7f00:1::", "2002:c0a8:1::1",
    "not an address", "",
  ];
  const allowed = ["93.184.216.34", "8.8.8.8", "172.32.0.1", "172.15.255.255", "192.169.0.1", "169.255.0.1", "2606:4700::1111", "::ffff:8.8.8.8", "2002:0808:0808::1"];
  test("loopback, private, link-local, unique-local and wrapped forms are refused", () => {
    for (const a of refused) expect([a, isPrivateAddress(a)]).toEqual([a, true]);
    for (const a of allowed) expect([a, isPrivateAddress(a)]).toEqual([a, false]);
  });

  const forms = [
    "http://127.0.0.1/", "http://2130706433/", "http://0x7f000001/", "http://0177.0.0.1/", "http://0x7f.0.0.1/", "http://017700000001/", "http://127.1/",
    "http://0/", "http://[::1]/", "http://[::ffff:127.0.0.1]/", "http://[0:0:0:0:0:ffff:7f00:1]/", "http://[fe80::1]/", "http://[fc00::1]/",
    "http://10.1/", "http://0xa9fea9fe/", "http://3232235521/", "http://0300.0250.0.1/", "http://localhost/", "http://localhost./", "http://LOCALHOST:8080/",
  ];
  test("every written form of a local address is refused before any request, unless WEBHOOK_ALLOW_PRIVATE", async () => {
    for (const u of forms) {
      const r = await resolveTarget(new URL(u), false).then(() => "allowed", (e: Error) => e.message);
      // A name that does not resolve here ("localhost." on some systems) is refused as well.
      expect([u, r.startsWith("Refused:") || (u.includes("localhost") && r !== "allowed")]).toEqual([u, true]);
    }
    expect(await resolveTarget(new URL("http://2130706433:8080/x"), true)).toEqual(["127.0.0.1"]);
  });

  test("a local address as written is refused when the webhook is added or changed (400 on url), unless WEBHOOK_ALLOW_PRIVATE", async () => {
    // It was stored (201) and then failed at every delivery until the endpoint was turned off.
    const strict = await setup();
    const owner = await strict.signUp("strict");
    for (const u of forms) {
      const r = await strict.call("POST", "/api/webhooks", { body: { url: u, events: ["link.created"], linkIds: null }, cookie: owner.cookie });
      expect([u, r.status, r.json?.error?.fields?.url]).toEqual([u, 400, WEBHOOK_MSG.local]);
    }
    expect(await strict.count("webhooks")).toBe(0);
    // A public address is added; changing it to a local one is refused and leaves it as it was.
    const made = await strict.call("POST", "/api/webhooks", { body: { url: "https://hooks.example.com/in", events: ["link.created"], linkIds: null }, cookie: owner.cookie });
    expect(made.status).toBe(201);
    const put = await strict.call("PUT", `/api/webhooks/${made.json.id}`, { body: { url: "http://192.168.1.20/in", events: ["link.created"], linkIds: null, enabled: true }, cookie: owner.cookie });
    expect([put.status, put.json.error.fields.url]).toEqual([400, WEBHOOK_MSG.local]);
    expect((await strict.call("GET", "/api/webhooks", { cookie: owner.cookie })).json[0].url).toBe("https://hooks.example.com/in");
    // This suite's server allows them (its receiver is on loopback).
    expect((await t.call("POST", "/api/webhooks", { body: { url: "http://127.0.0.1:9/in", events: ["link.created"], linkIds: null }, cookie: (await t.signUp("lenient")).cookie })).status).toBe(201);
  });

  test("send refuses a local receiver when private addresses are not allowed: nothing reaches it", async () => {
    const before = rx.received.length;
    const r = await send({ url: rx.url("/ssrf"), secret: "s", id: "evt_1", body: "{}" }, { allowPrivate: false, timeoutMs: 1000, userAgent: "t" });
    expect(r).toMatchObject({ ok: false, result: { status: null, error: expect.stringContaining("Refused: 127.0.0.1 resolves to a private or local address") } });
    expect(rx.received.length).toBe(before);
  });
});

describe("the disabled notice's name for an endpoint", () => {
  // Notifications can be read with an API key and webhooks cannot: the receiver's own tokens stay out.
  test.each([
    ["https://hooks.example.com/threadlink/incoming", "https://hooks.example.com/threadlink/incoming"],
    ["https://hooks.example.com/", "https://hooks.example.com"],
    ["https://hooks.slack.com/services/T0123ABCD/B0123ABCD/abcdefghijklmnopqrstuvwx", "https://hooks.slack.com/services/T0123ABCD/B0123ABCD/…"],
    [`https://discord.com/api/webhooks/123456789012345678/${"aBcD-eFgH_".repeat(7)}`, "https://discord.com/api/webhooks/…/…"],
    ["https://h.example/in?token=abc", "https://h.example/in?…"],
    ["https://h.example/in#frag", "https://h.example/in?…"],
    // Escaped by the URL's own serialisation: nothing in it can read as markup or turn the text around.
    ['https://h.example/<b>"x', "https://h.example/%3Cb%3E%22x"],
    ["https://h.example/a\u202eb", "https://h.example/a%E2%80%AEb"],
    ["https://Bücher.example:8443/in", "https://xn--bcher-kva.example:8443/in"],
    ["https://user:pw@h.example/in", "https://h.example/in"],
    ["not a url", "an endpoint"],
  ])("%s → %s", (url, label) => {
    expect(endpointLabel(url)).toBe(label);
  });

  test("a long address is cut at 200 characters", () => {
    const label = endpointLabel(`https://h.example/${"ab/".repeat(300)}`);
    expect(label).toHaveLength(200);
    expect(label.endsWith("…")).toBe(true);
  });
});

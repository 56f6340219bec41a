// Live updates (issue 26): GET /api/events/stream through the real app. Each user hears only
// their own data and titles added to topics shared with them; a bounded number of streams per
// user; keep-alives; resume with Last-Event-ID from the log, bounded. On PostgreSQL also across
// two apps on one database (LISTEN/NOTIFY).
import { afterAll, describe, expect, test } from "bun:test";
import { ORIGIN, PASSWORD, onPostgres, setup } from "../test/helpers";
import { createApp } from "../app";
import { openDatabase } from "../db/connect";
import { CATCH_UP, mayCrossMilestone } from "./live";
import type { StreamEvent } from "./store";

const t = await setup({ LIVE_STREAMS_PER_USER: "3", LIVE_HEARTBEAT_SECONDS: "1" });
const alice = await t.signUp("alice");
const bob = await t.signUp("bob");
const carol = await t.signUp("carol");

type Frame = { id?: string; event: string; data: any; comment?: string };

/** An open stream: its frames as they arrive, and a way to wait for one. */
async function openStream(cookie: string, opts: { lastEventId?: number; query?: string; app?: { handle(r: Request): Promise<Response> } } = {}) {
  const abort = new AbortController();
  const headers: Record<string, string> = { host: "localhost:3000", cookie };
  if (opts.lastEventId !== undefined) headers["last-event-id"] = String(opts.lastEventId);
  const res = await (opts.app ?? t.app).handle(new Request(`${ORIGIN}/api/events/stream${opts.query ?? ""}`, { headers, signal: abort.signal }));
  const frames: Frame[] = [];
  const comments: string[] = [];
  let waiters: (() => void)[] = [];
  let buf = "";
  let ended = false;
  const reading = (async () => {
    if (res.status !== 200 || !res.body) return;
    const reader = res.body.getReader();
    const dec = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buf += dec.decode(value, { stream: true });
        let cut: number;
        while ((cut = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          const f: Frame = { event: "message", data: null };
          let isEvent = false;
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) comments.push(line.slice(1).trim());
            else if (line.startsWith("id: ")) f.id = line.slice(4);
            else if (line.startsWith("event: ")) (f.event = line.slice(7)), (isEvent = true);
            else if (line.startsWith("data: ")) (f.data = JSON.parse(line.slice(6))), (isEvent = true);
          }
          if (isEvent) frames.push(f);
          for (const w of waiters) w();
        }
      }
    } catch {
      /* aborted */
    } finally {
      ended = true;
    }
  })();
  const waitFor = async (ok: () => boolean, ms = 5_000) => {
    const end = Date.now() + ms;
    while (!ok()) {
      if (Date.now() > end) throw new Error(`timed out; frames: ${JSON.stringify(frames).slice(0, 600)}`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 50);
      });
      waiters = [];
    }
  };
  const of = (type: string) => frames.filter((f) => f.event === type);
  return {
    res,
    frames,
    comments,
    of,
    waitFor,
    /** The server ended the stream (or it was closed here). */
    ended: () => ended,
    /** Waits for a frame of `type` matching `match`. */
    async next(type: string, match: (d: any) => boolean = () => true) {
      await waitFor(() => of(type).some((f) => match(f.data)));
      return of(type).find((f) => match(f.data))!;
    },
    async close() {
      abort.abort();
      await reading;
    },
  };
}

const streams: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of streams) await s.close();
});
async function stream(cookie: string, opts: Parameters<typeof openStream>[1] = {}) {
  const s = await openStream(cookie, opts);
  streams.push(s);
  if (s.res.status === 200) await s.next("ready");
  return s;
}

async function makeLink(shortCode: string, cookie = alice.cookie) {
  const r = await t.call("POST", "/api/links", { body: { originalUrl: `https://example.com/${shortCode}`, title: `T ${shortCode}`, shortCode }, cookie });
  expect(r.status, r.text).toBe(201);
  return r.json as { id: number; shortCode: string };
}

describe("whose events", () => {
  test("a stream is text/event-stream, unbuffered, not cached; it starts with retry and ready", async () => {
    const s = await stream(alice.cookie);
    expect(s.res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(s.res.headers.get("cache-control")).toBe("no-store");
    expect(s.res.headers.get("x-accel-buffering")).toBe("no");
    expect(s.res.headers.get("content-encoding")).toBeNull();
    expect(s.of("ready")[0]!.data).toEqual({ lastEventId: Number(s.of("ready")[0]!.id) });
    await s.close();
  });

  test("link changes go to their owner's streams only, with the webhook body as data", async () => {
    const a = await stream(alice.cookie);
    const b = await stream(bob.cookie);
    const link = await makeLink("live-one");
    const f = await a.next("link.created", (d) => d.data.id === link.id);
    expect(f.data).toEqual({ id: `evt_${f.id}`, type: "link.created", createdAt: expect.any(String), data: { id: link.id, shortCode: "live-one", tracker: "main", originalUrl: "https://example.com/live-one", title: "T live-one" } });
    const bobs = await makeLink("live-bob", bob.cookie);
    await b.next("link.created", (d) => d.data.id === bobs.id);
    // Bob's stream saw his own link and never Alice's; Alice's never Bob's.
    expect(b.frames.filter((x) => x.event.startsWith("link.")).map((x) => x.data.data.id)).toEqual([bobs.id]);
    expect(a.frames.some((x) => x.data?.data?.id === bobs.id)).toBe(false);
    await a.close();
    await b.close();
  });

  test("clicks: one clicks.recorded frame per batch, a webhook body with the batch's links; a notifications nudge on the first click", async () => {
    const a = await stream(alice.cookie);
    const b = await stream(bob.cookie);
    const link = await makeLink("live-click");
    const links = (f: Frame) => f.data.data.links as { linkId: number; shortCode: string; tracker: string; title: string; clicks: number; total: number }[];
    const mine = () => a.of("clicks.recorded").flatMap(links).filter((l) => l.linkId === link.id);
    await Promise.all([...Array(3)].map(() => t.call("GET", "/live-click")));
    await a.waitFor(() => mine().reduce((n, l) => n + l.clicks, 0) === 3);
    expect(mine().at(-1)).toEqual({ linkId: link.id, shortCode: "live-click", tracker: "main", title: "T live-click", clicks: expect.any(Number), total: 3 });
    await a.next("notifications");
    expect(b.of("clicks.recorded")).toEqual([]);
    expect(b.of("notifications")).toEqual([]);
    // A batch that crosses no milestone (3 → 4): its frame, and no nudge after it (it comes in
    // the same write as the frame it follows).
    const nudges = a.of("notifications").length;
    await t.call("GET", "/live-click");
    await a.waitFor(() => mine().at(-1)?.total === 4);
    expect(a.of("notifications").length).toBe(nudges);

    // Clicks on five links written in one batch: one frame, its id the last event's, the body a
    // webhook delivery's (id and time of the first event, the links in order).
    const five = [];
    for (let i = 0; i < 5; i++) five.push(await makeLink(`live-batch-${i}`));
    await t.settle();
    const framesBefore = a.of("clicks.recorded").length;
    const lastBefore = Number((await t.database.get<{ id: number }>("SELECT MAX(id) AS id FROM events"))!.id);
    await Promise.all(five.map((l) => t.call("GET", `/${l.shortCode}`)));
    await t.settle();
    const rows = await t.database.all<{ id: number; link_id: number }>("SELECT id, link_id FROM events WHERE id > ? AND type = 'clicks.recorded' ORDER BY id", lastBefore);
    expect(rows.map((r) => r.link_id).sort()).toEqual(five.map((l) => l.id).sort());
    await a.waitFor(() => a.of("clicks.recorded").slice(framesBefore).flatMap(links).length === 5);
    const got = a.of("clicks.recorded").slice(framesBefore);
    // The writer may split them over batches; each batch is one frame.
    const batches = new Set((await t.database.all<{ created_at: string }>("SELECT DISTINCT created_at FROM events WHERE id > ? AND type = 'clicks.recorded'", lastBefore)).map((r) => r.created_at));
    expect(got.length).toBe(batches.size);
    expect(got.flatMap(links).map((l) => l.linkId)).toEqual(rows.map((r) => r.link_id));
    expect(Number(got.at(-1)!.id)).toBe(rows.at(-1)!.id);
    expect(got[0]!.data).toMatchObject({ id: `evt_${rows[0]!.id}`, type: "clicks.recorded", createdAt: expect.any(String) });

    // Resuming from before them replays them as frames of the same shape.
    const r = await stream(alice.cookie, { lastEventId: lastBefore });
    expect(r.of("clicks.recorded").flatMap(links).map((l) => l.linkId)).toEqual(rows.map((x) => x.link_id));
    expect(Number(r.of("clicks.recorded").at(-1)!.id)).toBe(rows.at(-1)!.id);
    for (const s of [a, b, r]) await s.close();
  });

  test("titles: the owner and the members the owner shares with hear a shared topic's titles; others and private topics not", async () => {
    const shared = (await t.call("POST", "/api/topics", { body: { name: "Live Board", accessType: "personal" }, cookie: alice.cookie })).json;
    const secret = (await t.call("POST", "/api/topics", { body: { name: "Live Secret", accessType: "private" }, cookie: alice.cookie })).json;
    await t.database.run("INSERT INTO shares (owner_id, member_id, created_at) VALUES (?, ?, ?)", alice.user.id, bob.user.id, new Date().toISOString());
    const a = await stream(alice.cookie);
    const b = await stream(bob.cookie);
    const c = await stream(carol.cookie);
    expect((await t.call("POST", `/api/alice/${secret.linkSlug}/titles`, { body: { name: "Private one", version: 1 }, cookie: alice.cookie })).status).toBe(201);
    expect((await t.call("POST", `/api/alice/${shared.linkSlug}/titles`, { body: { name: "From Bob", version: 1 }, cookie: bob.cookie })).status).toBe(201);
    const fa = await a.next("title.added", (d) => d.data.titleName === "From Bob");
    const fb = await b.next("title.added", (d) => d.data.titleName === "From Bob");
    expect(fb.id).toBe(fa.id);
    expect(fa.data.data).toMatchObject({ topicId: shared.id, topicName: "Live Board", actor: "bob", version: 1 });
    await a.next("title.added", (d) => d.data.titleName === "Private one");
    // Alice's notice of Bob's title nudges her bell, not Bob's.
    await a.next("notifications");
    await Bun.sleep(300);
    expect(b.of("title.added").map((f) => f.data.data.titleName)).toEqual(["From Bob"]);
    expect(b.of("notifications")).toEqual([]);
    expect(c.of("title.added")).toEqual([]);
    for (const s of [a, b, c]) await s.close();
  });
});

describe("a stream that names its links (?links=, the web app's shown cards)", () => {
  test("gets those links' click summaries only, every other event, and the bell's nudge for any link's milestone", async () => {
    const shown = await makeLink("filter-shown");
    const other = await makeLink("filter-other");
    const all = await stream(alice.cookie);
    const some = await stream(alice.cookie, { query: `?links=${shown.id}` });
    const none = await stream(alice.cookie, { query: "?links=" });
    const linksOf = (s: Awaited<ReturnType<typeof stream>>) => s.of("clicks.recorded").flatMap((f) => f.data.data.links.map((l: { linkId: number }) => l.linkId));
    // One batch with both links' first clicks (each crosses the first milestone).
    await Promise.all([t.call("GET", "/filter-shown"), t.call("GET", "/filter-other")]);
    await t.settle();
    await all.waitFor(() => linksOf(all).includes(shown.id) && linksOf(all).includes(other.id));
    await some.waitFor(() => linksOf(some).includes(shown.id));
    await some.next("notifications");
    await none.next("notifications");
    // A link change is not filtered.
    const made = await makeLink("filter-made");
    await some.next("link.created", (d) => d.data.id === made.id);
    await none.next("link.created", (d) => d.data.id === made.id);
    expect(linksOf(some).filter((id) => id !== shown.id)).toEqual([]);
    expect(none.of("clicks.recorded")).toEqual([]);
    // Only the other link clicked (no milestone: its second click): nothing for the filtered streams.
    const before = some.frames.length;
    await t.call("GET", "/filter-other");
    await t.settle();
    await all.waitFor(() => linksOf(all).filter((id) => id === other.id).length === 2);
    expect(some.frames.length).toBe(before);
    for (const s of [all, some, none]) await s.close();
  });

  test("a reconnect naming other links gets what it missed of those (Last-Event-ID as ?lastEventId=)", async () => {
    const first = await makeLink("refilter-a");
    const second = await makeLink("refilter-b");
    const a = await stream(alice.cookie, { query: `?links=${first.id}` });
    const ready = a.of("ready").at(-1)!;
    await a.close();
    await t.call("GET", "/refilter-b");
    await t.settle();
    const b = await stream(alice.cookie, { query: `?links=${first.id},${second.id}&lastEventId=${ready.id}` });
    const got = b.of("clicks.recorded").flatMap((f) => f.data.data.links);
    expect(got).toEqual([expect.objectContaining({ linkId: second.id, total: 1 })]);
    await b.close();
  });

  test.each([
    ["?links=abc", "links must be link ids separated by commas"],
    ["?links=1,,2", "links must be link ids separated by commas"],
    ["?links=1;DROP TABLE links", "links must be link ids separated by commas"],
    ["?links=-1", "links must be link ids separated by commas"],
    [`?links=${Array.from({ length: 1001 }, (_, i) => i + 1).join(",")}`, "links names at most 1000 links"],
  ])("%s is a 400 naming links, and no stream is opened", async (query, message) => {
    const before = t.events.live.count(alice.user.id);
    const r = await t.call("GET", `/api/events/stream${query}`, { cookie: alice.cookie });
    expect(r.status).toBe(400);
    expect(r.json.error.fields?.links ?? r.json.error.message).toContain(message);
    expect(t.events.live.count(alice.user.id)).toBe(before);
  });
});

describe("access and limits", () => {
  test("signed out: 401; an API key: 403 (a stream carries the whole account)", async () => {
    expect((await t.call("GET", "/api/events/stream")).status).toBe(401);
    const key = (await t.call("POST", "/api/api-keys", { body: { name: "k", scope: "read-write", only: null }, cookie: carol.cookie })).json.key;
    expect(key).toBeString();
    const r = await t.call("GET", "/api/events/stream", { headers: { authorization: `Bearer ${key}` } });
    expect(r.status).toBe(403);
  });

  test("at most LIVE_STREAMS_PER_USER streams per user: the next is a clear 429; closing one makes room; others unaffected", async () => {
    const open = [await stream(carol.cookie), await stream(carol.cookie), await stream(carol.cookie)];
    const over = await openStream(carol.cookie);
    expect(over.res.status).toBe(429);
    const err = await over.res.json();
    expect(err.error.code).toBe("RATE_LIMITED");
    expect(err.error.message).toBe("Too many live update streams are open for this account (at most 3). Close another tab or window of this app and try again.");
    expect(over.res.headers.get("retry-after")).toBe("2");
    // Another user still gets one.
    const other = await stream(bob.cookie);
    expect(other.res.status).toBe(200);
    await open[0]!.close();
    await Bun.sleep(20);
    const again = await stream(carol.cookie);
    expect(again.res.status).toBe(200);
    for (const s of [...open.slice(1), other, again]) await s.close();
  });

  test("a stream ends with its session: signed out, or its sessions ended elsewhere; no event reaches it after", async () => {
    const dave = await t.signUp("dave");
    const link = await makeLink("live-signed-out", dave.cookie);
    const s = await stream(dave.cookie);
    expect((await t.call("POST", "/api/logout", { cookie: dave.cookie })).status).toBe(200);
    // Within a keep-alive or two (1 s here), not left open for as long as the browser keeps it.
    await s.waitFor(() => s.ended(), 3_000);
    expect((await t.call("GET", `/${link.shortCode}`)).status).toBe(302);
    await t.settle();
    await Bun.sleep(300);
    expect(s.of("clicks.recorded")).toEqual([]);

    // Sessions ended behind this app's back (threadlink user reset-password, another instance).
    const erin = await t.signUp("erin");
    const e1 = await stream(erin.cookie);
    const e2 = await stream(erin.cookie);
    const keep = await stream(carol.cookie);
    await t.database.run("DELETE FROM sessions WHERE user_id = ?", erin.user.id);
    await e1.waitFor(() => e1.ended() && e2.ended(), 3_000);
    await Bun.sleep(1_200);
    expect(keep.ended()).toBe(false);
    await keep.close();
  });

  test("signing out on this instance ends that session's streams at once, not at the next keep-alive; another session's stays", async () => {
    const slow = await setup({ LIVE_HEARTBEAT_SECONDS: "60" });
    const frank = await slow.signUp("frank");
    const other = await slow.call("POST", "/api/login", { body: { username: "frank", password: PASSWORD } });
    const otherCookie = other.headers.get("set-cookie")!.split(";")[0]!;
    const mine = await stream(frank.cookie, { app: slow.app });
    const theirs = await stream(otherCookie, { app: slow.app });
    expect((await slow.call("POST", "/api/logout", { cookie: frank.cookie })).status).toBe(200);
    await mine.waitFor(() => mine.ended(), 500);
    await Bun.sleep(200);
    expect(theirs.ended()).toBe(false);
    await theirs.close();
  });

  test("keep-alive comments while nothing happens", async () => {
    const s = await stream(carol.cookie);
    await s.waitFor(() => s.comments.includes("keep-alive"), 3_000);
    await s.close();
  });
});

describe("resume with Last-Event-ID", () => {
  test("nothing of one's own missed (only others' events since): ready, and the stream stays open for what comes next", async () => {
    const s = await stream(alice.cookie);
    const from = Number(s.of("ready")[0]!.id);
    await s.close();
    await makeLink("live-bobs-while-away", bob.cookie);
    const r = await stream(alice.cookie, { lastEventId: from });
    expect(r.frames.map((f) => f.event)).toEqual(["ready"]);
    const later = await makeLink("live-after-empty-catch-up");
    await r.next("link.created", (d) => d.data.id === later.id);
    expect(r.ended()).toBe(false);
    await r.close();
  });

  test("what was missed comes first, in order, only one's own; then ready at the newest", async () => {
    const s = await stream(alice.cookie);
    const from = Number(s.of("ready")[0]!.id);
    await s.close();
    const l1 = await makeLink("live-away-1");
    await makeLink("live-away-bob", bob.cookie);
    const l2 = await makeLink("live-away-2");
    const r = await stream(alice.cookie, { lastEventId: from });
    const before = r.frames.slice(0, r.frames.findIndex((f) => f.event === "ready"));
    expect(before.map((f) => [f.event, f.data.data.id])).toEqual([
      ["link.created", l1.id],
      ["link.created", l2.id],
    ]);
    expect(Number(r.of("ready")[0]!.id)).toBeGreaterThanOrEqual(Number(before[1]!.id));
    // Nothing repeated once live.
    const l3 = await makeLink("live-away-3");
    await r.next("link.created", (d) => d.data.id === l3.id);
    expect(r.of("link.created").map((f) => f.data.data.id)).toEqual([l1.id, l2.id, l3.id]);
    await r.close();
  });

  test(`more than ${CATCH_UP} missed, a position from before the log's oldest event, or garbage: reset / a fresh start`, async () => {
    const s = await stream(bob.cookie);
    const from = Number(s.of("ready")[0]!.id);
    await s.close();
    const bulk = [...Array(CATCH_UP + 1)].map((_, i) => ({ originalUrl: `https://example.com/b${i}`, title: `b${i}` }));
    expect((await t.call("POST", "/api/links/bulk", { body: { links: bulk }, cookie: bob.cookie })).json.created).toBe(CATCH_UP + 1);
    const r = await stream(bob.cookie, { lastEventId: from });
    expect(r.frames.map((f) => f.event)).toEqual(["reset", "ready"]);
    await r.close();
    // The log's oldest events aged out: a position before them cannot be replayed.
    const first = (await t.database.get<{ id: number }>("SELECT MIN(id) AS id FROM events"))!.id;
    await t.database.run("DELETE FROM events WHERE id <= ?", first + 1);
    const old = await stream(bob.cookie, { lastEventId: first - 1 });
    expect(old.frames.map((f) => f.event)).toEqual(["reset", "ready"]);
    await old.close();
    const junk = await openStream(bob.cookie);
    streams.push(junk);
    const bad = await t.app.handle(new Request(`${ORIGIN}/api/events/stream`, { headers: { host: "localhost:3000", cookie: bob.cookie, "last-event-id": "'; DROP TABLE events; --" }, signal: AbortSignal.timeout(2000) }));
    expect(bad.status).toBe(200);
    const reader = bad.body!.getReader();
    const { value } = await reader.read();
    let text = new TextDecoder().decode(value);
    while (!text.includes("event: ready")) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).not.toContain("event: reset");
    await reader.cancel();
    await junk.close();
  });
});

describe.if(onPostgres)("several instances (PostgreSQL)", () => {
  test("an event committed through one app reaches a stream on another within a second", async () => {
    const { db } = await openDatabase(t.config);
    const other = await createApp({ db, config: t.config });
    await other.events.feed.ready;
    const s = await stream(alice.cookie, { app: other.app });
    const t0 = Date.now();
    const link = await makeLink("live-twin");
    await s.next("link.created", (d) => d.data.id === link.id);
    expect(Date.now() - t0).toBeLessThan(1_000);
    await s.close();
    for (const h of other.ctx.shutdownHooks) await h();
    await db.close();
  });
});

describe("a click summary's milestone, read off its stored text (only those are parsed for a notice)", () => {
  const summary = (raw: string) => mayCrossMilestone({ type: "clicks.recorded", raw } as StreamEvent);
  test.each([
    ["SQLite's text, the first click", '{"linkId":1,"shortCode":"a","tracker":"main","title":"A","clicks":1,"total":1}', true],
    ["SQLite's text, 3 → 4", '{"linkId":1,"shortCode":"a","tracker":"main","title":"A","clicks":1,"total":4}', false],
    ["PostgreSQL's text, 99 → 101", '{"linkId" : 1, "shortCode" : "a", "tracker" : "main", "title" : "A", "clicks" : 2, "total" : 101}', true],
    ["PostgreSQL's text, 101 → 102", '{"linkId" : 1, "shortCode" : "a", "tracker" : "main", "title" : "A", "clicks" : 1, "total" : 102}', false],
    ["a title that ends like a crossing", '{"linkId":1,"shortCode":"a","tracker":"main","title":"x\\"clicks\\":1,\\"total\\":1}","clicks":1,"total":5}', false],
    ["9,999 → 10,000 in a batch of 3", '{"linkId":1,"shortCode":"a","tracker":"main","title":"A","clicks":3,"total":10002}', true],
    ["a text of another shape: parsed", '{"linkId":1}', true],
  ])("%s", (_, raw, crosses) => expect(summary(raw)).toBe(crosses));
});

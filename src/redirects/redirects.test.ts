import { describe, expect, test } from "bun:test";
import { ORIGIN, setup } from "../test/helpers";
import { createApp } from "../app";

const t = await setup({ SHORT_DOMAIN: "tl.example", BRAND_DOMAIN: "go.brand.example" });
const alice = await t.signUp("alice");

const UA = {
  chromeDesktop: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  safariIos: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
  android: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
  googlebot: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  firefoxMac: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.4; rv:125.0) Gecko/20100101 Firefox/125.0",
};

async function makeLink(shortCode: string, extra: Record<string, unknown> = {}, tracker = "links") {
  const r = await t.call("POST", `/api/${tracker}`, { body: { originalUrl: `https://example.com/${shortCode}`, title: shortCode, shortCode, ...extra }, cookie: alice.cookie });
  if (r.status !== 201) throw new Error(r.text);
  return r.json as { id: number; shortCode: string };
}

const clicks = (linkId: number) => t.database.all<Record<string, any>>("SELECT * FROM link_analytics WHERE link_id = ? ORDER BY id", linkId);
const clickCount = async (linkId: number) => (await t.database.get<{ clicks: number }>("SELECT clicks FROM link_click_counts WHERE link_id = ?", linkId))?.clicks ?? 0;

describe("redirect statuses", () => {
  test("302 to the destination on /{code}, /l/{code}, /r/{code} and /api/links/redirect/{code}", async () => {
    const link = await makeLink("hello");
    for (const path of ["/hello", "/l/hello", "/r/hello", "/api/links/redirect/hello?t=1&n=abc"]) {
      const r = await t.call("GET", path);
      expect(r.status).toBe(302);
      expect(r.headers.get("location")).toBe("https://example.com/hello");
      expect(r.headers.get("cache-control")).toContain("no-store");
    }
    await t.settle();
    expect(await clickCount(link.id)).toBe(4);
    expect((await clicks(link.id)).map((c) => JSON.parse(c.metadata).source)).toEqual(["direct", "direct", "direct", "safari-direct"]);
  });

  test("HEAD redirects but records nothing", async () => {
    const link = await makeLink("headonly");
    const r = await t.call("HEAD", "/headonly");
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe("https://example.com/headonly");
    expect(r.headers.get("set-cookie")).toBeNull();
    await t.settle();
    expect(await clicks(link.id)).toHaveLength(0);
    expect(await clickCount(link.id)).toBe(0);
  });

  test("unknown code: 404 with the redirect page, which goes home after 2 s without the app", async () => {
    for (const path of ["/nope-not-here", "/l/nope-not-here", "/r/zzz", "/api/links/redirect/zzz", "/%E2%9C%93", `/${"a".repeat(60)}`]) {
      const r = await t.call("GET", path);
      expect(r.status).toBe(404);
      expect(r.headers.get("content-type")).toContain("text/html");
      expect(r.text).toContain("<h1>Link not found</h1>");
      expect(r.text).toContain('<meta http-equiv="refresh" content="2;url=/">');
      // Self-contained: no app bundle, no script, no other file.
      expect(r.text).not.toContain("<div id=");
      expect(r.text).not.toMatch(/<script|src=|rel="stylesheet"/);
      expect(r.headers.get("content-security-policy")).toContain("default-src 'none'");
      expect(r.headers.get("set-cookie")).toBeNull();
    }
  });

  test("no code goes home at once", async () => {
    for (const path of ["/l/", "/r/", "/l", "/r"]) {
      const r = await t.call("GET", path);
      expect(r.status).toBe(302);
      expect(r.headers.get("location")).toBe("/");
    }
  });

  test("app pages and the app root are still the web app", async () => {
    for (const path of ["/", "/auth", "/link-tracker", "/pic-drift-link-tracker", "/pricing"]) {
      const r = await t.call("GET", path);
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toContain("text/html");
    }
  });

  test("an expired link answers 410 'This link has expired' and records nothing", async () => {
    const link = await makeLink("shortlived", { expiresAt: new Date(Date.now() + 300).toISOString() });
    expect((await t.call("GET", "/shortlived")).status).toBe(302);
    await Bun.sleep(350);
    const r = await t.call("GET", "/shortlived");
    expect(r.status).toBe(410);
    expect(r.text).toContain("This link has expired");
    expect(r.headers.get("location")).toBeNull();
    await t.settle();
    expect(await clickCount(link.id)).toBe(1);
  });

  test("an inactive link answers 410 'This link is no longer active'", async () => {
    const link = await makeLink("switchedoff");
    await t.database.run("UPDATE short_links SET active = 0 WHERE id = ?", link.id);
    // A fresh app over the same database reads the flag at start.
    const { app, ctx } = await createApp({ db: t.database, config: t.config });
    try {
      const r = await app.handle(new Request(`${ORIGIN}/switchedoff`, { headers: { host: "localhost:3000" } }));
      expect(r.status).toBe(410);
      expect(await r.text()).toContain("This link is no longer active");
    } finally {
      // Its event feed and webhook loop are process-wide listeners: stopped with the app, not left
      // to wake over a closed database when later tests write events.
      for (const hook of ctx.shutdownHooks) await hook();
    }
  });
});

describe("click fields", () => {
  test("parses real user agents: browser, device, OS, bot flag", async () => {
    const link = await makeLink("uas");
    for (const ua of Object.values(UA)) await t.call("GET", "/uas", { headers: { "user-agent": ua } });
    await t.settle();
    const rows = (await clicks(link.id)).map((c) => ({ browser: c.browser, device: c.device_type, os: c.os, bot: c.is_bot }));
    expect(rows).toEqual([
      { browser: "Chrome", device: "desktop", os: "Windows", bot: 0 },
      { browser: "Mobile Safari", device: "mobile", os: "iOS", bot: 0 },
      { browser: "Mobile Chrome", device: "mobile", os: "Android", bot: 0 },
      { browser: null, device: null, os: null, bot: 1 },
      { browser: "Firefox", device: "desktop", os: "macOS", bot: 0 },
    ]);
    const a = await t.call("GET", `/api/links/${link.id}/analytics`, { cookie: alice.cookie });
    expect(a.status).toBe(200);
    // Each request without a cookie is a new visitor; the bot is left out.
    expect(a.json.uniqueVisitors).toBe(4);
    expect(a.json.clickCount).toBe(5);
    expect(a.json.tallies.browser).toContainEqual({ name: "Unknown", count: 1 });
    expect(a.json.tallies.os).toContainEqual({ name: "iOS", count: 1 });
    expect(a.json.clicks[0].metadata).toEqual({ isReturningVisitor: false, visitNumber: 1, source: "direct", isBot: false });
  });

  test("the visitor cookie makes a returning visitor with a visit number", async () => {
    const link = await makeLink("again");
    const first = await t.call("GET", "/again", { headers: { "user-agent": UA.chromeDesktop } });
    const cookie = first.headers.get("set-cookie")!;
    // A UUIDv7 (time first, so new visitors' index entries are appended), 1 day, HttpOnly, Lax.
    expect(cookie).toMatch(/^tl_vid=[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}; Path=\/; Max-Age=86400; HttpOnly; SameSite=Lax$/);
    const vid = cookie.split(";")[0]!;
    const second = await t.call("GET", "/again", { headers: { "user-agent": UA.chromeDesktop, cookie: vid } });
    // A known visitor's cookie is not re-issued.
    expect(second.headers.get("set-cookie")).toBeNull();
    await t.call("GET", "/again", { headers: { "user-agent": UA.chromeDesktop, cookie: vid, referer: "https://news.example/item?id=1" } });
    await t.settle();
    const meta = (await clicks(link.id)).map((c) => JSON.parse(c.metadata));
    expect(meta.map((m) => [m.visitNumber, m.isReturningVisitor, m.source])).toEqual([
      [1, false, "direct"],
      [2, true, "direct"],
      [3, true, "referrer"],
    ]);
    const a = await t.call("GET", `/api/links/${link.id}/analytics`, { cookie: alice.cookie });
    expect(a.json.uniqueVisitors).toBe(1);
    expect(a.json.tallies.referrer).toEqual([
      { name: "Direct", count: 2 },
      { name: "news.example", count: 1 },
    ]);
  });

  test("a forged visitor cookie is ignored and replaced", async () => {
    await makeLink("forged");
    const r = await t.call("GET", "/forged", { headers: { cookie: "tl_vid=<script>" } });
    expect(r.headers.get("set-cookie")).toMatch(/^tl_vid=[0-9a-f]{8}-[0-9a-f-]{27};/);
  });

  test("visitor ids sort by the time they were minted", async () => {
    await makeLink("sorted");
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await t.call("GET", "/sorted");
      ids.push(r.headers.get("set-cookie")!.split(";")[0]!.slice("tl_vid=".length));
      await Bun.sleep(2);
    }
    expect([...ids].sort()).toEqual(ids);
  });

  test("a visitor id minted before 0003 (22 characters) still counts its visits", async () => {
    const link = await makeLink("oldvisitor");
    const cookie = "tl_vid=AbCdEfGhIjKlMnOpQrStUv";
    for (let i = 0; i < 2; i++) expect((await t.call("GET", "/oldvisitor", { headers: { cookie } })).headers.get("set-cookie")).toBeNull();
    await t.settle();
    expect((await clicks(link.id)).map((c) => JSON.parse(c.metadata).visitNumber)).toEqual([1, 2]);
  });

  test("behind https the visitor cookie is Secure", async () => {
    const secure = await setup({ PUBLIC_URL: "https://links.example" });
    const owner = await secure.signUp("sam");
    const made = await secure.call("POST", "/api/links", { body: { originalUrl: "https://example.com/s", title: "s", shortCode: "securelink" }, cookie: owner.cookie, headers: { host: "links.example", origin: "https://links.example" } });
    expect(made.status).toBe(201);
    const r = await secure.call("GET", "/securelink", { headers: { host: "links.example" } });
    expect(r.headers.get("set-cookie")).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
  });

  test("?qr=1 marks the source 'qr' and is not passed on to the destination", async () => {
    const link = await makeLink("scanme");
    const r = await t.call("GET", "/scanme?qr=1");
    expect(r.headers.get("location")).toBe("https://example.com/scanme");
    await t.settle();
    expect(JSON.parse((await clicks(link.id))[0]!.metadata).source).toBe("qr");
  });

  test("an unknown Host gets no cookie and is never reflected", async () => {
    const link = await makeLink("hosty");
    const r = await t.call("GET", "/hosty", { headers: { host: "evil.example" } });
    expect(r.status).toBe(302);
    expect(r.headers.get("set-cookie")).toBeNull();
    expect(r.headers.get("location")).toBe("https://example.com/hosty");
    const missing = await t.call("GET", "/not-a-code", { headers: { host: "evil.example" } });
    expect(missing.status).toBe(404);
    expect(missing.text).not.toContain("evil.example");
    await t.settle();
    expect(await clicks(link.id)).toHaveLength(1);
  });

  test("the first click notifies the owner once", async () => {
    const link = await makeLink("notifyme");
    await t.call("GET", "/notifyme");
    await t.call("GET", "/notifyme");
    await t.settle();
    const rows = await t.database.all<{ message: string; link: string }>("SELECT * FROM notifications WHERE user_id = ? AND kind = 'link-clicks' AND message LIKE ?", alice.user.id, `%(/${link.shortCode})%`);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.message).toBe('Your link "notifyme" (/notifyme) got its first click');
    expect(rows[0]!.link).toBe("/link-tracker");
  });

  test("IP_STORAGE=truncated keeps a /24; analytics of a fresh link are empty", async () => {
    const link = await makeLink("emptyone");
    const a = await t.call("GET", `/api/links/${link.id}/analytics`, { cookie: alice.cookie });
    expect(a.json).toMatchObject({ clickCount: 0, uniqueVisitors: 0, lastClick: null, clicks: [], link: { shortCode: "emptyone", originalUrl: "https://example.com/emptyone" } });
    expect(a.json.timeline.series).toHaveLength(30);
  });
});

describe("brand domain root", () => {
  test("GET / on BRAND_DOMAIN redirects through the root link and counts", async () => {
    const root = (await t.database.get<{ id: number; original_url: string }>("SELECT id, original_url FROM short_links WHERE short_code = 'root'"))!;
    expect(root.original_url).toBe(`${ORIGIN}/`);
    const r = await t.call("GET", "/", { headers: { host: "go.brand.example" } });
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe(`${ORIGIN}/`);
    // Brand links also answer on the brand host.
    await makeLink("brandy", {}, "pic-drift-links");
    const b = await t.call("GET", "/brandy", { headers: { host: "go.brand.example" } });
    expect(b.headers.get("location")).toBe("https://example.com/brandy");
    await t.settle();
    expect(await clickCount(root.id)).toBe(1);
  });
});

describe("shutdown hook", () => {
  test("the clicks still buffered when shutdown begins are written by the hook", async () => {
    const link = await makeLink("bufferme");
    const N = 50;
    for (let i = 0; i < N; i++) await t.call("GET", "/bufferme");
    // No wait: the 100 ms flush timer has not fired yet.
    expect((await clicks(link.id)).length).toBeLessThan(N);
    for (const hook of t.ctx.shutdownHooks) await hook();
    expect(await clicks(link.id)).toHaveLength(N);
    expect(await clickCount(link.id)).toBe(N);
  });
});

describe("roll-ups", () => {
  test("tallies fold in only new clicks between reads and always add up to the count", async () => {
    const link = await makeLink("rolling");
    const read = async () => (await t.call("GET", `/api/links/${link.id}/analytics`, { cookie: alice.cookie })).json;
    for (let i = 0; i < 3; i++) await t.call("GET", "/rolling", { headers: { "user-agent": UA.safariIos } });
    const first = await read();
    expect(first.tallies.os).toEqual([{ name: "iOS", count: 3 }]);
    // Reading again without new clicks changes nothing.
    expect((await read()).tallies.os).toEqual([{ name: "iOS", count: 3 }]);
    for (let i = 0; i < 2; i++) await t.call("GET", "/rolling", { headers: { "user-agent": UA.android } });
    const second = await read();
    expect(second.clickCount).toBe(5);
    expect(second.uniqueVisitors).toBe(5);
    expect(second.tallies.os).toEqual([
      { name: "iOS", count: 3 },
      { name: "Android", count: 2 },
    ]);
    const day = new Date().toISOString().slice(0, 10);
    expect(second.timeline.series.at(-1)).toEqual({ day, count: 5 });
  });
});

describe("click detail pages", () => {
  test("keyset pages (before = the previous page's nextBefore) cover every click once; shallow numbered pages still work; hostile cursors are refused", async () => {
    const link = await makeLink("keyset");
    for (let i = 0; i < 7; i++) await t.call("GET", "/keyset", { headers: { "user-agent": `${UA.firefoxMac} n${i}` } });
    await t.settle();
    const api = (q: string, cookie = alice.cookie) => t.call("GET", `/api/links/${link.id}/analytics${q}`, { cookie });
    const ids: number[] = [];
    let next: number | null = null;
    do {
      const r = await api(`?pageSize=3${next === null ? "" : `&before=${next}`}`);
      expect(r.status).toBe(200);
      ids.push(...r.json.clicks.map((c: { id: number }) => c.id));
      next = r.json.nextBefore;
    } while (next !== null);
    const all = (await clicks(link.id)).map((c) => c.id as number).reverse();
    expect(ids).toEqual(all);
    // A numbered page without a cursor, within the first 1,000 clicks: the same rows.
    expect((await api("?pageSize=3&page=2")).json.clicks.map((c: { id: number }) => c.id)).toEqual(all.slice(3, 6));
    const report = (await api("")).json;
    expect(report.detail).toEqual({ rows: 7, since: (await clicks(link.id))[0]!.timestamp, retentionDays: null, withoutDetail: 0, perSourcePerMinute: 60 });
    expect(report.visits).toEqual({ new: 7, returning: 0, bots: 0 });
    for (const q of ["?page=11&pageSize=100", "?before=abc", "?before=-1", "?before=1e5", `?before=${"9".repeat(40)}`]) {
      const r = await api(q);
      expect({ q, status: r.status, code: r.json.error?.code ?? r.json.code }).toMatchObject({ q, status: 400 });
    }
    const bob = await t.signUp("pagebob");
    expect((await api("?before=1", bob.cookie)).status).toBe(404);
  });
});

describe("CSV export", () => {
  test("every click, newest first, spreadsheet formulas neutralised; another user gets 404", async () => {
    const link = await makeLink("csvlink");
    await t.call("GET", "/csvlink", { headers: { "user-agent": UA.firefoxMac, referer: "https://a.example/" } });
    await t.call("GET", "/csvlink", { headers: { "user-agent": "=HYPERLINK(\"http://evil.example\",\"x\")" } });
    const r = await t.call("GET", `/api/links/${link.id}/clicks.csv`, { cookie: alice.cookie });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(r.headers.get("content-disposition")).toBe('attachment; filename="clicks-csvlink.csv"');
    const lines = r.text.trim().split("\r\n");
    expect(lines[0]).toBe("timestamp,browser,device,os,country,city,referrer,visit_type,visit_number,source,is_bot,user_agent,ip");
    expect(lines).toHaveLength(3);
    // Newest first: the formula-looking agent, quoted and prefixed so it stays text.
    expect(lines[1]).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    expect(lines[2]).toContain("Firefox,desktop,macOS");
    expect(lines[2]).toContain("https://a.example/,New Visit,1,referrer,no");
    const bob = await t.signUp("csvbob");
    expect((await t.call("GET", `/api/links/${link.id}/clicks.csv`, { cookie: bob.cookie })).status).toBe(404);
  });
});

// Public stats pages (issue 26): publish, copy, revoke through the API (both trackers, only the
// owner), and the page itself: aggregates only (no address, no click row), cached, limited per
// address, no script and a strict CSP.
import { afterAll, describe, expect, test } from "bun:test";
import { setup } from "../test/helpers";
import { statsPageHtml } from "./page";

const t = await setup({ SHORT_DOMAIN: "go.example", BRAND_DOMAIN: "brand.example", PUBLIC_STATS_RATE_LIMIT: "0", PUBLIC_STATS_CACHE_SECONDS: "60", IP_STORAGE: "full" });
const alice = await t.signUp("alice");
const bob = await t.signUp("bob");

async function makeLink(shortCode: string, tracker: "main" | "brand" = "main", cookie = alice.cookie) {
  const base = tracker === "main" ? "/api/links" : "/api/pic-drift-links";
  const r = await t.call("POST", base, { body: { originalUrl: `https://example.com/${shortCode}`, title: `Stats ${shortCode}`, shortCode }, cookie });
  expect(r.status, r.text).toBe(201);
  return r.json as { id: number; shortCode: string };
}
const path = (id: number | string) => `/api/stats/${id}/public`;
const pageOf = (url: string) => new URL(url).pathname;
const page = (p: string, headers: Record<string, string> = {}) => t.call("GET", p, { headers });

describe("publish, copy, revoke", () => {
  test("publish gives an unguessable address that shows the stats; GET tells it again; publishing again replaces it; revoke → 404", async () => {
    const link = await makeLink("pub-one");
    expect((await t.call("GET", path(link.id), { cookie: alice.cookie })).json).toEqual({ linkId: link.id, published: false, url: null, publishedAt: null });
    const pub = await t.call("POST", path(link.id), { cookie: alice.cookie });
    expect(pub.status, pub.text).toBe(200);
    expect(pub.json).toMatchObject({ linkId: link.id, published: true, publishedAt: expect.any(String) });
    expect(pub.json.url).toMatch(/^http:\/\/localhost:3000\/public\/stats\/[A-Za-z0-9_-]{32}$/);
    expect((await t.call("GET", path(link.id), { cookie: alice.cookie })).json).toEqual(pub.json);
    const first = await page(pageOf(pub.json.url));
    expect(first.status).toBe(200);
    expect(first.text).toContain("Stats pub-one");
    expect(first.text).toContain("http://go.example/pub-one");
    // A new address: the old one is gone at once (also from this server's cache).
    const again = (await t.call("POST", path(link.id), { cookie: alice.cookie })).json;
    expect(again.url).not.toBe(pub.json.url);
    expect((await page(pageOf(pub.json.url))).status).toBe(404);
    expect((await page(pageOf(again.url))).status).toBe(200);
    const off = await t.call("DELETE", path(link.id), { cookie: alice.cookie });
    expect(off.json).toEqual({ linkId: link.id, published: false, url: null, publishedAt: null });
    const gone = await page(pageOf(again.url));
    expect(gone.status).toBe(404);
    expect(gone.text).toContain("Page Not Found");
    expect(await t.count("public_stats")).toBe(0);
    // Revoking what is not published is fine and changes nothing.
    expect((await t.call("DELETE", path(link.id), { cookie: alice.cookie })).status).toBe(200);
  });

  test("a brand tracker link too, with its brand address", async () => {
    const link = await makeLink("pub-brand", "brand");
    const pub = (await t.call("POST", path(link.id), { cookie: alice.cookie })).json;
    const p = await page(pageOf(pub.url));
    expect(p.status).toBe(200);
    expect(p.text).toContain("http://brand.example/pub-brand");
  });

  test("another user's link: 404 for every call, nothing published or revoked", async () => {
    const link = await makeLink("pub-alice");
    const pub = (await t.call("POST", path(link.id), { cookie: alice.cookie })).json;
    for (const m of ["GET", "POST", "DELETE"]) expect((await t.call(m, path(link.id), { cookie: bob.cookie })).status).toBe(404);
    expect(await t.database.get("SELECT token FROM public_stats WHERE link_id = ?", link.id)).toEqual({ token: pageOf(pub.url).split("/").at(-1) });
    expect((await page(pageOf(pub.url))).status).toBe(200);
  });

  test("signed out: 401; hostile ids: 404 with nothing stored", async () => {
    expect((await t.call("POST", path(1))).status).toBe(401);
    const before = await t.count("public_stats");
    for (const id of ["0", "-1", "abc", "1e3", "99999999999999999999", "1%20OR%201=1"]) {
      const r = await t.call("POST", path(id), { cookie: alice.cookie });
      expect(r.status, id).toBe(404);
      expect(r.json.error.code).toBe("NOT_FOUND");
    }
    expect(await t.count("public_stats")).toBe(before);
  });

  test("a deleted link's page is gone with it", async () => {
    const link = await makeLink("pub-deleted");
    const pub = (await t.call("POST", path(link.id), { cookie: alice.cookie })).json;
    expect((await t.call("DELETE", `/api/links/${link.id}`, { cookie: alice.cookie })).status).toBe(200);
    expect(await t.database.get("SELECT COUNT(*) AS n FROM public_stats WHERE link_id = ?", link.id)).toEqual({ n: 0 });
    // Not cached before, so the page is a 404 at once.
    expect((await page(pageOf(pub.url))).status).toBe(404);
  });
});

describe("the page", () => {
  test("aggregates only: clicks, days, countries, devices, referrer hosts; no address, user agent or click row; no script", async () => {
    const link = await makeLink("pub-figures");
    for (const [ip, ref, ua] of [
      ["203.0.113.7", "https://news.example.org/story?id=secret-token", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148"],
      ["198.51.100.23", "", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/120.0 Safari/537.36"],
      ["198.51.100.23", "https://news.example.org/other", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/120.0 Safari/537.36"],
    ]) {
      await t.call("GET", "/pub-figures", { headers: { "x-forwarded-for": ip!, referer: ref!, "user-agent": ua! } });
    }
    await t.settle();
    const pub = (await t.call("POST", path(link.id), { cookie: alice.cookie })).json;
    const p = await page(pageOf(pub.url));
    expect(p.status).toBe(200);
    const html = p.text;
    expect(html).toMatch(/<b>3<\/b>clicks in all/);
    expect(html).toContain("news.example.org");
    expect(html).toContain("Direct");
    expect(html).toContain('role="img"');
    expect(html).toContain("Clicks per day");
    for (const secret of ["203.0.113", "198.51.100", "secret-token", "Mozilla", "iPhone OS", "https://example.com/pub-figures"]) expect(html).not.toContain(secret);
    expect(html).not.toMatch(/<script/i);
    const csp = p.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("script-src");
    expect(p.headers.get("cache-control")).toBe("public, max-age=60");
    expect(p.headers.get("referrer-policy")).toBe("no-referrer");
    expect(p.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(Buffer.byteLength(html)).toBeLessThan(20_000);
  });

  test("cached for a short time: new clicks show after the cache, not on every view", async () => {
    const link = await makeLink("pub-cache");
    const pub = (await t.call("POST", path(link.id), { cookie: alice.cookie })).json;
    expect((await page(pageOf(pub.url))).text).toMatch(/<b>0<\/b>clicks in all/);
    await t.call("GET", "/pub-cache");
    await t.settle();
    // The same page from memory (PUBLIC_STATS_CACHE_SECONDS=60) ...
    expect((await page(pageOf(pub.url))).text).toMatch(/<b>0<\/b>clicks in all/);
    // ... until it is published again (a new address, read afresh).
    const again = (await t.call("POST", path(link.id), { cookie: alice.cookie })).json;
    expect((await page(pageOf(again.url))).text).toMatch(/<b>1<\/b>clicks in all/);
  });

  test("unknown and malformed tokens: the 404 page, without a lookup", async () => {
    for (const p of ["/public/stats/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "/public/stats/short", "/public/stats/%27%3B%20DROP%20TABLE%20public_stats%3B--xxxxxxx", "/public/stats/%3Cscript%3Ealert(1)%3C%2Fscript%3E"]) {
      const r = await page(p);
      expect(r.status, p).toBe(404);
      expect(r.text).toContain("Page Not Found");
      expect(r.text).not.toContain("<script>alert");
    }
  });
});

describe("rate limit per address", async () => {
  // An app of its own, listening: the limit is per client address, which a socket gives.
  const u = await setup({ PUBLIC_STATS_RATE_LIMIT: "8" });
  const dora = await u.signUp("dora");
  const server = u.app.listen({ port: 0, hostname: "127.0.0.1" }).server!;
  afterAll(() => server.stop(true));
  test("past PUBLIC_STATS_RATE_LIMIT views a minute from one address: 429 with Retry-After; another address still served", async () => {
    const link = (await u.call("POST", "/api/links", { body: { originalUrl: "https://example.com/l", title: "l", shortCode: "pub-limit" }, cookie: dora.cookie })).json;
    const pub = (await u.call("POST", path(link.id), { cookie: dora.cookie })).json;
    const url = `http://127.0.0.1:${server.port}${pageOf(pub.url)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) statuses.push((await fetch(url)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429]);
    const over = await fetch(url);
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await over.text()).toContain("Too many requests");
    // From a trusted proxy, another client's address has its own allowance.
    expect((await fetch(url, { headers: { "x-forwarded-for": "192.0.2.44" } })).status).toBe(200);
  });
});

describe("the page's words", () => {
  test("countries by name and devices capitalised, as the app shows them, not the roll-ups' raw codes", () => {
    const html = statsPageHtml({
      appName: "Threadlink",
      title: "Words",
      shortUrl: "http://go.example/words",
      clicks: 6,
      unique: 4,
      days: [{ day: "2026-11-26", count: 6 }],
      countries: [{ name: "DE", count: 3 }, { name: "GB", count: 2 }, { name: "Unknown", count: 1 }],
      devices: [{ name: "mobile", count: 4 }, { name: "desktop", count: 2 }],
      referrers: [{ name: "Direct", count: 6 }],
    });
    for (const shown of ["<td>Germany</td>", "<td>United Kingdom</td>", "<td>Unknown</td>", "<td>Mobile</td>", "<td>Desktop</td>", "<td>Direct</td>"]) expect(html).toContain(shown);
    for (const raw of ["<td>DE</td>", "<td>GB</td>", "<td>mobile</td>", "<td>desktop</td>"]) expect(html).not.toContain(raw);
  });
});

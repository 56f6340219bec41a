// Smart links end to end through the app (both backends: TEST_BACKEND=postgres runs this file on
// PostgreSQL): settings API, redirect decisions, password page and cookie, limit, simulator,
// analytics per route, UTM templates.
import { describe, expect, test } from "bun:test";
import { setup } from "../test/helpers";
import { unlockCookieName, unlockValue } from "./unlock";
import { GATE_TEXT, gatePages, limitedText } from "./page";
import { SMART_SYNC_MS } from "./runtime";

const t = await setup();
const alice = await t.signUp("alice");
const bob = await t.signUp("bob");

const UA = {
  iphone: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
  android: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
  windows: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
};

let n = 0;
async function makeLink(who = alice, tracker = "links") {
  const code = `smart${++n}x`;
  const r = await t.call("POST", `/api/${tracker}`, { body: { originalUrl: `https://example.com/${code}`, title: code, shortCode: code }, cookie: who.cookie });
  if (r.status !== 201) throw new Error(r.text);
  return r.json as { id: number; shortCode: string };
}
const put = (id: number, body: unknown, who = alice, tracker = "links") => t.call("PUT", `/api/${tracker}/${id}/smart`, { body: body as never, cookie: who.cookie });
const visit = (code: string, headers: Record<string, string> = {}) => t.call("GET", `/${code}`, { headers });
const smartCol = async (id: number) => (await t.database.get<{ smart: string | null }>("SELECT smart FROM short_links WHERE id = ?", id))!.smart;

describe("settings API", () => {
  test("GET of a plain link: nothing set", async () => {
    const l = await makeLink();
    const r = await t.call("GET", `/api/links/${l.id}/smart`, { cookie: alice.cookie });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ hasPassword: false, maxClicks: null, fallbackUrl: null, rules: [], split: null, clicks: 0 });
  });

  test("PUT stores the settings (the hash, never the password) and GET reads them back", async () => {
    const l = await makeLink();
    const body = {
      password: "open sesame",
      maxClicks: 10,
      fallbackUrl: "https://example.com/sold-out",
      rules: [{ name: "iPhone", when: { os: ["ios"] }, url: "https://apps.apple.com/app/1" }],
      split: { variants: [{ url: "https://example.com/a", weight: 1 }, { url: "https://example.com/b", weight: 3 }], sticky: true },
    };
    const r = await put(l.id, body);
    expect(r.status).toBe(200);
    expect(r.json.hasPassword).toBe(true);
    expect(r.json).not.toHaveProperty("password");
    expect(r.json.rules[0].url).toBe("https://apps.apple.com/app/1");
    const col = await smartCol(l.id);
    expect(col).not.toContain("open sesame");
    expect(JSON.parse(col!).passwordHash).toStartWith("$argon2id$");
    const g = await t.call("GET", `/api/links/${l.id}/smart`, { cookie: alice.cookie });
    expect(g.json).toEqual(r.json);
    // Absent password keeps it; null removes it.
    expect((await put(l.id, { maxClicks: 5 })).json.hasPassword).toBe(true);
    expect((await put(l.id, { password: null })).json.hasPassword).toBe(false);
  });

  const invalid: [string, unknown, string][] = [
    ["short password", { password: "abc" }, "Password must be at least 4 characters"],
    ["limit zero", { maxClicks: 0 }, "Click limit must be a whole number from 1 to 1,000,000,000"],
    ["limit fraction", { maxClicks: 1.5 }, "Click limit must be a whole number"],
    ["fallback without a limit", { fallbackUrl: "https://example.com/x" }, "A fallback URL needs a click limit"],
    ["fallback not http", { maxClicks: 1, fallbackUrl: "javascript:alert(1)" }, "Only http:// and https:// links can be shortened"],
    ["rule without conditions", { rules: [{ when: {}, url: "https://example.com/" }] }, "A rule needs at least one condition"],
    ["unknown OS", { rules: [{ when: { os: ["beos"] }, url: "https://example.com/" }] }, "OS must be one of"],
    ["bad country", { rules: [{ when: { country: ["Germany"] }, url: "https://example.com/" }] }, "Countries are two-letter codes"],
    ["bad language", { rules: [{ when: { language: ["english!"] }, url: "https://example.com/" }] }, "Languages are tags"],
    ["window backwards", { rules: [{ when: { from: "2030-01-02", until: "2030-01-01" }, url: "https://example.com/" }] }, "The window's end must be after its start"],
    ["window from a bare number", { rules: [{ when: { from: "0" }, url: "https://example.com/" }] }, "Please enter a valid date"],
    ["window until a bare number", { rules: [{ when: { until: "12" }, url: "https://example.com/" }] }, "Please enter a valid date"],
    ["rule loops to us", { rules: [{ when: { os: ["ios"] }, url: "http://localhost:3000/x" }] }, "Links to our own short domains cannot be shortened"],
    ["split of one", { split: { variants: [{ url: "https://example.com/a", weight: 1 }] } }, "A split needs at least two destinations"],
    ["weight zero", { split: { variants: [{ url: "https://example.com/a", weight: 0 }, { url: "https://example.com/b", weight: 1 }] } }, "Weights are whole numbers from 1 to 1,000"],
    ["21 rules", { rules: Array.from({ length: 21 }, () => ({ when: { os: ["ios"] }, url: "https://example.com/" })) }, "At most 20 rules"],
    ["not an object", "nope", ""],
  ];
  for (const [name, body, message] of invalid) {
    test(`refused: ${name}, nothing stored`, async () => {
      const l = await makeLink();
      const r = await put(l.id, body);
      expect([400, 422]).toContain(r.status);
      expect(r.json.error.code).toBeString();
      if (message) expect(JSON.stringify(r.json.error)).toContain(message);
      expect(await smartCol(l.id)).toBeNull();
    });
  }

  test("another user's link: 404 for GET, PUT and simulate, nothing changed", async () => {
    const l = await makeLink(alice);
    expect((await t.call("GET", `/api/links/${l.id}/smart`, { cookie: bob.cookie })).status).toBe(404);
    expect((await put(l.id, { maxClicks: 1 }, bob)).status).toBe(404);
    expect((await t.call("POST", `/api/links/${l.id}/simulate`, { body: {}, cookie: bob.cookie })).status).toBe(404);
    // Nor through the other tracker's path.
    expect((await put(l.id, { maxClicks: 1 }, alice, "pic-drift-links")).status).toBe(404);
    expect(await smartCol(l.id)).toBeNull();
  });

  test("signed out: 401", async () => {
    const l = await makeLink();
    expect((await t.call("PUT", `/api/links/${l.id}/smart`, { body: { maxClicks: 1 } })).status).toBe(401);
  });
});

describe("redirect", () => {
  test("rules: first match wins, default otherwise, and each click records its route", async () => {
    const l = await makeLink();
    await put(l.id, {
      rules: [
        { name: "iPhone", when: { os: ["ios"] }, url: "https://apps.apple.com/app/1" },
        { when: { os: ["android"] }, url: "https://play.google.com/store/apps/1" },
        { when: { language: ["de"] }, url: "https://example.com/de" },
      ],
    });
    const go = async (headers: Record<string, string>) => (await visit(l.shortCode, headers)).headers.get("location");
    expect(await go({ "user-agent": UA.iphone, "accept-language": "de" })).toBe("https://apps.apple.com/app/1");
    expect(await go({ "user-agent": UA.android })).toBe("https://play.google.com/store/apps/1");
    expect(await go({ "user-agent": UA.windows, "accept-language": "de-DE,de;q=0.9" })).toBe("https://example.com/de");
    expect(await go({ "user-agent": UA.windows, "accept-language": "en-US,de;q=0.5" })).toBe(`https://example.com/${l.shortCode}`);
    await t.settle();
    const routes = await t.database.all<{ route: string | null }>("SELECT route FROM link_analytics WHERE link_id = ? ORDER BY id", l.id);
    expect(routes.map((r) => r.route)).toEqual(["rule:1", "rule:2", "rule:3", "default"]);
    const a = await t.call("GET", `/api/links/${l.id}/analytics`, { cookie: alice.cookie });
    expect(a.json.smart.routes).toEqual(
      expect.arrayContaining([
        { route: "rule:1", name: "Rule 1: iPhone", count: 1 },
        { route: "rule:2", name: "Rule 2", count: 1 },
        { route: "default", name: "Default destination", count: 1 },
      ]),
    );
  });

  test("a plain link's click records no route, and its analytics have no smart part", async () => {
    const l = await makeLink();
    expect((await visit(l.shortCode)).status).toBe(302);
    await t.settle();
    expect((await t.database.get<{ route: string | null }>("SELECT route FROM link_analytics WHERE link_id = ?", l.id))!.route).toBeNull();
    expect((await t.call("GET", `/api/links/${l.id}/analytics`, { cookie: alice.cookie })).json.smart).toBeNull();
  });

  test("click limit: exactly N clicks reach the destination, then the fallback; without one the 410 page", async () => {
    const a = await makeLink();
    await put(a.id, { maxClicks: 3, fallbackUrl: "https://example.com/sold-out" });
    const got = [];
    for (let i = 0; i < 5; i++) got.push((await visit(a.shortCode)).headers.get("location"));
    expect(got).toEqual([...Array(3).fill(`https://example.com/${a.shortCode}`), "https://example.com/sold-out", "https://example.com/sold-out"]);

    const b = await makeLink();
    await put(b.id, { maxClicks: 2 });
    expect((await visit(b.shortCode)).status).toBe(302);
    expect((await visit(b.shortCode)).status).toBe(302);
    const gone = await visit(b.shortCode);
    expect(gone.status).toBe(410);
    expect(gone.text).toContain("reached its click limit");
    // HEAD is not a click: it does not use up the limit.
    const c = await makeLink();
    await put(c.id, { maxClicks: 1 });
    expect((await t.call("HEAD", `/${c.shortCode}`)).status).toBe(302);
    expect((await visit(c.shortCode)).status).toBe(302);
    expect((await visit(c.shortCode)).status).toBe(410);
  });

  test("the link's badges say when its limit is used up (spent), not only that it has one", async () => {
    const l = await makeLink();
    await put(l.id, { maxClicks: 2 });
    const badges = async () => (await t.call("GET", `/api/links/${l.id}`, { cookie: alice.cookie })).json.smart;
    expect(await badges()).toMatchObject({ limited: true, spent: false });
    await visit(l.shortCode);
    expect(await badges()).toMatchObject({ limited: true, spent: false });
    // Spent at once, from this instance's count, before the click writer has the clicks.
    await visit(l.shortCode);
    expect(await badges()).toMatchObject({ limited: true, spent: true });
    await t.settle();
    expect(await badges()).toMatchObject({ limited: true, spent: true });
    await put(l.id, { maxClicks: 5 });
    expect(await badges()).toMatchObject({ limited: true, spent: false });
  });

  test("a limit set on a link that already has clicks counts them", async () => {
    const l = await makeLink();
    await visit(l.shortCode);
    await visit(l.shortCode);
    await t.settle();
    await put(l.id, { maxClicks: 3 });
    expect((await visit(l.shortCode)).status).toBe(302);
    expect((await visit(l.shortCode)).status).toBe(410);
    expect((await t.call("GET", `/api/links/${l.id}/smart`, { cookie: alice.cookie })).json.clicks).toBe(3);
  });

  test("sticky split: a visitor with the cookie always gets one destination", async () => {
    const l = await makeLink();
    await put(l.id, { split: { variants: [{ url: "https://example.com/a", weight: 1 }, { url: "https://example.com/b", weight: 1 }], sticky: true } });
    const first = await visit(l.shortCode);
    const cookie = first.headers.get("set-cookie")!.split(";")[0]!;
    expect(cookie).toStartWith("tl_vid=");
    for (let i = 0; i < 10; i++) expect((await visit(l.shortCode, { cookie })).headers.get("location")).toBe(first.headers.get("location"));
  });
});

describe("password", () => {
  const form = (password: string, extra: Record<string, string> = {}) => ({
    raw: new URLSearchParams({ password }).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", ...extra },
  });

  test("on every path a link is followed by (the Safari path under /api too), the page's form posts back and unlocks", async () => {
    const l = await makeLink();
    await put(l.id, { password: "open sesame" });
    for (const path of [`/${l.shortCode}`, `/l/${l.shortCode}`, `/r/${l.shortCode}`, `/api/links/redirect/${l.shortCode}?ts=1`]) {
      const page = await visit(path.slice(1));
      expect(page.status).toBe(200);
      expect(page.text).toContain(GATE_TEXT.heading);
      // The form posts to the page's own address, as a browser sends it (Origin: this host).
      const origin = { origin: "http://localhost:3000" };
      const wrong = await t.call("POST", path, form("nope", origin));
      expect([wrong.status, wrong.text.includes(GATE_TEXT.wrong)]).toEqual([403, true]);
      const right = await t.call("POST", path, form("open sesame", origin));
      expect(right.status).toBe(303);
      expect(right.headers.get("location")).toBe(path);
      const cookie = right.headers.get("set-cookie")!.split(";")[0]!;
      const through = await t.call("GET", path, { headers: { cookie } });
      expect([through.status, through.headers.get("location")]).toEqual([302, `https://example.com/${l.shortCode}`]);
    }
  });

  test("the page, a wrong password, the right one (cookie scoped to the link), then the redirect", async () => {
    const l = await makeLink();
    await put(l.id, { password: "open sesame" });
    const page = await visit(l.shortCode);
    expect(page.status).toBe(200);
    expect(page.text).toContain(GATE_TEXT.heading);
    expect(page.text).toContain('<label for="pw">Password</label>');
    expect(page.text).not.toMatch(/<script/i);
    expect(page.headers.get("content-security-policy")).toContain("form-action 'self'");
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(page.headers.get("location")).toBeNull();

    const wrong = await t.call("POST", `/${l.shortCode}`, form("nope"));
    expect(wrong.status).toBe(403);
    expect(wrong.text).toContain(GATE_TEXT.wrong);
    expect(wrong.headers.get("set-cookie")).toBeNull();

    const right = await t.call("POST", `/${l.shortCode}`, form("open sesame"));
    expect(right.status).toBe(303);
    expect(right.headers.get("location")).toBe(`/${l.shortCode}`);
    const setCookie = right.headers.get("set-cookie")!;
    expect(setCookie).toStartWith(`${unlockCookieName(l.id)}=`);
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("Max-Age=86400");
    const cookie = setCookie.split(";")[0]!;
    const through = await visit(l.shortCode, { cookie });
    expect(through.status).toBe(302);
    expect(through.headers.get("location")).toBe(`https://example.com/${l.shortCode}`);
  });

  test("forged, expired, moved to another link, or from before a password change: the page again", async () => {
    const a = await makeLink();
    const b = await makeLink();
    await put(a.id, { password: "first pass" });
    await put(b.id, { password: "first pass" });
    const right = await t.call("POST", `/${a.shortCode}`, form("first pass"));
    const value = right.headers.get("set-cookie")!.split(";")[0]!.split("=")[1]!;
    expect((await visit(a.shortCode, { cookie: `${unlockCookieName(a.id)}=${value}` })).status).toBe(302);
    // Moved to link b's name: b's MAC differs.
    expect((await visit(b.shortCode, { cookie: `${unlockCookieName(b.id)}=${value}` })).status).toBe(200);
    // Forged: right shape, wrong key.
    expect((await visit(a.shortCode, { cookie: `${unlockCookieName(a.id)}=${unlockValue("not-the-key", a.id, 1)}` })).status).toBe(200);
    // Tampered expiry.
    const [exp, mac] = value.split(".");
    expect((await visit(a.shortCode, { cookie: `${unlockCookieName(a.id)}=${Number(exp) + 1000}.${mac}` })).status).toBe(200);
    // Expired (a genuine MAC for a time past).
    expect((await visit(a.shortCode, { cookie: `${unlockCookieName(a.id)}=${unlockValue(await keyOf(), a.id, 1, Date.now() - 2 * 86_400_000)}` })).status).toBe(200);
    // Password changed: the earlier unlock ends.
    await put(a.id, { password: "second pass" });
    expect((await visit(a.shortCode, { cookie: `${unlockCookieName(a.id)}=${value}` })).status).toBe(200);
  });

  test("wrong guesses are limited per link and address (429 with Retry-After); other links are not affected", async () => {
    const l = await makeLink();
    const other = await makeLink();
    await put(l.id, { password: "right one" });
    await put(other.id, { password: "right one" });
    for (let i = 0; i < 10; i++) expect((await t.call("POST", `/${l.shortCode}`, form("wrong"))).status).toBe(403);
    const limited = await t.call("POST", `/${l.shortCode}`, form("right one"));
    expect(limited.status).toBe(429);
    const wait = Number(limited.headers.get("retry-after"));
    expect(wait).toBeGreaterThan(14 * 60);
    // The real wait, in the same minutes as Retry-After (it said "a few minutes" for 15).
    expect(limited.text).toContain("Please wait 15 minutes and try again.");
    expect(limited.text).toContain(limitedText(wait * 1000));
    expect((await t.call("POST", `/${other.shortCode}`, form("right one"))).status).toBe(303);
  });

  test("the rate-limited page says the wait in whole minutes, rounded up, as Retry-After does", async () => {
    const pages = gatePages("Threadlink", 15 * 60_000);
    for (const [ms, words, after] of [[1, "1 minute", "1"], [60_000, "1 minute", "60"], [60_001, "2 minutes", "61"], [15 * 60_000, "15 minutes", "900"], [20 * 60_000, "15 minutes", "900"]] as const) {
      const r = pages.limited(ms);
      expect(r.status).toBe(429);
      expect(r.headers.get("retry-after")).toBe(after);
      expect(await r.text()).toContain(`Please wait ${words} and try again.`);
    }
  });

  test("page views and unlocks are counted apart from clicks", async () => {
    const l = await makeLink();
    await put(l.id, { password: "count me" });
    await visit(l.shortCode);
    await visit(l.shortCode);
    const cookie = (await t.call("POST", `/${l.shortCode}`, form("count me"))).headers.get("set-cookie")!.split(";")[0]!;
    await visit(l.shortCode, { cookie });
    await t.settle();
    // The tallies are written every SMART_SYNC_MS.
    await Bun.sleep(SMART_SYNC_MS + 300);
    const a = await t.call("GET", `/api/links/${l.id}/analytics`, { cookie: alice.cookie });
    expect(a.json.clickCount).toBe(1);
    expect(a.json.smart.passwordViews).toBe(2);
    expect(a.json.smart.unlocks).toBe(1);
  });
});

async function keyOf() {
  return (await t.database.get<{ value: string }>("SELECT value FROM instance_secrets WHERE name = 'link-cookie'"))!.value;
}

describe("simulator", () => {
  test("explains which rule a visitor meets, records nothing", async () => {
    const l = await makeLink();
    await put(l.id, { rules: [{ name: "Germans", when: { country: ["DE"] }, url: "https://example.com/de" }, { when: { language: ["it"] }, url: "https://example.com/it" }] });
    const r = await t.call("POST", `/api/links/${l.id}/simulate`, { body: { country: "DE" }, cookie: alice.cookie });
    expect(r.status).toBe(200);
    expect(r.json.destination).toBe("https://example.com/de");
    expect(r.json.route).toBe("rule:1");
    expect(r.json.reason).toContain("Germans matched");
    const it = await t.call("POST", `/api/links/${l.id}/simulate`, { body: { language: "it-IT,it;q=0.9", country: "FR" }, cookie: alice.cookie });
    expect(it.json.route).toBe("rule:2");
    expect(it.json.steps[0]).toEqual({ rule: "Germans", matched: false, why: "country is FR, not DE" });
    await t.settle();
    expect(await t.database.get("SELECT 1 AS x FROM link_analytics WHERE link_id = ?", l.id)).toBeNull();
  });
  test("this browser: facts from the request", async () => {
    const l = await makeLink();
    await put(l.id, { rules: [{ when: { os: ["android"] }, url: "https://play.google.com/store/apps/1" }] });
    const r = await t.call("POST", `/api/links/${l.id}/simulate`, { body: { useRequest: true }, cookie: alice.cookie, headers: { "user-agent": UA.android } });
    expect(r.json.visitor.os).toBe("android");
    expect(r.json.destination).toBe("https://play.google.com/store/apps/1");
  });
  test("the time and the click count can be set", async () => {
    const l = await makeLink();
    await put(l.id, { maxClicks: 5, fallbackUrl: "https://example.com/over", rules: [{ when: { from: "2030-01-01T00:00:00Z" }, url: "https://example.com/2030" }] });
    expect((await t.call("POST", `/api/links/${l.id}/simulate`, { body: { at: "2030-06-01T00:00:00Z" }, cookie: alice.cookie })).json.route).toBe("rule:1");
    expect((await t.call("POST", `/api/links/${l.id}/simulate`, { body: { clicks: 5 }, cookie: alice.cookie })).json.route).toBe("fallback");
  });
  test("refused: a time that is no date, said as such (it read 'Expected (\"\" | string)')", async () => {
    const l = await makeLink();
    // "0" and "12" were read as dates in 2000 and 2001; a date-time without its zone is ambiguous.
    for (const at of ["yesterday", "2026-13-45T00:00:00Z", "0", "12", "1969-12-31", "2030-06-01T10:00"]) {
      const r = await t.call("POST", `/api/links/${l.id}/simulate`, { body: { at }, cookie: alice.cookie });
      expect(r.status).toBe(400);
      expect(r.json.error).toEqual({ code: "VALIDATION", message: "Please enter a valid date", fields: { at: "Please enter a valid date" } });
    }
    // Empty is now, as before.
    expect((await t.call("POST", `/api/links/${l.id}/simulate`, { body: { at: "" }, cookie: alice.cookie })).status).toBe(200);
  });
  test("refused: bad device", async () => {
    const l = await makeLink();
    const r = await t.call("POST", `/api/links/${l.id}/simulate`, { body: { device: "toaster" }, cookie: alice.cookie });
    expect([400, 422]).toContain(r.status);
  });
});

describe("simulator, this browser: the answer the redirect gives the same request", () => {
  // A real socket: only a peer (loopback, a trusted proxy by default) makes CDN headers believed.
  test("behind a trusted proxy's CDN headers, and with the browser's visitor cookie on a sticky split", async () => {
    const server = t.app.listen({ port: 0, hostname: "127.0.0.1" });
    try {
      const base = `http://127.0.0.1:${server.server!.port}`;
      const l = await makeLink();
      await put(l.id, {
        rules: [
          { name: "Munich", when: { city: ["München"] }, url: "https://example.com/muc" },
          { name: "Germany", when: { country: ["DE"] }, url: "https://example.com/de" },
        ],
        split: { sticky: true, variants: [{ url: "https://example.com/a", weight: 1 }, { url: "https://example.com/b", weight: 1 }] },
      });
      const redirect = async (headers: Record<string, string>) => (await fetch(`${base}/${l.shortCode}`, { headers, redirect: "manual" })).headers.get("location");
      const simulate = async (headers: Record<string, string>) => {
        const r = await fetch(`${base}/api/links/${l.id}/simulate`, {
          method: "POST",
          headers: { ...headers, cookie: [alice.cookie, headers.cookie].filter(Boolean).join("; "), origin: "http://localhost:3000", "content-type": "application/json" },
          body: JSON.stringify({ useRequest: true }),
        });
        expect(r.status).toBe(200);
        return ((await r.json()) as { destination: string }).destination;
      };
      const visitors: Record<string, string>[] = [
        { "cf-ipcountry": "DE" },
        { "cf-ipcountry": "DE", "cf-ipcity": "M%C3%BCnchen" },
        { "x-vercel-ip-country": "de" },
        { "x-forwarded-for": "8.8.8.8", "cf-ipcity": "M%C3%BCnchen" },
      ];
      // Ten visitors with cookies of their own: a sticky split sends each to one destination.
      for (let i = 0; i < 10; i++) visitors.push({ cookie: `tl_vid=${Bun.randomUUIDv7()}` });
      const seen = new Set<string | null>();
      for (const h of visitors) {
        const went = await redirect(h);
        seen.add(went);
        expect(await simulate(h)).toBe(went!);
      }
      expect(seen).toContain("https://example.com/muc");
      expect(seen).toContain("https://example.com/de");
      expect(seen).toContain("https://example.com/a");
      expect(seen).toContain("https://example.com/b");
    } finally {
      server.stop(true);
    }
  });
});

describe("brand tracker", () => {
  test("reset clicks opens a spent click limit again", async () => {
    const l = await makeLink(alice, "pic-drift-links");
    await put(l.id, { maxClicks: 1 }, alice, "pic-drift-links");
    expect((await visit(l.shortCode)).status).toBe(302);
    expect((await visit(l.shortCode)).status).toBe(410);
    expect((await t.call("POST", `/api/pic-drift-links/${l.id}/reset-clicks`, { cookie: alice.cookie })).status).toBe(200);
    expect((await visit(l.shortCode)).status).toBe(302);
    expect((await visit(l.shortCode)).status).toBe(410);
  });
  test("settings and redirect work there too", async () => {
    const l = await makeLink(alice, "pic-drift-links");
    expect((await put(l.id, { rules: [{ when: { os: ["ios"] }, url: "https://apps.apple.com/app/2" }] }, alice, "pic-drift-links")).status).toBe(200);
    expect((await visit(l.shortCode, { "user-agent": UA.iphone })).headers.get("location")).toBe("https://apps.apple.com/app/2");
    // Not through the Link Tracker's path.
    expect((await put(l.id, { maxClicks: 1 })).status).toBe(404);
  });
  test("the root link: 403 in the error shape for the instance owner (it was 404), 404 for others; nothing stored", async () => {
    const root = (await t.database.get<{ id: number }>("SELECT id FROM short_links WHERE short_code = 'root' AND is_system = 1"))!;
    // alice signed up first: the instance owner.
    const r = await put(root.id, { maxClicks: 1 }, alice, "pic-drift-links");
    expect(r.status).toBe(403);
    expect(r.json).toEqual({ error: { code: "FORBIDDEN", message: "The root link cannot have smart settings" } });
    expect((await put(root.id, { maxClicks: 1 }, bob, "pic-drift-links")).status).toBe(404);
    expect((await put(root.id, { maxClicks: 1 }, alice)).status).toBe(404);
    expect(await smartCol(root.id)).toBeNull();
  });
});

describe("UTM templates", () => {
  test("create, list, duplicate name, delete; another user sees none", async () => {
    const body = { name: "Newsletter", source: "newsletter", medium: "email", campaign: "spring" };
    const c = await t.call("POST", "/api/utm-templates", { body, cookie: alice.cookie });
    expect(c.status).toBe(201);
    expect(c.json).toMatchObject({ ...body, term: "", content: "" });
    expect((await t.call("POST", "/api/utm-templates", { body, cookie: alice.cookie })).status).toBe(409);
    expect((await t.call("GET", "/api/utm-templates", { cookie: alice.cookie })).json).toHaveLength(1);
    expect((await t.call("GET", "/api/utm-templates", { cookie: bob.cookie })).json).toHaveLength(0);
    expect((await t.call("DELETE", `/api/utm-templates/${c.json.id}`, { cookie: bob.cookie })).status).toBe(404);
    expect((await t.call("DELETE", `/api/utm-templates/${c.json.id}`, { cookie: alice.cookie })).status).toBe(200);
    expect((await t.call("GET", "/api/utm-templates", { cookie: alice.cookie })).json).toHaveLength(0);
  });
  test("PUT renames a template and replaces its values; a name taken is 409, another user's 404, each leaving it as it was", async () => {
    const a = (await t.call("POST", "/api/utm-templates", { body: { name: "Spring", source: "news" }, cookie: alice.cookie })).json;
    await t.call("POST", "/api/utm-templates", { body: { name: "Autumn", source: "ads" }, cookie: alice.cookie });
    const r = await t.call("PUT", `/api/utm-templates/${a.id}`, { body: { name: "Spring <b>🌸</b>", source: "news", medium: "email" }, cookie: alice.cookie });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ ...a, name: "Spring <b>🌸</b>", medium: "email" });
    const taken = await t.call("PUT", `/api/utm-templates/${a.id}`, { body: { name: "Autumn", source: "x" }, cookie: alice.cookie });
    expect(taken.status).toBe(409);
    expect(taken.json.error).toMatchObject({ code: "CONFLICT", fields: { name: "You already have a template with that name" } });
    expect((await t.call("PUT", `/api/utm-templates/${a.id}`, { body: { name: "Mine now", source: "x" }, cookie: bob.cookie })).status).toBe(404);
    expect((await t.call("PUT", `/api/utm-templates/${a.id}`, { body: { name: "" }, cookie: alice.cookie })).status).toBe(400);
    const list = (await t.call("GET", "/api/utm-templates", { cookie: alice.cookie })).json as { id: number; name: string; source: string }[];
    expect(list.find((x) => x.id === a.id)).toMatchObject({ name: "Spring <b>🌸</b>", source: "news", medium: "email" });
    for (const x of list) await t.call("DELETE", `/api/utm-templates/${x.id}`, { cookie: alice.cookie });
  });
  test.each([
    [{ name: "" }, "Name is required"],
    [{ name: "x" }, "Fill in at least one parameter"],
    [{ name: "x", source: "a\u0000b" }, "control characters"],
    [{ name: "x", source: "s".repeat(201) }, "at most 200 characters"],
  ])("refused %p", async (body, message) => {
    const r = await t.call("POST", "/api/utm-templates", { body, cookie: alice.cookie });
    expect([400, 422]).toContain(r.status);
    expect(JSON.stringify(r.json)).toContain(message);
  });
});

describe("export", () => {
  test("the JSON export carries a smart link's settings (the password only as its hash, for an import to restore); plain links have null", async () => {
    const l = await makeLink();
    await put(l.id, { password: "exported pw", maxClicks: 7, rules: [{ name: "iPhone", when: { os: ["ios"] }, url: "https://apps.apple.com/app/9" }] });
    const r = await t.call("GET", "/api/links/export.json", { cookie: alice.cookie });
    expect(r.status).toBe(200);
    expect(r.text).not.toContain("exported pw");
    const links = r.json.links as { shortCode: string; smart: Record<string, unknown> | null }[];
    const mine = links.find((x) => x.shortCode === l.shortCode)!;
    expect(mine.smart).toEqual({
      passwordHash: JSON.parse((await smartCol(l.id))!).passwordHash,
      maxClicks: 7,
      fallbackUrl: null,
      rules: [{ id: 1, name: "iPhone", when: { os: ["ios"] }, url: "https://apps.apple.com/app/9" }],
      split: null,
    });
    expect(links.some((x) => x.smart === null)).toBe(true);
  });
});

describe("bodies of other fields are refused, not read as 'nothing set'", () => {
  test("PUT …/smart and POST …/simulate with unknown fields: 400 naming the field, settings unchanged", async () => {
    const l = await makeLink();
    expect((await put(l.id, { maxClicks: 5 })).status).toBe(200);
    for (const body of [{ name: "x".repeat(1000) }, { title: false, maxClicks: 7 }]) {
      const r = await put(l.id, body);
      expect(r.status).toBe(400);
      expect((r.json as { error: { code: string; message: string } }).error).toMatchObject({ code: "VALIDATION", message: expect.stringMatching(/^Unknown field: (name|title)$/) });
    }
    expect(((await t.call("GET", `/api/links/${l.id}/smart`, { cookie: alice.cookie })).json as { maxClicks: number }).maxClicks).toBe(5);
    const sim = await t.call("POST", `/api/links/${l.id}/simulate`, { body: { username: 1, fromIndex: "x" } as never, cookie: alice.cookie });
    expect(sim.status).toBe(400);
    expect((sim.json as { error: { code: string } }).error.code).toBe("VALIDATION");
  });
});

// API request limits (issue 14): per API key, per anonymous client address, through a real
// listening socket (the peer is 127.0.0.1, a trusted proxy by default, so X-Forwarded-For plays
// the part of many client addresses). The window's end is tested with an injected clock.
import { afterAll, describe, expect, test } from "bun:test";
import { setup } from "../test/helpers";
import { loadConfig } from "../config";
import { API_RATE_WINDOW_S, AttemptLimiter, RATE_LIMIT_DESCRIPTION, RATE_LIMIT_HEADERS, RETRY_AFTER_HEADER, apiRequestLimits } from "./rateLimit";
import { AppError } from "../shared/errors";

const KEY_LIMIT = 4;
const ANON_LIMIT = 3;

async function listening() {
  const t = await setup({ API_RATE_LIMIT: String(KEY_LIMIT), API_ANON_RATE_LIMIT: String(ANON_LIMIT) });
  const server = t.app.listen({ port: 0, hostname: "127.0.0.1" });
  const base = `http://127.0.0.1:${server.server!.port}`;
  const request = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
    fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: "manual",
    });
  /** A key made through the settings API with the user's session cookie. */
  const newKey = async (cookie: string, scope = "read-write") =>
    (await t.call("POST", "/api/api-keys", { cookie, body: { name: `key ${Math.random()}`, scope } })).json.key as string;
  return { t, base, request, newKey, stop: () => server.stop(true) };
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const from = (ip: string) => ({ "x-forwarded-for": ip });
const limitHeaders = (r: Response) => ({
  limit: r.headers.get("ratelimit-limit"),
  remaining: r.headers.get("ratelimit-remaining"),
  reset: Number(r.headers.get("ratelimit-reset")),
  policy: r.headers.get("ratelimit-policy"),
});

const s = await listening();
const dana = await s.t.signUp("dana");
const erin = await s.t.signUp("erin");
const keyA = await s.newKey(dana.cookie);
const keyB = await s.newKey(dana.cookie);
const erinKey = await s.newKey(erin.cookie);
// A second app, so the per-key tests' addresses and the anonymous tests' never meet.
const anon = await listening();
const owner = await anon.t.signUp("olga");
const link = (await anon.t.call("POST", "/api/links", { cookie: owner.cookie, body: { originalUrl: "https://example.com/o", title: "O" } })).json;
afterAll(() => {
  s.stop();
  anon.stop();
});

describe("per API key", () => {

  test("every answer states the limit and counts down; past it: 429, Retry-After, RATE_LIMITED, nothing changed", async () => {
    const seen = [];
    for (let i = 0; i < KEY_LIMIT; i++) {
      const r = await s.request("GET", "/api/links", bearer(keyA));
      expect(r.status).toBe(200);
      seen.push(limitHeaders(r));
    }
    expect(seen.map((h) => h.remaining)).toEqual(["3", "2", "1", "0"]);
    for (const h of seen) {
      expect(h.limit).toBe(String(KEY_LIMIT));
      expect(h.policy).toBe(`${KEY_LIMIT};w=${API_RATE_WINDOW_S}`);
      expect(h.reset).toBeGreaterThan(0);
      expect(h.reset).toBeLessThanOrEqual(API_RATE_WINDOW_S);
    }
    // The refused request would have created a link and touched the key's last use.
    await s.t.database.run("UPDATE api_keys SET last_used_at = '2000-01-01T00:00:00.000Z'");
    const links = await s.t.count("short_links");
    const refused = await s.request("POST", "/api/links", bearer(keyA), { originalUrl: "https://example.com/x", title: "never" });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      error: { code: "RATE_LIMITED", message: expect.stringMatching(/^Too many requests with this API key: the limit is 4 a minute\. Please try again in \d+ seconds?\.$/) },
    });
    const retry = Number(refused.headers.get("retry-after"));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(API_RATE_WINDOW_S);
    expect(limitHeaders(refused)).toMatchObject({ limit: "4", remaining: "0", reset: retry });
    expect(await s.t.count("short_links")).toBe(links);
    expect(await s.t.database.all("SELECT DISTINCT last_used_at AS at FROM api_keys")).toEqual([{ at: "2000-01-01T00:00:00.000Z" }]);
    // Still refused: a refusal does not count, and does not move the reset later.
    const again = await s.request("GET", "/api/links", bearer(keyA));
    expect(again.status).toBe(429);
    expect(Number(again.headers.get("retry-after"))).toBeLessThanOrEqual(retry);
  });

  test("another key of the same user, and another user's key, are counted separately", async () => {
    const b = await s.request("GET", "/api/links", bearer(keyB));
    expect(b.status).toBe(200);
    expect(limitHeaders(b).remaining).toBe("3");
    const e = await s.request("GET", "/api/links", bearer(erinKey));
    expect(limitHeaders(e).remaining).toBe("3");
  });

  test("error answers carry the fields too: another user's link (404), a read-only key writing (403)", async () => {
    const link = (await s.t.call("POST", "/api/links", { cookie: dana.cookie, body: { originalUrl: "https://example.com/d", title: "D" } })).json;
    const r = await s.request("GET", `/api/links/${link.id}/analytics`, bearer(erinKey));
    expect(r.status).toBe(404);
    expect(limitHeaders(r).remaining).toBe("2");
    const readOnly = await s.newKey(erin.cookie, "read");
    const w = await s.request("POST", "/api/links", bearer(readOnly), { originalUrl: "https://example.com/e", title: "E" });
    expect(w.status).toBe(403);
    expect(limitHeaders(w)).toMatchObject({ limit: "4", remaining: "3" });
  });

  test("a revoked key is refused with 401 and counted against its address, not a key", async () => {
    const gone = await s.newKey(erin.cookie);
    const id = (await s.t.database.get<{ id: number }>("SELECT id FROM api_keys ORDER BY id DESC LIMIT 1"))!.id;
    expect((await s.t.call("DELETE", `/api/api-keys/${id}`, { cookie: erin.cookie })).status).toBe(200);
    const r = await s.request("GET", "/api/links", { ...bearer(gone), ...from("192.0.2.50") });
    expect(r.status).toBe(401);
    expect(limitHeaders(r)).toMatchObject({ limit: String(ANON_LIMIT), remaining: String(ANON_LIMIT - 1) });
  });

  test("the signed-in web app is not limited and gets no fields", async () => {
    for (let i = 0; i < KEY_LIMIT + ANON_LIMIT + 2; i++) {
      const r = await s.request("GET", "/api/links", { cookie: dana.cookie, ...from("192.0.2.60") });
      expect(r.status).toBe(200);
      expect(r.headers.has("ratelimit-limit")).toBe(false);
    }
  });
});

describe("anonymous calls, per client address", () => {
  const s = anon;

  test("counted per address: one address used up does not hold back another", async () => {
    const rs = [];
    for (let i = 0; i < ANON_LIMIT + 1; i++) rs.push(await s.request("GET", "/api/user", from("198.51.100.1")));
    expect(rs.map((r) => r.status)).toEqual([401, 401, 401, 429]);
    expect(rs.map((r) => r.headers.get("ratelimit-remaining"))).toEqual(["2", "1", "0", "0"]);
    const last = rs.at(-1)!;
    expect((await last.json()).error).toMatchObject({ code: "RATE_LIMITED", message: expect.stringContaining("from this address") });
    expect(Number(last.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await s.request("GET", "/api/user", from("198.51.100.2"))).status).toBe(401);
  });

  test("a refused sign-up creates nothing", async () => {
    const users = await s.t.count("users");
    for (let i = 0; i < ANON_LIMIT; i++) await s.request("GET", "/api/user", from("198.51.100.3"));
    const r = await s.request("POST", "/api/register", from("198.51.100.3"), { username: "toolate", password: "correct horse battery", email: "late@example.test" });
    expect(r.status).toBe(429);
    expect(await s.t.count("users")).toBe(users);
  });

  test("junk cookies and made-up keys do not escape the address's count", async () => {
    const ip = from("198.51.100.4");
    const statuses = [
      (await s.request("GET", "/api/user", { ...ip, cookie: "tl_session=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" })).status,
      (await s.request("GET", "/api/user", { ...ip, authorization: "Bearer tl_0000000000000000000000000000000000000000000" })).status,
      (await s.request("GET", "/api/user", { ...ip, authorization: "Bearer nonsense" })).status,
      (await s.request("GET", "/api/user", { ...ip, cookie: "tl_session=yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy" })).status,
    ];
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  test("an IPv6 client is counted per /64", async () => {
    for (let i = 0; i < ANON_LIMIT; i++) expect((await s.request("GET", "/api/user", from(`2001:db8:1:2::${i + 1}`))).status).toBe(401);
    expect((await s.request("GET", "/api/user", from("2001:db8:1:2::ffff"))).status).toBe(429);
    expect((await s.request("GET", "/api/user", from("2001:db8:1:3::1"))).status).toBe(401);
  });

  test("health checks, redirects and app pages are never limited and carry no fields", async () => {
    const ip = from("198.51.100.5");
    for (let i = 0; i < ANON_LIMIT + 2; i++) {
      for (const [path, status] of [
        ["/api/health", 200],
        [`/${link.shortCode}`, 302],
        [`/api/links/redirect/${link.shortCode}`, 302],
        ["/some/app/page", 200],
      ] as const) {
        const r = await s.request("GET", path, ip);
        expect(r.status).toBe(status);
        expect(r.headers.has("ratelimit-limit")).toBe(false);
      }
    }
  });

  test("unknown /api paths are limited like the rest (404 with the fields), even one that starts like health", async () => {
    const r = await s.request("GET", "/api/no/such/route", from("198.51.100.6"));
    expect(r.status).toBe(404);
    expect(r.headers.get("ratelimit-remaining")).toBe(String(ANON_LIMIT - 1));
    const near = await s.request("GET", "/api/healthz", from("198.51.100.6"));
    expect(near.status).toBe(404);
    expect(near.headers.get("ratelimit-remaining")).toBe(String(ANON_LIMIT - 2));
  });
});

describe("a limit of 0 is off", () => {
  for (const [name, env, keyed] of [
    ["both off", { API_RATE_LIMIT: "0", API_ANON_RATE_LIMIT: "0" }, false],
    ["only the per-key limit on", { API_RATE_LIMIT: "2", API_ANON_RATE_LIMIT: "0" }, true],
  ] as const) {
    test(`${name}: anonymous calls are never refused and carry no fields`, async () => {
      const t = await setup(env);
      const server = t.app.listen({ port: 0, hostname: "127.0.0.1" });
      const base = `http://127.0.0.1:${server.server!.port}`;
      const u = await t.signUp("zoe");
      const key = (await t.call("POST", "/api/api-keys", { cookie: u.cookie, body: { name: "k", scope: "read" } })).json.key as string;
      for (let i = 0; i < 4; i++) {
        const r = await fetch(`${base}/api/user`, { headers: from("198.51.100.9") });
        expect(r.status).toBe(401);
        expect(r.headers.has("ratelimit-limit")).toBe(false);
      }
      const withKey = await Promise.all([1, 2, 3].map(() => fetch(`${base}/api/links`, { headers: bearer(key) })));
      // Sorted: the three run in parallel, and on PostgreSQL the key look-ups may end in any order.
      expect(withKey.map((r) => r.status).sort()).toEqual(keyed ? [200, 200, 429] : [200, 200, 200]);
      expect(withKey[0]!.headers.has("ratelimit-limit")).toBe(keyed);
      server.stop(true);
    });
  }
});

describe("the counting itself", () => {
  const T0 = 1_000_000_000_000;
  const rejection = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return e as AppError;
    }
    throw new Error("not refused");
  };

  test("a window ends after 60 s and the count starts again; the reset counts down meanwhile", () => {
    const { perKey } = apiRequestLimits({ apiRateLimit: 2, apiAnonRateLimit: 1 });
    expect(perKey!.check("k", T0)).toMatchObject({ "RateLimit-Remaining": "1", "RateLimit-Reset": "60" });
    expect(perKey!.check("k", T0 + 15_500)).toMatchObject({ "RateLimit-Remaining": "0", "RateLimit-Reset": "45" });
    const refused = rejection(() => perKey!.check("k", T0 + 59_001));
    expect(refused.code).toBe("RATE_LIMITED");
    expect(refused.headers).toMatchObject({ "Retry-After": "1", "RateLimit-Reset": "1", "RateLimit-Remaining": "0" });
    expect(perKey!.check("k", T0 + 60_000)).toMatchObject({ "RateLimit-Remaining": "1", "RateLimit-Reset": "60" });
  });

  test("the words for the OpenAPI document state the configured defaults and every field", () => {
    const defaults = loadConfig({});
    expect(RATE_LIMIT_DESCRIPTION).toContain(`API_RATE_LIMIT a minute, ${defaults.apiRateLimit} by default`);
    expect(RATE_LIMIT_DESCRIPTION).toContain(`API_ANON_RATE_LIMIT a minute, ${defaults.apiAnonRateLimit} by default`);
    for (const name of [...Object.keys(RATE_LIMIT_HEADERS), RETRY_AFTER_HEADER]) expect(RATE_LIMIT_DESCRIPTION).toContain(name);
  });

  test("a limit of 0 is off; the stated fields are the documented ones", () => {
    expect(apiRequestLimits({ apiRateLimit: 0, apiAnonRateLimit: 0 })).toEqual({ perKey: null, perAddress: null });
    const { perAddress } = apiRequestLimits({ apiRateLimit: 0, apiAnonRateLimit: 5 });
    expect(Object.keys(perAddress!.check("a", T0)).sort()).toEqual(Object.keys(RATE_LIMIT_HEADERS).sort());
  });

  test("memory stays bounded: a flood of distinct callers never grows the table past its cap", () => {
    const l = new AttemptLimiter(1, 60_000);
    for (let i = 0; i < 250_000; i++) l.hit(`caller-${i}`, T0);
    const size = (l as unknown as { windows: Map<string, unknown> }).windows.size;
    expect(size).toBeLessThanOrEqual(100_000);
    expect(size).toBeGreaterThan(0);
  });
});

// One code in each tracker across two instances on one PostgreSQL (issue 23): with the brand
// tracker on a host of its own, `promo` in the Link Tracker and `promo` in the brand tracker are
// two links, and each instance's map has both, by the follower (LISTEN/NOTIFY) and by a miss's
// lookup alike, each answered on its host. Real processes on loopback, as instances.pg.test.ts.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { SQL } from "bun";
import { FOLLOW_MS, type Instance, json, signUp, startTwins, stopTwins, type Twins } from "../test/instances";

setDefaultTimeout(30_000);

const BRAND = "brand.localtest";
let twins: Twins;
let admin: SQL;
let a: Instance;
let b: Instance;
let cookie: string;

beforeAll(async () => {
  twins = await startTwins("codes", { env: { BRAND_DOMAIN: BRAND } });
  ({ admin, a, b } = twins);
  cookie = await signUp(a, "codes");
}, 120_000);

afterAll(() => stopTwins(twins));

/** Where `code` sends a visitor on `on` when asked on `host` (the instance's own, or the brand host). */
async function targetOn(on: Instance, code: string, host?: string) {
  const r = await fetch(`${on.base}/${code}`, { method: "HEAD", redirect: "manual", headers: host ? { host } : {} });
  return r.status === 302 ? r.headers.get("location")! : r.status;
}

const create = (api: string, shortCode: string, dest: string) =>
  fetch(`${a.base}${api}`, { method: "POST", ...json({ originalUrl: dest, title: shortCode, shortCode }, cookie) });

/** Polls until both hosts of `on` answer as wanted; the milliseconds it took. */
async function both(on: Instance, code: string, app: string | number, brand: string | number, limitMs = 2_000) {
  const t0 = performance.now();
  for (;;) {
    const got = [await targetOn(on, code), await targetOn(on, code, BRAND)];
    const ms = performance.now() - t0;
    if (got[0] === app && got[1] === brand) return ms;
    if (ms > limitMs) throw new Error(`after ${Math.round(ms)} ms ${code} answers ${got.join(", ")}`);
  }
}

describe("a code in each tracker, on two instances", () => {
  test(`created on A in both trackers: B serves each on its host within ${FOLLOW_MS} ms; a delete leaves the other answering on both`, async () => {
    const main = await create("/api/links", "promo", "https://example.com/main");
    expect(main.status).toBe(201);
    const brand = await create("/api/pic-drift-links", "promo", "https://example.com/brand");
    expect(brand.status).toBe(201);
    expect(await both(b, "promo", "https://example.com/main", "https://example.com/brand")).toBeLessThan(FOLLOW_MS);
    expect(await both(a, "promo", "https://example.com/main", "https://example.com/brand")).toBeLessThan(FOLLOW_MS);
    const { id } = (await main.json()) as { id: number };
    expect((await fetch(`${a.base}/api/links/${id}`, { method: "DELETE", headers: { cookie } })).status).toBeLessThan(300);
    expect(await both(b, "promo", "https://example.com/brand", "https://example.com/brand")).toBeLessThan(FOLLOW_MS);
  });

  test("created on A while every listener is paused: B's miss lookup finds each tracker's link for its host", async () => {
    expect(await targetOn(b, "late")).toBe(404);
    const pids = ((await admin`SELECT pid FROM pg_stat_activity WHERE query = 'LISTEN "threadlink_links"'`) as { pid: number }[]).map((r) => r.pid);
    expect(pids.length).toBe(2);
    for (const pid of pids) process.kill(pid, "SIGSTOP");
    try {
      expect((await create("/api/links", "late", "https://example.com/late-main")).status).toBe(201);
      expect((await create("/api/pic-drift-links", "late", "https://example.com/late-brand")).status).toBe(201);
      expect(await targetOn(b, "late", BRAND)).toBe("https://example.com/late-brand");
      expect(await targetOn(b, "late")).toBe("https://example.com/late-main");
    } finally {
      for (const pid of pids) process.kill(pid, "SIGCONT");
      await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid IN ${admin(pids)}`;
    }
  });

  test("the same code twice in one tracker is refused on either instance; the database holds one row a tracker", async () => {
    const again = await fetch(`${b.base}/api/pic-drift-links`, { method: "POST", ...json({ originalUrl: "https://example.com/x", title: "x", shortCode: "late" }, cookie) });
    expect(again.status).toBe(409);
    const rows = (await admin`SELECT tracker FROM short_links WHERE short_code = 'late' ORDER BY tracker`) as { tracker: string }[];
    expect(rows.map((r) => r.tracker)).toEqual(["brand", "main"]);
  });
});

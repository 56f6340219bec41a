// The redirect map loaded in two halves, one of them packed on another thread (mapPack.ts),
// must answer exactly as the map loaded row by row.
import { describe, expect, test } from "bun:test";
import { createApp } from "../app";
import { ORIGIN, setup } from "../test/helpers";
import { REDIRECT_SPLIT_MIN } from "./service";
import { type CachedLink, RedirectMap, hrefOf } from "./redirectMap";
import { keyOf, packBuffers, packRows } from "./mapPack";
import type { PlainRedirectRow } from "./store";

const row = (id: number, extra: Partial<PlainRedirectRow> = {}): PlainRedirectRow => ({
  id,
  tracker: "main",
  short_code: `c${id.toString(36)}`,
  original_url: `https://shop${id % 7}.example.com/p/${id}?utm_source=news`,
  active: 1,
  expires_at: null,
  ...extra,
});

/** What the service's toCached makes of a plain row (null: not served). */
function cached(r: PlainRedirectRow): CachedLink | null {
  try {
    return { id: r.id, href: hrefOf(r.original_url), active: r.active === 1, expiresMs: r.expires_at ? Date.parse(r.expires_at) : null };
  } catch {
    return null;
  }
}

test("a map loaded half row by row, half from packs, answers as one loaded row by row; what a pack cannot hold comes back as rows", () => {
  const rows: PlainRedirectRow[] = [];
  for (let id = 1; id <= 6000; id++) {
    const k = id % 9;
    rows.push(
      row(id, {
        ...(k === 1 ? { tracker: "brand" as const } : {}),
        ...(k === 2 ? { active: 0 } : {}),
        ...(k === 3 ? { expires_at: new Date(1_800_000_000_000 + id).toISOString() } : {}),
        // Normalised by the parser on the way (upper-case host, a dot segment, a fragment).
        ...(k === 4 ? { original_url: `HTTPS://Shop.Example.com/a/../b/${id}#top` } : {}),
        ...(id % 500 === 5 ? { short_code: `café${id}` } : {}),
        ...(id % 500 === 6 ? { short_code: "x".repeat(256) + id } : {}),
        ...(id % 500 === 7 ? { original_url: "not a url" } : {}),
      }),
    );
  }
  const whole = new RedirectMap();
  for (const r of rows) {
    const c = cached(r);
    if (c) whole.add(keyOf(r.tracker, r.short_code), c);
  }

  const halves = new RedirectMap();
  halves.reserveFor(1000, 64_000);
  for (const r of rows.slice(0, 2400)) {
    const c = cached(r);
    if (c) halves.add(keyOf(r.tracker, r.short_code), c);
  }
  // Packed a page at a time, as the reader thread does, and moved as another thread gets them.
  const packs = [rows.slice(2400, 4400), rows.slice(4400)].map(packRows).map((p) => structuredClone(p, { transfer: packBuffers(p) }));
  const back: PlainRedirectRow[] = [];
  for (const p of packs) {
    halves.addPacked(p);
    for (const r of p.rows) {
      back.push(r);
      const c = cached(r);
      if (c) halves.add(keyOf(r.tracker, r.short_code), c);
    }
  }
  // Exactly the not-ASCII, the too long and the refused ones of that half.
  expect(back.map((r) => r.id).sort((a, b) => a - b)).toEqual(rows.slice(2400).filter((r) => r.id % 500 >= 5 && r.id % 500 <= 7).map((r) => r.id));
  halves.trim();

  expect(halves.size).toBe(whole.size);
  for (const r of rows) {
    const key = keyOf(r.tracker, r.short_code);
    expect(halves.get(key)).toEqual(whole.get(key));
  }
  // A brand link's key is its code behind a space (row 1 is a brand link): not the main tracker's.
  expect(halves.get(` ${rows[0]!.short_code}`)?.id).toBe(1);
  expect(halves.get(rows[0]!.short_code)).toBeUndefined();
  expect(halves.get("nothing")).toBeUndefined();
  // Still a map like any other afterwards: changes, deletes and growth past the load.
  halves.set(keyOf("main", rows[4999]!.short_code), { id: 4999, href: "https://changed.example/", active: true, expiresMs: null });
  expect(halves.get(keyOf("main", rows[4999]!.short_code))?.href).toBe("https://changed.example/");
  expect(halves.delete(keyOf(rows[5000]!.tracker, rows[5000]!.short_code))).toBe(true);
  for (let id = 10_000; id < 20_000; id++) halves.add(`n${id}`, { id, href: `https://n.example/${id}`, active: true, expiresMs: null });
  expect(halves.get("n19999")?.id).toBe(19_999);
  expect(halves.get(keyOf(rows[4200]!.tracker, rows[4200]!.short_code))).toEqual(whole.get(keyOf(rows[4200]!.tracker, rows[4200]!.short_code)));
});

describe("a restart with more links than REDIRECT_SPLIT_MIN", () => {
  test("every link answers from the new map, the upper ids packed on the reader thread: plain, brand, inactive, and a limited link at its limit", async () => {
    const t = await setup();
    const alice = await t.signUp("alice");
    const userId = (await t.database.get<{ id: number }>("SELECT id FROM users WHERE username = 'alice'"))!.id;
    const now = new Date().toISOString();
    const n = REDIRECT_SPLIT_MIN + 5000;
    const rows = t.database.dialect === "sqlite" ? `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${n}) SELECT i FROM s` : `SELECT i FROM generate_series(1, ${n}) AS i`;
    await t.database.run(
      `INSERT INTO short_links (user_id, tracker, short_code, original_url, title, created_at, updated_at)
       SELECT ?, 'main', 'bulk' || i, 'https://example.com/bulk/' || i, 'Bulk ' || i, ?, ? FROM (${rows}) AS s`,
      userId, now, now,
    );
    // The last ids, in the packed half: a brand link, a switched-off one, and one limited to a click, clicked.
    await t.database.run("INSERT INTO short_links (user_id, tracker, short_code, original_url, title, created_at, updated_at) VALUES (?, 'brand', 'brandy', 'https://example.com/brandy', 'b', ?, ?)", userId, now, now);
    await t.database.run("UPDATE short_links SET active = 0 WHERE short_code = ?", `bulk${n - 1}`);
    const limited = await t.call("POST", "/api/links", { body: { originalUrl: "https://example.com/limited", title: "limited", shortCode: "limited" }, cookie: alice.cookie });
    expect(limited.status).toBe(201);
    expect((await t.call("PUT", `/api/links/${limited.json.id}/smart`, { body: { maxClicks: 1 }, cookie: alice.cookie })).status).toBe(200);
    expect((await t.call("GET", "/limited")).status).toBe(302);
    await t.settle();
    // A password on one of the first links (the request thread's own half) and a rule on one of
    // the packed half: read apart from the plain pages (smartForRedirect), never served as plain.
    const ids = await t.database.all<{ id: number }>("SELECT id FROM short_links WHERE short_code IN ('bulk2', ?) ORDER BY id", `bulk${n - 2}`);
    for (const [id, body] of [[ids[0]!.id, { password: "open sesame" }], [ids[1]!.id, { rules: [{ name: "iPhone", when: { os: ["ios"] }, url: "https://apps.example.com/ios" }] }]] as const) {
      expect((await t.call("PUT", `/api/links/${id}/smart`, { body, cookie: alice.cookie })).status).toBe(200);
    }

    const reader = t.database.reader!;
    const real = reader.packLinks.bind(reader);
    const asked: [number, number][] = [];
    reader.packLinks = (after, upTo) => {
      asked.push([after, upTo]);
      return real(after, upTo);
    };
    const { app, ctx } = await createApp({ db: t.database, config: t.config });
    try {
      expect(asked).toHaveLength(1);
      const get = (path: string) => app.handle(new Request(`${ORIGIN}${path}`, { headers: { host: "localhost:3000" } }));
      for (const i of [1, 3, Math.floor(n / 2), Math.floor(n / 2) + 1, n - 2, n]) {
        const r = await get(`/bulk${i}`);
        expect(r.status).toBe(302);
        expect(r.headers.get("location")).toBe(`https://example.com/bulk/${i}`);
      }
      // The protected link asks for its password; the ruled one sends an iPhone to its app.
      const page = await get("/bulk2");
      expect(page.status).toBe(200);
      expect(page.headers.get("location")).toBeNull();
      expect(await page.text()).toContain("password");
      const iphone = await app.handle(new Request(`${ORIGIN}/bulk${n - 2}`, { headers: { host: "localhost:3000", "user-agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1" } }));
      expect(iphone.headers.get("location")).toBe("https://apps.example.com/ios");
      expect((await get(`/bulk${n - 1}`)).status).toBe(410);
      expect((await get("/bulk0")).status).toBe(404);
      expect((await get("/brandy")).headers.get("location")).toBe("https://example.com/brandy");
      // Its one click counted before the restart: the limit holds after it.
      expect((await get("/limited")).status).toBe(410);
    } finally {
      reader.packLinks = real;
      for (const hook of ctx.shutdownHooks) await hook();
    }
    // A reader thread that fails leaves its half to the request thread: still every link.
    reader.packLinks = () => Promise.reject(new Error("the reader thread failed"));
    const again = await createApp({ db: t.database, config: t.config });
    try {
      const get = (path: string) => again.app.handle(new Request(`${ORIGIN}${path}`, { headers: { host: "localhost:3000" } }));
      expect((await get(`/bulk${n}`)).headers.get("location")).toBe(`https://example.com/bulk/${n}`);
      expect((await get("/brandy")).headers.get("location")).toBe("https://example.com/brandy");
      expect((await get("/limited")).status).toBe(410);
    } finally {
      reader.packLinks = real;
      for (const hook of again.ctx.shutdownHooks) await hook();
    }
  });
});

// One code in each tracker (issue 23: the same code on two Shlink domains). With the brand
// tracker on a host of its own, a code is unique per tracker: `promo` on the app's host and
// `promo` on the brand host are two links, each redirected on its host, and a code only one
// tracker has is still answered on either host. Without a host of its own, a code names one link
// across both, as before. Runs on PostgreSQL too with TEST_BACKEND=postgres.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ORIGIN, setup } from "../test/helpers";
import { MSG } from "./schema";

const BRAND = "go.brand.example";
const APP = "localhost:3000";
const fixture = (name: string) => Bun.file(join(import.meta.dir, "fixtures", name)).text();

/** Shaped exactly like Shlink's web-client export, `promo` on two of its domains. */
const TWO_DOMAINS = [
  "createdAt,domain,shortCode,shortUrl,longUrl,title,tags,visits",
  "2024-03-02T10:15:31+00:00,a.example,promo,https://a.example/promo,https://shop.example.com/a,Promo on a,promo|seasonal,318",
  "2024-03-03T10:15:31+00:00,b.example,promo,https://b.example/promo,https://shop.example.com/b,Promo on b,promo,12",
  "2024-03-04T10:15:31+00:00,b.example,only-b,https://b.example/only-b,https://shop.example.com/only-b,Only on b,,0",
].join("\r\n");

type T = Awaited<ReturnType<typeof setup>>;

const importFile = async (t: T, cookie: string, body: string, query = "") => {
  const res = await t.app.handle(new Request(`${ORIGIN}/api/links/import${query}`, { method: "POST", headers: { host: APP, cookie, "content-type": "text/csv" }, body }));
  return { status: res.status, json: await res.json() };
};
const follow = (t: T, path: string, host: string) => t.call("GET", path, { headers: { host } });
const make = (t: T, cookie: string, api: string, shortCode: string, dest = `https://example.com/${api.includes("pic") ? "brand" : "main"}/${shortCode}`) =>
  t.call("POST", api, { body: { originalUrl: dest, title: shortCode, shortCode }, cookie });
const rows = (t: T, code: string) => t.database.all<{ id: number; tracker: string; original_url: string }>("SELECT id, tracker, original_url FROM short_links WHERE short_code = ? ORDER BY tracker", code);

describe("the brand tracker on a host of its own: a code per tracker", async () => {
  const t = await setup({ BRAND_DOMAIN: BRAND });
  const alice = await t.signUp("alice");
  const bob = await t.signUp("bob");

  test("a Shlink export with one code on two domains, mapped to two trackers, imports both; each redirects on its host", async () => {
    const r = await importFile(t, alice.cookie, TWO_DOMAINS, "?brandDomains=b.example");
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ format: "shlink", imported: 3, skipped: 0 });
    expect(r.json.results.map((x: { shortUrl: string }) => x.shortUrl)).toEqual([`http://${APP}/promo`, `http://${BRAND}/promo`, `http://${BRAND}/only-b`]);
    expect(await rows(t, "promo")).toEqual([
      expect.objectContaining({ tracker: "brand", original_url: "https://shop.example.com/b" }),
      expect.objectContaining({ tracker: "main", original_url: "https://shop.example.com/a" }),
    ]);
    expect((await follow(t, "/promo", APP)).headers.get("location")).toBe("https://shop.example.com/a");
    expect((await follow(t, "/promo", BRAND)).headers.get("location")).toBe("https://shop.example.com/b");
    expect((await follow(t, "/l/promo", BRAND.toUpperCase())).headers.get("location")).toBe("https://shop.example.com/b");
    // A code one tracker has is answered on either host, as before: no printed link changes.
    expect((await follow(t, "/only-b", BRAND)).headers.get("location")).toBe("https://shop.example.com/only-b");
    expect((await follow(t, "/only-b", APP)).headers.get("location")).toBe("https://shop.example.com/only-b");
    // The lookup by code answers each tracker's own link; tags and visits kept on both.
    const main = await t.call("GET", "/api/links/lookup?code=promo", { cookie: alice.cookie });
    const brand = await t.call("GET", "/api/pic-drift-links/lookup?code=promo", { cookie: alice.cookie });
    expect(main.json).toMatchObject({ originalUrl: "https://shop.example.com/a", shortUrl: `http://${APP}/promo`, tags: ["promo", "seasonal"], importedClicks: 318 });
    expect(brand.json).toMatchObject({ originalUrl: "https://shop.example.com/b", shortUrl: `http://${BRAND}/promo`, tags: ["promo"], importedClicks: 12 });
    // Imported again: each is taken in its own tracker now.
    const again = await importFile(t, alice.cookie, TWO_DOMAINS, "?brandDomains=b.example");
    expect(again.json).toMatchObject({ imported: 0, skipped: 3 });
    expect(again.json.results[1].error).toMatchObject({ code: "CONFLICT", fields: { shortCode: MSG.codeTaken } });
  });

  test("the fixture's Shlink web-client export into the brand tracker keeps codes the Link Tracker already has", async () => {
    const file = await fixture("shlink.csv");
    const first = await importFile(t, bob.cookie, file);
    expect(first.json.skipped).toBe(0);
    const second = await importFile(t, bob.cookie, file, "?brandDomains=s.example.com,default");
    expect(second.json).toMatchObject({ imported: first.json.imported, skipped: 0 });
    for (const code of ["q4Xf2", "meetup-feb", "xmas"]) expect((await rows(t, code)).map((r) => r.tracker)).toEqual(["brand", "main"]);
  });

  test("create refuses a code taken in its own tracker and accepts one the other tracker has", async () => {
    expect((await make(t, bob.cookie, "/api/links", "both-sides")).status).toBe(201);
    const brand = await make(t, bob.cookie, "/api/pic-drift-links", "both-sides");
    expect(brand.status).toBe(201);
    expect(brand.json.shortUrl).toBe(`http://${BRAND}/both-sides`);
    for (const api of ["/api/links", "/api/pic-drift-links"]) {
      const again = await make(t, alice.cookie, api, "both-sides");
      expect(again.status, api).toBe(409);
      expect(again.json.error).toMatchObject({ code: "CONFLICT", fields: { shortCode: MSG.codeTaken } });
    }
    expect((await rows(t, "both-sides")).length).toBe(2);
    // Bulk: the same rules, item by item.
    const bulk = await t.call("POST", "/api/links/bulk", { body: { links: [{ originalUrl: "https://example.com/x", title: "x", shortCode: "both-sides" }] }, cookie: alice.cookie });
    expect(bulk.json.results[0]).toMatchObject({ status: "refused", error: { code: "CONFLICT" } });
    // …and writes a code the brand tracker alone has.
    await make(t, bob.cookie, "/api/pic-drift-links", "brand-first");
    const bulk2 = await t.call("POST", "/api/links/bulk", { body: { links: [{ originalUrl: "https://example.com/bulk", title: "bulk", shortCode: "brand-first" }] }, cookie: alice.cookie });
    expect(bulk2.json.results[0]).toMatchObject({ status: "created" });
    expect((await follow(t, "/brand-first", APP)).headers.get("location")).toBe("https://example.com/bulk");
    expect((await follow(t, "/both-sides", APP)).headers.get("location")).toBe("https://example.com/main/both-sides");
    expect((await follow(t, "/both-sides", BRAND)).headers.get("location")).toBe("https://example.com/brand/both-sides");
  });

  test("edit refuses a code taken in the link's tracker and accepts one the other tracker has; the old code stops redirecting", async () => {
    await make(t, alice.cookie, "/api/links", "main-only");
    await make(t, alice.cookie, "/api/pic-drift-links", "brand-held");
    const l = (await make(t, alice.cookie, "/api/pic-drift-links", "brand-edit")).json;
    const put = (shortCode: string) => t.call("PUT", `/api/pic-drift-links/${l.id}`, { body: { originalUrl: "https://example.com/edited", title: "Edited", shortCode }, cookie: alice.cookie });
    const taken = await put("brand-held");
    expect(taken.status).toBe(409);
    expect(taken.json.error.fields).toEqual({ shortCode: MSG.codeTaken });
    const ok = await put("main-only");
    expect(ok.status).toBe(200);
    expect(ok.json.shortUrl).toBe(`http://${BRAND}/main-only`);
    expect((await follow(t, "/main-only", BRAND)).headers.get("location")).toBe("https://example.com/edited");
    expect((await follow(t, "/main-only", APP)).headers.get("location")).toBe("https://example.com/main/main-only");
    expect((await follow(t, "/brand-edit", BRAND)).status).toBe(404);
    // PATCH on the Link Tracker: a code the brand tracker alone has is free there.
    const m = (await make(t, alice.cookie, "/api/links", "main-patch")).json;
    const patched = await t.call("PATCH", `/api/links/${m.id}`, { body: { shortCode: "brand-held" }, cookie: alice.cookie });
    expect(patched.status).toBe(200);
    expect((await follow(t, "/brand-held", APP)).headers.get("location")).toBe("https://example.com/main/main-patch");
    expect((await follow(t, "/brand-held", BRAND)).headers.get("location")).toBe("https://example.com/brand/brand-held");
  });

  test("a delete removes its tracker's link only; the other tracker's link then answers on both hosts", async () => {
    const main = (await make(t, alice.cookie, "/api/links", "twice")).json;
    await make(t, alice.cookie, "/api/pic-drift-links", "twice");
    expect((await t.call("DELETE", `/api/links/${main.id}`, { cookie: alice.cookie })).status).toBe(200);
    expect((await follow(t, "/twice", APP)).headers.get("location")).toBe("https://example.com/brand/twice");
    expect((await follow(t, "/twice", BRAND)).headers.get("location")).toBe("https://example.com/brand/twice");
  });

  test("the brand root link's code is free in the Link Tracker; the bare brand host still goes through the root link", async () => {
    const r = await make(t, bob.cookie, "/api/links", "root");
    expect(r.status).toBe(201);
    expect((await follow(t, "/root", APP)).headers.get("location")).toBe("https://example.com/main/root");
    const home = await follow(t, "/", BRAND);
    expect(home.status).toBe(302);
    expect(home.headers.get("location")).not.toBe("https://example.com/main/root");
    expect((await follow(t, "/root", BRAND)).headers.get("location")).toBe(home.headers.get("location"));
    // The brand tracker's own "root" is the root link's: taken there.
    expect((await make(t, bob.cookie, "/api/pic-drift-links", "root")).status).toBe(409);
  });

  test("another user's link with the code: the lookup is 404 for them, and nothing changes", async () => {
    const before = await rows(t, "promo");
    expect((await t.call("GET", "/api/pic-drift-links/lookup?code=promo", { cookie: bob.cookie })).status).toBe(404);
    expect((await t.call("GET", "/api/links/lookup?code=promo", { cookie: bob.cookie })).status).toBe(404);
    expect(await rows(t, "promo")).toEqual(before);
  });
});

describe("no brand host of its own: a code names one link across both trackers, as before", async () => {
  const t = await setup({ SHORT_DOMAIN: "go.example" });
  const carol = await t.signUp("carol");

  test("the same code on two Shlink domains imports once; the second is reported taken", async () => {
    const r = await importFile(t, carol.cookie, TWO_DOMAINS, "?brandDomains=b.example");
    expect(r.json).toMatchObject({ imported: 2, skipped: 1 });
    expect(r.json.results[1]).toMatchObject({ row: 3, status: "skipped", error: { code: "CONFLICT", fields: { shortCode: MSG.codeTaken } } });
    expect((await rows(t, "promo")).map((x) => x.tracker)).toEqual(["main"]);
  });

  test("create and edit refuse a code the other tracker has", async () => {
    expect((await make(t, carol.cookie, "/api/links", "one-only")).status).toBe(201);
    const brand = await make(t, carol.cookie, "/api/pic-drift-links", "one-only");
    expect(brand.status).toBe(409);
    const b = (await make(t, carol.cookie, "/api/pic-drift-links", "brand-side")).json;
    const edit = await t.call("PUT", `/api/pic-drift-links/${b.id}`, { body: { originalUrl: "https://example.com/e", title: "E", shortCode: "one-only" }, cookie: carol.cookie });
    expect(edit.status).toBe(409);
    expect((await rows(t, "one-only")).map((x) => x.tracker)).toEqual(["main"]);
    // Bulk (the Link Tracker's): a code the brand tracker has is taken.
    const bulk = await t.call("POST", "/api/links/bulk", { body: { links: [{ originalUrl: "https://example.com/x", title: "x", shortCode: "brand-side" }] }, cookie: carol.cookie });
    expect(bulk.json.results[0]).toMatchObject({ status: "refused", error: { code: "CONFLICT", fields: { shortCode: MSG.codeTaken } } });
    expect((await rows(t, "brand-side")).map((x) => x.tracker)).toEqual(["brand"]);
  });

  test("a code both trackers hold (written while the brand host was its own): each link can still be edited, and every host serves the Link Tracker's", async () => {
    const main = (await make(t, carol.cookie, "/api/links", "held-twice")).json;
    const now = new Date().toISOString();
    await t.database.run(
      "INSERT INTO short_links (user_id, tracker, short_code, original_url, title, created_at, updated_at) VALUES (?, 'brand', 'held-twice', 'https://example.com/brand/held-twice', 'b', ?, ?)",
      carol.user.id, now, now,
    );
    const brandId = (await rows(t, "held-twice")).find((r) => r.tracker === "brand")!.id;
    const edit = await t.call("PUT", `/api/pic-drift-links/${brandId}`, { body: { originalUrl: "https://example.com/brand/edited", title: "Edited", shortCode: "held-twice" }, cookie: carol.cookie });
    expect(edit.status).toBe(200);
    const editMain = await t.call("PATCH", `/api/links/${main.id}`, { body: { title: "Main edited", shortCode: "held-twice" }, cookie: carol.cookie });
    expect(editMain.status).toBe(200);
    expect((await follow(t, "/held-twice", APP)).headers.get("location")).toBe("https://example.com/main/held-twice");
    expect((await follow(t, "/held-twice", "go.example")).headers.get("location")).toBe("https://example.com/main/held-twice");
  });
});

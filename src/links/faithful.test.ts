// Imports faithful to the real tools' exports (issue 23 item 5): the codes the source issued
// are kept when safe (YOURLS's 1–2 character keywords, Shlink's multi-segment slugs, redirected
// at the same path), phpMyAdmin's bare NULL is empty, and tags, creation dates and the
// source's visit counts are kept (the visits apart from our own clicks). Files in fixtures/.
// Runs on PostgreSQL too with TEST_BACKEND=postgres.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ORIGIN, setup } from "../test/helpers";
import { IMPORT_MSG } from "../shared/csvImport";
import { MSG } from "./schema";

const t = await setup({ SHORT_DOMAIN: "go.example" });
const alice = await t.signUp("alice");
const fixture = (name: string) => Bun.file(join(import.meta.dir, "fixtures", name)).text();

async function importCsv(body: string, cookie = alice.cookie) {
  const res = await t.app.handle(new Request(`${ORIGIN}/api/links/import`, { method: "POST", headers: { host: "localhost:3000", cookie, "content-type": "text/csv" }, body }));
  return { status: res.status, json: await res.json() };
}
const lookup = async (code: string) => (await t.call("GET", `/api/links/lookup?code=${encodeURIComponent(code)}`, { cookie: alice.cookie })).json;
const row = (code: string) => t.database.get<Record<string, unknown>>("SELECT created_at, imported_clicks FROM short_links WHERE short_code = ?", code);
const follow = (path: string) => t.call("GET", path);

describe("YOURLS, as phpMyAdmin exports yourls_url", () => {
  test("1–2 character keywords kept, a reserved one refused, NULL read as empty, timestamps and clicks kept", async () => {
    const r = await importCsv(await fixture("yourls-phpmyadmin.csv"));
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ format: "yourls", rows: 5, imported: 4, skipped: 1 });
    expect(r.json.results.map((x: { row: number; status: string; shortCode?: string; note?: string }) => [x.row, x.status, x.shortCode ?? null, x.note ?? null])).toEqual([
      [2, "imported", "1", IMPORT_MSG.titleFilled],
      [3, "imported", "ab", null],
      [4, "skipped", null, null],
      [5, "imported", "ozh", null],
      [6, "imported", "null-text", null],
    ]);
    expect(r.json.results[2].error).toMatchObject({ code: "VALIDATION", fields: { shortCode: MSG.codeReserved } });
    // The bare NULL title is empty (so the address stands in), not the word "NULL".
    expect((await lookup("1")).title).toBe("example.com/one");
    expect((await lookup("null-text")).title).toBe("NULL-ish but real");
    // The source's count apart from ours; its creation time kept (MySQL's local time read as UTC).
    expect(await lookup("ozh")).toMatchObject({ importedClicks: 1207, clickCount: 0, createdAt: "2009-08-28T20:21:19.000Z" });
    expect(await row("ab")).toEqual({ created_at: "2012-01-02T10:30:00.000Z", imported_clicks: 12 });
    // Printed short links keep working.
    expect((await follow("/1")).headers.get("location")).toBe("https://example.com/one");
    expect((await follow("/ab")).headers.get("location")).toBe("https://example.com/ab");
    expect((await follow("/l")).status).toBe(302);
    expect((await follow("/l")).headers.get("location")).toBe("/");
  });
});

describe("Shlink", () => {
  test("web-client export: multi-segment slugs redirected at their own path, tags, dates and visits kept, a slug under an app word refused", async () => {
    const r = await importCsv(await fixture("shlink-web-client.csv"));
    expect(r.json).toMatchObject({ format: "shlink", rows: 4, imported: 3, skipped: 1 });
    expect(r.json.results[3]).toMatchObject({ row: 5, status: "skipped", error: { fields: { shortCode: MSG.codeReserved } } });
    expect(await lookup("promo/spring")).toMatchObject({
      shortUrl: "http://go.example/promo/spring",
      tags: ["promo", "seasonal"],
      importedClicks: 318,
      createdAt: "2024-03-02T10:15:31.000Z",
    });
    expect(await lookup("b8")).toMatchObject({ importedClicks: 52 });
    const spring = await follow("/promo/spring");
    expect(spring.status).toBe(302);
    expect(spring.headers.get("location")).toBe("https://shop.example.com/spring");
    expect((await follow("/docs/v2/start")).headers.get("location")).toBe("https://docs.example.com/v2/start");
    // Neither a part of a slug nor an unknown deeper path is a link: the app's own 404 page.
    for (const path of ["/promo", "/promo/spring/extra", "/promo/Spring"]) {
      const miss = await follow(path);
      expect(miss.status, path).not.toBe(302);
    }
    // Reserved first parts stay the app's (the API answers JSON, pages are the web app).
    expect((await follow("/api/keys")).headers.get("content-type")).toContain("application/json");
  });

  test("CLI table export (Short Code, Title, Short URL, Long URL, Date created, Visits count, Tags)", async () => {
    const r = await importCsv(await fixture("shlink-cli.csv"));
    expect(r.json).toMatchObject({ format: "shlink", rows: 2, imported: 2, skipped: 0 });
    expect(await lookup("summer/sale")).toMatchObject({ tags: ["campaign", "summer"], importedClicks: 1042, createdAt: "2024-06-01T07:00:00.000Z", title: "Summer sale" });
    expect(await lookup("x9")).toMatchObject({ importedClicks: 0, title: "example.com/x9" });
    expect((await follow("/summer/sale")).headers.get("location")).toBe("https://shop.example.com/summer");
  });
});

describe("what an import keeps goes back out", () => {
  test("the exports carry importedClicks and the source's createdAt; a plain CSV with them imports them back", async () => {
    const csv = await t.call("GET", "/api/links/export.csv", { cookie: alice.cookie });
    expect(csv.text.split("\r\n")[0]).toBe("code,url,title,description,expiresAt,clicks,shortUrl,active,createdAt,updatedAt,tags,importedClicks,smart");
    const other = await setup({ SHORT_DOMAIN: "go.example" });
    const bob = await other.signUp("bob");
    const res = await other.app.handle(new Request(`${ORIGIN}/api/links/import`, { method: "POST", headers: { host: "localhost:3000", cookie: bob.cookie, "content-type": "text/csv" }, body: csv.text }));
    const report = await res.json();
    expect(report.skipped).toBe(0);
    const theirs = (await other.call("GET", `/api/links/lookup?code=${encodeURIComponent("promo/spring")}`, { cookie: bob.cookie })).json;
    expect(theirs).toMatchObject({ importedClicks: 318, createdAt: "2024-03-02T10:15:31.000Z", tags: ["promo", "seasonal"] });
  });

  test("a create through the API still refuses 1–2 character and multi-segment codes", async () => {
    for (const shortCode of ["ab", "promo/autumn"]) {
      const r = await t.call("POST", "/api/links", { body: { originalUrl: "https://example.com/z", title: "Z", shortCode }, cookie: alice.cookie });
      expect(r.status, shortCode).toBe(400);
      expect(r.json.error.fields).toHaveProperty("shortCode");
    }
  });
});

describe("Shlink domains → trackers", () => {
  test("brandDomains sends the links of the Shlink domains named to the brand tracker, the rest to the Link Tracker", async () => {
    const carol = await t.signUp("carol");
    const file = [
      "createdAt,domain,shortCode,shortUrl,longUrl,title,tags,visits",
      "2024-01-01T00:00:00+00:00,brand.example,brand-one,https://brand.example/brand-one,https://example.com/b1,Brand one,,5",
      "2024-01-01T00:00:00+00:00,,default-one,https://s.example/default-one,https://example.com/d1,Default one,,6",
      "2024-01-01T00:00:00+00:00,other.example,other-one,https://other.example/other-one,https://example.com/o1,Other one,,7",
    ].join("\r\n");
    const send = async (query: string) => {
      const res = await t.app.handle(new Request(`${ORIGIN}/api/links/import${query}`, { method: "POST", headers: { host: "localhost:3000", cookie: carol.cookie, "content-type": "text/csv" }, body: file }));
      return { status: res.status, json: await res.json() };
    };
    const r = await send("?brandDomains=Brand.Example,%20default");
    expect(r.json).toMatchObject({ imported: 3, skipped: 0 });
    const tracker = async (code: string) => (await t.database.get<{ tracker: string }>("SELECT tracker FROM short_links WHERE short_code = ?", code))!.tracker;
    expect(await tracker("brand-one")).toBe("brand");
    expect(await tracker("default-one")).toBe("brand");
    expect(await tracker("other-one")).toBe("main");
    expect(r.json.results[0].shortUrl).toMatch(/\/brand-one$/);
    // A bad value is a 400 on the parameter, nothing written.
    const bad = await send(`?brandDomains=${encodeURIComponent("<script>")}`);
    expect(bad.status).toBe(400);
    expect(bad.json.error.fields).toHaveProperty("brandDomains");
  });
});

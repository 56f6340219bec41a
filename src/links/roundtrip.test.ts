// Round trips (issue 23 item 4): what an export writes imports back unchanged, CSV and JSON,
// and bulk create takes 1,000 links shaped like the JSON export's. Runs on PostgreSQL too with
// TEST_BACKEND=postgres.
import { describe, expect, test } from "bun:test";
import { ORIGIN, setup } from "../test/helpers";
import { BULK_MAX_VALUES } from "./schema";

const t = await setup({ SHORT_DOMAIN: "go.example" });
const alice = await t.signUp("alice");

async function importFile(app: typeof t, cookie: string, body: string, type: string) {
  const res = await app.app.handle(new Request(`${ORIGIN}/api/links/import`, { method: "POST", headers: { host: "localhost:3000", cookie, "content-type": type }, body }));
  return { status: res.status, json: await res.json() };
}

type Link = { shortCode: string; originalUrl: string; title: string; description: string | null; expiresAt: string | null; tags: string[] };
const shape = (links: Link[]) =>
  links.map(({ shortCode, originalUrl, title, description, expiresAt, tags }) => ({ shortCode, originalUrl, title, description, expiresAt, tags })).sort((a, b) => a.shortCode.localeCompare(b.shortCode));
const all = async (app: typeof t, cookie: string) => (await app.call("GET", "/api/links?limit=1000", { cookie })).json as Link[];

// Titles a spreadsheet would run, titles that already look guarded, and plain ones.
const TITLES = ["'=already quoted", "=1+2", "''+twice", "-minus", "@at", "'hello", "plain, with a comma", 'say "hi"', "+'=mixed"];
const made = await t.call("POST", "/api/links/bulk", {
  body: {
    links: TITLES.map((title, i) => ({
      originalUrl: `https://example.com/${i}`,
      title,
      shortCode: `rt-${i}`,
      description: i % 2 ? `'=desc ${i}` : "",
      tags: i % 3 ? ["round", `t${i}`] : [],
      expiresAt: i === 1 ? "2099-01-01T00:00:00.000Z" : "",
    })),
  },
  cookie: alice.cookie,
});

describe("round trips", () => {
  test("the links to send back were all made", () => {
    expect(made.json.created).toBe(TITLES.length);
  });

  test("CSV: export, import into another instance: the same links, apostrophes and formulas exact", async () => {
    const csv = await t.call("GET", "/api/links/export.csv", { cookie: alice.cookie });
    // The guard is on in the file: a spreadsheet runs none of them.
    expect(csv.text).toContain("''=already quoted");
    expect(csv.text).toContain("'=1+2");
    const other = await setup({ SHORT_DOMAIN: "go.example" });
    const bob = await other.signUp("bob");
    const r = await importFile(other, bob.cookie, csv.text, "text/csv");
    expect(r.json).toMatchObject({ format: "plain", skipped: 0, imported: TITLES.length });
    expect(shape(await all(other, bob.cookie))).toEqual(shape(await all(t, alice.cookie)));
    expect((await all(other, bob.cookie)).find((l) => l.shortCode === "rt-0")!.title).toBe("'=already quoted");
  });

  test("JSON: the export imports as it is into another instance: the same links", async () => {
    const json = await t.call("GET", "/api/links/export.json", { cookie: alice.cookie });
    const other = await setup({ SHORT_DOMAIN: "go.example" });
    const carol = await other.signUp("carol");
    const r = await importFile(other, carol.cookie, json.text, "application/json");
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ format: "json", skipped: 0, imported: TITLES.length });
    expect(r.json.results[0]).toMatchObject({ row: 1, status: "imported" });
    expect(shape(await all(other, carol.cookie))).toEqual(shape(await all(t, alice.cookie)));
    // Again: every code is now taken, each link reported skipped with its row.
    const again = await importFile(other, carol.cookie, json.text, "application/json");
    expect(again.json).toMatchObject({ imported: 0, skipped: TITLES.length });
    expect(again.json.results[0]).toMatchObject({ row: 1, status: "skipped", error: { code: "CONFLICT" } });
  });

  test("JSON import: a body that is not the export is a 400, a bad link a skipped row", async () => {
    for (const body of ['{"nope": 1}', "42", '"text"']) {
      const r = await importFile(t, alice.cookie, body, "application/json");
      expect(r.status, body).toBe(400);
    }
    expect((await importFile(t, alice.cookie, "{not json", "application/json")).status).toBe(400);
    const r = await importFile(t, alice.cookie, JSON.stringify([{ originalUrl: "javascript:alert(1)", title: "x" }, "not a link", { originalUrl: "https://example.com/ok", title: "OK" }]), "application/json");
    expect(r.json).toMatchObject({ imported: 1, skipped: 2 });
    expect(r.json.results.map((x: { row: number; status: string }) => [x.row, x.status])).toEqual([
      [1, "skipped"],
      [2, "skipped"],
      [3, "imported"],
    ]);
  });

  test("bulk takes 1,000 links shaped like the JSON export's (read-only fields and 20 tags each), within its stated limits", async () => {
    const dave = await t.signUp("dave");
    const tags = Array.from({ length: 20 }, (_, i) => `tag-${i}`);
    const links = Array.from({ length: 1000 }, (_, i) => ({
      shortCode: `bulk-rt-${i}`,
      shortUrl: `http://go.example/bulk-rt-${i}`,
      originalUrl: `https://example.com/page/${i}`,
      title: `Link ${i}`,
      description: null,
      clickCount: 12,
      active: true,
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
      expiresAt: null,
      tags,
    }));
    const body = JSON.stringify({ links });
    expect(body.length).toBeLessThan(1024 * 1024);
    const r = await t.call("POST", "/api/links/bulk", { body: { links }, cookie: dave.cookie });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ created: 1000, refused: 0 });
    // Past the stated bound of values: a clear 400 naming it.
    const wide = await t.call("POST", "/api/links/bulk", { body: { links: [{ originalUrl: "https://example.com", title: "x", tags: Array.from({ length: BULK_MAX_VALUES }, () => "a") }] }, cookie: dave.cookie });
    expect(wide.status).toBe(400);
    expect(wide.json.error.message).toContain(BULK_MAX_VALUES.toLocaleString("en"));
  });
});

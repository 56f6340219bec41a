// POST /api/links/bulk (issue 14): up to 1,000 links, each checked as one create is, each
// created whole or refused with its reason; the redirect map follows every created link.
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { HOSTILE, setup } from "../test/helpers";
import { BULK_MAX, BULK_MSG, BulkCreateResult, MSG } from "./schema";

const t = await setup({ SHORT_DOMAIN: "go.example" });
const alice = await t.signUp("alice");
const bob = await t.signUp("bob");
const BULK = "/api/links/bulk";

const links = () => t.count("short_links");
const location = async (code: string) => (await t.call("GET", `/${code}`)).headers.get("location");
const inOneHour = () => new Date(Date.now() + 3_600_000).toISOString();
const bulk = (items: unknown, cookie = alice.cookie) => t.call("POST", BULK, { body: { links: items } as never, cookie });

describe("POST /api/links/bulk", () => {
  test("creates every good item in order, with generated codes where none is given; each redirects at once", async () => {
    const expiresAt = inOneHour();
    const before = await links();
    const r = await bulk([
      { originalUrl: "https://example.com/one", title: "One", shortCode: "bulk-one" },
      { originalUrl: "https://example.com/two?x=1", title: "Two", description: "second" },
      { originalUrl: "https://example.com/three", title: "Three", shortCode: "bulk-three", expiresAt },
    ]);
    expect(r.status).toBe(200);
    expect(v.is(BulkCreateResult, r.json)).toBe(true);
    expect(r.json).toMatchObject({ created: 3, refused: 0 });
    const [one, two, three] = r.json.results;
    expect(one).toMatchObject({ index: 0, status: "created", link: { shortCode: "bulk-one", shortUrl: "http://go.example/bulk-one", originalUrl: "https://example.com/one", title: "One", clickCount: 0 } });
    expect(two).toMatchObject({ index: 1, status: "created", link: { originalUrl: "https://example.com/two?x=1", description: "second", expiresAt: null } });
    expect(two.link.shortCode).toMatch(/^[A-Za-z0-9_-]{7}$/);
    expect(three).toMatchObject({ index: 2, status: "created", link: { shortCode: "bulk-three", expiresAt } });
    expect(await links()).toBe(before + 3);
    expect(await location("bulk-one")).toBe("https://example.com/one");
    expect(await location(two.link.shortCode)).toBe("https://example.com/two?x=1");
    // The list shows them as the user's own.
    const list = await t.call("GET", "/api/links", { cookie: alice.cookie });
    expect(list.json.map((l: { shortCode: string }) => l.shortCode)).toEqual(expect.arrayContaining(["bulk-one", "bulk-three", two.link.shortCode]));
  });

  // Every rule of the single create, one refused item each, between good items that still go in.
  const refusedCases: [string, unknown, string, string | undefined][] = [
    ["not an object", "https://example.com", BULK_MSG.notObject, undefined],
    ["a list instead of an object", ["https://example.com", "x"], BULK_MSG.notObject, undefined],
    ["no destination", { title: "x" }, MSG.url, "originalUrl"],
    ["a destination that is not a URL", { originalUrl: "example com", title: "x" }, MSG.urlSpaces, "originalUrl"],
    ["a javascript: destination", { originalUrl: "javascript:alert(1)", title: "x" }, MSG.urlScheme, "originalUrl"],
    ["credentials in the destination", { originalUrl: "https://user:pw@example.com/", title: "x" }, MSG.urlCredentials, "originalUrl"],
    ["a destination on our own short domain", { originalUrl: "https://go.example/abc", title: "x" }, MSG.urlOwn, "originalUrl"],
    ["a destination over 2,048 characters", { originalUrl: `https://example.com/${"a".repeat(2100)}`, title: "x" }, MSG.urlLength, "originalUrl"],
    ["no title", { originalUrl: "https://example.com/x" }, MSG.title, "title"],
    ["a title over 100 characters", { originalUrl: "https://example.com/x", title: "t".repeat(101) }, MSG.titleLength, "title"],
    ["a NUL in the title", { originalUrl: "https://example.com/x", title: HOSTILE.nul }, "Title must not contain control characters", "title"],
    ["a description over 255 characters", { originalUrl: "https://example.com/x", title: "x", description: "d".repeat(256) }, MSG.description, "description"],
    ["a code under 3 characters", { originalUrl: "https://example.com/x", title: "x", shortCode: "ab" }, MSG.codeShort, "shortCode"],
    ["a code over 50 characters", { originalUrl: "https://example.com/x", title: "x", shortCode: "c".repeat(51) }, MSG.codeLong, "shortCode"],
    ["a code with a slash", { originalUrl: "https://example.com/x", title: "x", shortCode: "a/b/c" }, MSG.codeChars, "shortCode"],
    ["a reserved code", { originalUrl: "https://example.com/x", title: "x", shortCode: "link-tracker" }, MSG.codeReserved, "shortCode"],
    ["a reserved code in capitals", { originalUrl: "https://example.com/x", title: "x", shortCode: "API" }, MSG.codeReserved, "shortCode"],
    ["an expiry that is no date", { originalUrl: "https://example.com/x", title: "x", expiresAt: "soon" }, MSG.expires, "expiresAt"],
    ["an expiry in the past", { originalUrl: "https://example.com/x", title: "x", expiresAt: "2020-01-01T00:00:00Z" }, MSG.expiresPast, "expiresAt"],
    ["a title of the wrong type", { originalUrl: "https://example.com/x", title: 42 }, "Title must be text", "title"],
  ];

  test.each(refusedCases)("refuses an item with %s (VALIDATION, the create's message and field); its neighbours are created", async (_name, item, message, field) => {
    const before = await links();
    const tag = Math.random().toString(36).slice(2, 8);
    const r = await bulk([{ originalUrl: "https://example.com/a", title: "A", shortCode: `ok-a-${tag}` }, item, { originalUrl: "https://example.com/b", title: "B", shortCode: `ok-b-${tag}` }]);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ created: 2, refused: 1 });
    expect(r.json.results[1]).toEqual({ index: 1, status: "refused", error: { code: "VALIDATION", message, ...(field ? { fields: { [field]: message } } : {}) } });
    expect(await links()).toBe(before + 2);
  });

  test("a code taken by another user is refused as CONFLICT and their link is untouched; so is a code repeated within the request", async () => {
    const theirs = await t.call("POST", "/api/links", { body: { originalUrl: "https://bob.example/mine", title: "Bob's", shortCode: "bobs-code" }, cookie: bob.cookie });
    expect(theirs.status).toBe(201);
    const before = await links();
    const r = await bulk([
      { originalUrl: "https://example.com/steal", title: "Steal", shortCode: "bobs-code" },
      { originalUrl: "https://example.com/first", title: "First", shortCode: "twice-code" },
      { originalUrl: "https://example.com/second", title: "Second", shortCode: "twice-code" },
    ]);
    expect(r.status).toBe(200);
    const taken = { code: "CONFLICT", message: MSG.codeTaken, fields: { shortCode: MSG.codeTaken } };
    expect(r.json.results).toEqual([
      { index: 0, status: "refused", error: taken },
      expect.objectContaining({ index: 1, status: "created" }),
      { index: 2, status: "refused", error: taken },
    ]);
    expect(await links()).toBe(before + 1);
    expect(await t.database.get("SELECT user_id, original_url FROM short_links WHERE short_code = 'bobs-code'")).toEqual({ user_id: bob.user.id, original_url: "https://bob.example/mine" });
    expect(await location("bobs-code")).toBe("https://bob.example/mine");
    expect(await location("twice-code")).toBe("https://example.com/first");
  });

  test("1,000 items are accepted in one request; 1,001 are one clear 400 and nothing is written", async () => {
    const many = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ originalUrl: `https://example.com/${tag}/${i}`, title: `${tag} ${i}` }));
    let before = await links();
    const ok = await bulk(many(BULK_MAX, "thousand"));
    expect(ok.status).toBe(200);
    expect(ok.json.created).toBe(BULK_MAX);
    expect(await links()).toBe(before + BULK_MAX);
    before = await links();
    const over = await bulk(many(BULK_MAX + 1, "over"));
    expect(over.status).toBe(400);
    expect(over.json.error).toEqual({ code: "VALIDATION", message: BULK_MSG.tooMany, fields: { links: BULK_MSG.tooMany } });
    expect(await links()).toBe(before);
  });

  const badBodies: [string, unknown, number, string][] = [
    ["an empty list", { links: [] }, 400, BULK_MSG.empty],
    ["links that are not a list", { links: { originalUrl: "https://example.com" } }, 400, BULK_MSG.notList],
    ["no links at all", {}, 400, "links is required"],
  ];
  test.each(badBodies)("%s is a 400 with the reason, nothing written", async (_name, body, status, message) => {
    const before = await links();
    const r = await t.call("POST", BULK, { body: body as never, cookie: alice.cookie });
    expect(r.status).toBe(status);
    expect(r.json.error.message).toBe(message);
    expect(await links()).toBe(before);
  });

  test("hostile bodies: not signed in is 401, not JSON is 415, broken JSON is 400; nothing written", async () => {
    const before = await links();
    const anon = await t.call("POST", BULK, { body: { links: [{ originalUrl: "https://example.com", title: "x" }] } });
    expect(anon.status).toBe(401);
    const csv = await t.call("POST", BULK, { raw: "url,title\nhttps://example.com,x", cookie: alice.cookie, headers: { "content-type": "text/csv" } });
    expect(csv.status).toBe(415);
    const broken = await t.call("POST", BULK, { raw: '{"links": [', cookie: alice.cookie });
    expect(broken.status).toBe(400);
    expect(broken.json.error.code).toBe("BAD_REQUEST");
    expect(await links()).toBe(before);
  });

  test("hostile text is stored as plain data", async () => {
    const r = await bulk([{ originalUrl: "https://example.com/h", title: HOSTILE.script, description: HOSTILE.sql }, { originalUrl: "https://example.com/e", title: HOSTILE.emoji }]);
    expect(r.json.created).toBe(2);
    expect(r.json.results[0].link).toMatchObject({ title: HOSTILE.script, description: HOSTILE.sql });
    expect(r.json.results[1].link.title).toBe(HOSTILE.emoji);
    expect(await t.count("users")).toBe(2);
  });
});

// PUT /api/links/{id}: editing a Link Tracker link (issue 14); the short code too (issue 25, the spec's edit payload).
import { describe, expect, test } from "bun:test";
import { HOSTILE, setup } from "../test/helpers";

const t = await setup({ SHORT_DOMAIN: "go.example" });
const alice = await t.signUp("alice");
const bob = await t.signUp("bob");
const API = "/api/links";

const row = (id: number) => t.database.get<Record<string, unknown>>("SELECT * FROM short_links WHERE id = ?", id);
const location = async (code: string) => (await t.call("GET", `/${code}`)).headers.get("location");
const inOneHour = () => new Date(Date.now() + 3_600_000).toISOString();
let n = 0;

async function make(cookie: string, extra: Record<string, unknown> = {}) {
  const shortCode = `edit-${++n}-${Math.random().toString(36).slice(2, 7)}`;
  const r = await t.call("POST", API, { body: { originalUrl: `https://example.com/${shortCode}`, title: `Title ${shortCode}`, shortCode, ...extra }, cookie });
  if (r.status !== 201) throw new Error(r.text);
  return r.json as { id: number; shortCode: string; shortUrl: string; expiresAt: string | null };
}

const ok = { originalUrl: "https://example.org/new?x=1", title: "Edited", description: "now described" };

describe("PUT /api/links/{id}", () => {
  test("edits destination, title, description and expiry; the code and short URL stay; the very next redirect follows", async () => {
    const l = await make(bob.cookie);
    expect(await location(l.shortCode)).toBe(`https://example.com/${l.shortCode}`);
    const expiresAt = inOneHour();
    const r = await t.call("PUT", `${API}/${l.id}`, { body: { ...ok, expiresAt }, cookie: bob.cookie });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ ...ok, id: l.id, shortCode: l.shortCode, shortUrl: `http://go.example/${l.shortCode}`, expiresAt });
    expect(await row(l.id)).toMatchObject({ original_url: ok.originalUrl, title: "Edited", description: "now described", expires_at: expiresAt, short_code: l.shortCode });
    expect(await location(l.shortCode)).toBe("https://example.org/new?x=1");
    // The list shows the edit too.
    const list = await t.call("GET", API, { cookie: bob.cookie });
    expect(list.json.find((x: { id: number }) => x.id === l.id)).toMatchObject(ok);
  });

  test("a new short code renames the link: the new code redirects at once, the old one is unknown, the code is free again", async () => {
    const l = await make(bob.cookie);
    const code = `renamed-${l.id}`;
    const r = await t.call("PUT", `${API}/${l.id}`, { body: { ...ok, shortCode: `  ${code} ` }, cookie: bob.cookie });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ shortCode: code, shortUrl: `http://go.example/${code}` });
    expect((await row(l.id))!.short_code).toBe(code);
    expect(await location(code)).toBe(ok.originalUrl);
    expect((await t.call("GET", `/${l.shortCode}`)).status).toBe(404);
    // The old code can be taken by a new link.
    const again = await t.call("POST", API, { body: { originalUrl: "https://example.com/again", title: "Again", shortCode: l.shortCode }, cookie: alice.cookie });
    expect(again.status).toBe(201);
  });

  test("a code another link holds (anyone's, either tracker) is 409, nothing changed", async () => {
    const mine = await make(bob.cookie);
    const theirs = await make(alice.cookie);
    const brand = await t.call("POST", "/api/pic-drift-links", { body: { originalUrl: "https://example.com/b", title: "B", shortCode: `brand-${mine.id}` }, cookie: alice.cookie });
    expect(brand.status).toBe(201);
    for (const taken of [theirs.shortCode, `brand-${mine.id}`]) {
      const before = await row(mine.id);
      const r = await t.call("PUT", `${API}/${mine.id}`, { body: { ...ok, shortCode: taken }, cookie: bob.cookie });
      expect(r.status).toBe(409);
      expect(r.json.error).toMatchObject({ code: "CONFLICT", message: "That short code is already taken", fields: { shortCode: "That short code is already taken" } });
      expect(await row(mine.id)).toEqual(before);
      expect(await location(mine.shortCode)).toBe(`https://example.com/${mine.shortCode}`);
    }
  });

  test("the object read from the API can be sent back: its own code, id and read-only fields are accepted", async () => {
    const l = await make(bob.cookie);
    const read = (await t.call("GET", API, { cookie: bob.cookie })).json.find((x: { id: number }) => x.id === l.id);
    const r = await t.call("PUT", `${API}/${l.id}`, { body: { ...read, title: "Round trip", clickCount: 999, isSystem: true, active: false }, cookie: bob.cookie });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ title: "Round trip", clickCount: 0, isSystem: false, active: true, shortCode: l.shortCode });
  });

  test("PUT replaces: a missing description or expiry clears it, and clearing an expiry revives an expired link", async () => {
    const l = await make(bob.cookie, { description: "old", expiresAt: inOneHour() });
    // Expire it in the database (an expiry in the past cannot be set through the API).
    await t.database.run("UPDATE short_links SET expires_at = ? WHERE id = ?", new Date(Date.now() - 60_000).toISOString(), l.id);
    const revived = await t.call("PUT", `${API}/${l.id}`, { body: { originalUrl: ok.originalUrl, title: "Back" }, cookie: bob.cookie });
    expect(revived.status).toBe(200);
    expect(revived.json).toMatchObject({ description: null, expiresAt: null });
    // The redirect map followed the edit: not 410 any more.
    expect(await location(l.shortCode)).toBe(ok.originalUrl);
  });

  test("an unchanged expiry already in the past is kept (editing an expired link's title); a changed one must be in the future", async () => {
    const l = await make(bob.cookie, { expiresAt: inOneHour() });
    const past = new Date(Date.now() - 60_000).toISOString();
    await t.database.run("UPDATE short_links SET expires_at = ? WHERE id = ?", past, l.id);
    // The map is rebuilt from the store at start; here the edit below is what refreshes it.
    const kept = await t.call("PUT", `${API}/${l.id}`, { body: { ...ok, expiresAt: past }, cookie: bob.cookie });
    expect(kept.status).toBe(200);
    expect(kept.json.expiresAt).toBe(past);
    expect((await t.call("GET", `/${l.shortCode}`)).status).toBe(410);
    const before = await row(l.id);
    const other = await t.call("PUT", `${API}/${l.id}`, { body: { ...ok, expiresAt: new Date(Date.now() - 120_000).toISOString() }, cookie: bob.cookie });
    expect(other.status).toBe(400);
    expect(other.json.error).toMatchObject({ message: "The expiry date must be in the future", fields: { expiresAt: "The expiry date must be in the future" } });
    expect(await row(l.id)).toEqual(before);
  });

  type Bad = { name: string; body: Record<string, unknown>; status?: number; message: string | RegExp; field?: string };
  const invalid: Bad[] = [
    { name: "an empty short code", body: { ...ok, shortCode: "" }, message: "Short code must be at least 3 characters", field: "shortCode" },
    { name: "a 2-character short code", body: { ...ok, shortCode: "ab" }, message: "Short code must be at least 3 characters", field: "shortCode" },
    { name: "a 51-character short code", body: { ...ok, shortCode: "a".repeat(51) }, message: "Short code must be at most 50 characters", field: "shortCode" },
    { name: "a short code with a slash", body: { ...ok, shortCode: "a/b/c" }, message: "Short code may only contain letters, numbers, '-' and '_'", field: "shortCode" },
    { name: "a short code with a script tag", body: { ...ok, shortCode: HOSTILE.script }, message: /Short code/, field: "shortCode" },
    { name: "a reserved short code", body: { ...ok, shortCode: "api" }, message: "That short code is reserved. Please choose another.", field: "shortCode" },
    { name: "a short code as a number", body: { ...ok, shortCode: 12345 }, message: "Short code must be text" },
    { name: "missing destination", body: { title: "x" }, message: "Please enter a valid URL" },
    { name: "destination as a number", body: { ...ok, originalUrl: 42 }, message: "URL must be text" },
    { name: "destination as an object", body: { ...ok, originalUrl: { href: "https://e.com" } }, message: "URL must be text" },
    { name: "javascript: destination", body: { ...ok, originalUrl: "javascript:alert(1)" }, message: "Only http:// and https:// links can be shortened", field: "originalUrl" },
    { name: "data: destination", body: { ...ok, originalUrl: "data:text/html,<script>x</script>" }, message: /http/ },
    { name: "destination with credentials", body: { ...ok, originalUrl: "https://user:pw@example.com/" }, message: /username or password/ },
    { name: "destination with a space", body: { ...ok, originalUrl: "https://exa mple.com/" }, message: /spaces/ },
    { name: "destination over 2,048", body: { ...ok, originalUrl: `https://example.com/${HOSTILE.huge}` }, message: "URL must be at most 2,048 characters" },
    { name: "own short domain (a loop)", body: { ...ok, originalUrl: "https://go.example/abc" }, message: /own short domains/, field: "originalUrl" },
    { name: "own app host (a loop)", body: { ...ok, originalUrl: "http://localhost:3000/x" }, message: /own short domains/ },
    { name: "missing title", body: { ...ok, title: "" }, message: "Title is required" },
    { name: "blank title", body: { ...ok, title: "   " }, message: "Title is required" },
    { name: "title over 100", body: { ...ok, title: "t".repeat(101) }, message: "Title must be at most 100 characters" },
    { name: "huge title", body: { ...ok, title: HOSTILE.huge }, message: "Title must be at most 100 characters" },
    { name: "title with a NUL", body: { ...ok, title: HOSTILE.nul }, message: /Title/ },
    { name: "title as an array", body: { ...ok, title: ["a"] }, message: "Title must be text" },
    { name: "description over 255", body: { ...ok, description: HOSTILE.huge }, message: "Description must be at most 255 characters" },
    { name: "description as a number", body: { ...ok, description: 7 }, message: "Description must be text" },
    { name: "expiry not a date", body: { ...ok, expiresAt: "tomorrow-ish" }, message: "Please enter a valid date" },
    { name: "expiry as SQL", body: { ...ok, expiresAt: HOSTILE.sql }, message: "Please enter a valid date" },
    { name: "expiry as a number", body: { ...ok, expiresAt: Date.now() + 3_600_000 }, message: "Expiry must be text" },
    { name: "expiry in the past", body: { ...ok, expiresAt: "2001-01-01T00:00:00Z" }, message: "The expiry date must be in the future", field: "expiresAt" },
  ];
  for (const s of invalid) {
    test(`refuses ${s.name}: 400 in the one error shape, nothing changed, redirect unchanged`, async () => {
      const l = await make(bob.cookie);
      const before = await row(l.id);
      const r = await t.call("PUT", `${API}/${l.id}`, { body: s.body, cookie: bob.cookie });
      expect(r.status).toBe(s.status ?? 400);
      expect(r.json.error.code).toBe("VALIDATION");
      expect(r.json.error.message).toMatch(s.message);
      if (s.field) expect(Object.keys(r.json.error.fields)).toEqual([s.field]);
      expect(await row(l.id)).toEqual(before);
      expect(await location(l.shortCode)).toBe(`https://example.com/${l.shortCode}`);
    });
  }

  test("hostile text that is valid is stored as text, exactly", async () => {
    const l = await make(bob.cookie);
    const body = { originalUrl: "https://example.com/search?q=%27%3B%20DROP%20TABLE", title: HOSTILE.script, description: `${HOSTILE.sql} ${HOSTILE.emoji}` };
    const r = await t.call("PUT", `${API}/${l.id}`, { body, cookie: bob.cookie });
    expect(r.status).toBe(200);
    expect(await row(l.id)).toMatchObject({ title: HOSTILE.script, description: `${HOSTILE.sql} ${HOSTILE.emoji}`, original_url: body.originalUrl });
    expect(await t.count("users")).toBeGreaterThanOrEqual(2);
  });

  test("malformed JSON, a non-object body and a wrong content type: 4xx, nothing changed", async () => {
    const l = await make(bob.cookie);
    const before = await row(l.id);
    const cases = [
      { raw: "{nope", status: 400 },
      { raw: "[1,2]", status: 400 },
      { raw: "null", status: 400 },
      { raw: JSON.stringify(ok), headers: { "content-type": "text/plain" }, status: 415 },
    ];
    for (const c of cases) {
      const r = await t.call("PUT", `${API}/${l.id}`, { raw: c.raw, headers: c.headers, cookie: bob.cookie });
      expect(r.status).toBe(c.status);
      expect(typeof r.json.error.message).toBe("string");
    }
    expect(await row(l.id)).toEqual(before);
  });

  test("another user's link, a brand link, a missing id and a junk id: 404 and nothing changed", async () => {
    const l = await make(bob.cookie);
    const brand = await t.call("POST", "/api/pic-drift-links", { body: { originalUrl: "https://example.com/b", title: "Brand", shortCode: "bob-brand-one" }, cookie: bob.cookie });
    expect(brand.status).toBe(201);
    const before = [await row(l.id), await row(brand.json.id)];
    for (const [cookie, id] of [
      [alice.cookie, l.id],
      [bob.cookie, brand.json.id],
      [bob.cookie, 999999],
      // Past PostgreSQL's integer ids: names no link on either backend (not a 5xx).
      [bob.cookie, "2147483648"],
      [bob.cookie, "999999999999999"],
      [bob.cookie, "1;DROP TABLE short_links"],
      [bob.cookie, "-1"],
    ] as const) {
      const r = await t.call("PUT", `${API}/${encodeURIComponent(String(id))}`, { body: ok, cookie });
      expect(r.status).toBe(404);
      expect(r.json.error).toMatchObject({ code: "NOT_FOUND", message: "Link not found" });
    }
    expect([await row(l.id), await row(brand.json.id)]).toEqual(before);
    expect(await location(l.shortCode)).toBe(`https://example.com/${l.shortCode}`);
  });

  test("the root link cannot be reached through the Link Tracker, even by the owner (alice registered first)", async () => {
    const root = (await t.database.get<{ id: number; original_url: string }>("SELECT id, original_url FROM short_links WHERE short_code = 'root'"))!;
    const r = await t.call("PUT", `${API}/${root.id}`, { body: ok, cookie: alice.cookie });
    expect(r.status).toBe(404);
    expect((await row(root.id))?.original_url).toBe(root.original_url);
  });

  test("without a session: 401, nothing changed", async () => {
    const l = await make(bob.cookie);
    const before = await row(l.id);
    const r = await t.call("PUT", `${API}/${l.id}`, { body: ok });
    expect(r.status).toBe(401);
    expect(await row(l.id)).toEqual(before);
  });
});

// Reading one link (GET …/{id}, GET …/lookup?code=) and partial edits (PATCH …/{id}) on both
// trackers (issue 23 item 1). Runs on PostgreSQL too with TEST_BACKEND=postgres.
import { describe, expect, test } from "bun:test";
import { HOSTILE, setup } from "../test/helpers";

const t = await setup({ SHORT_DOMAIN: "go.example", BRAND_DOMAIN: "brand.example" });
// alice registered first: she is the instance owner (the brand tracker's root link is hers to see).
const alice = await t.signUp("alice");
const bob = await t.signUp("bob");
const carol = await t.signUp("carol");

const row = (id: number) => t.database.get<Record<string, unknown>>("SELECT * FROM short_links WHERE id = ?", id);
const location = async (code: string) => (await t.call("GET", `/${code}`)).headers.get("location");
const inOneHour = () => new Date(Date.now() + 3_600_000).toISOString();
let n = 0;

type View = { id: number; shortCode: string; shortUrl: string; originalUrl: string; title: string; description: string | null; expiresAt: string | null; clickCount: number };

async function make(api: string, cookie: string, extra: Record<string, unknown> = {}): Promise<View> {
  const shortCode = `read-${++n}-${Math.random().toString(36).slice(2, 7)}`;
  const r = await t.call("POST", api, { body: { originalUrl: `https://example.com/${shortCode}`, title: `Title ${n}`, description: "first", shortCode, ...extra }, cookie });
  if (r.status !== 201) throw new Error(r.text);
  return r.json as View;
}

for (const api of ["/api/links", "/api/pic-drift-links"]) {
  const main = api === "/api/links";

  describe(`GET ${api}/{id}`, () => {
    test("answers the link with its clicks up to this moment", async () => {
      const l = await make(api, bob.cookie);
      await t.call("GET", `/${l.shortCode}`);
      await t.call("GET", `/${l.shortCode}`);
      const r = await t.call("GET", `${api}/${l.id}`, { cookie: bob.cookie });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ id: l.id, shortCode: l.shortCode, originalUrl: l.originalUrl, title: l.title, clickCount: 2 });
      expect(r.headers.get("cache-control")).toBe("no-store");
    });

    test("another user's link, the other tracker's, a missing id and a junk id: 404", async () => {
      const l = await make(api, bob.cookie);
      const other = await make(main ? "/api/pic-drift-links" : "/api/links", bob.cookie);
      for (const [path, cookie] of [
        [`${api}/${l.id}`, carol.cookie],
        [`${api}/${other.id}`, bob.cookie],
        [`${api}/99999999`, bob.cookie],
        [`${api}/99999999999999999999`, bob.cookie],
        [`${api}/abc`, bob.cookie],
      ] as const) {
        const r = await t.call("GET", path, { cookie });
        expect(r.status, path).toBe(404);
        expect(r.json.error.code).toBe("NOT_FOUND");
      }
    });

    test("without a session: 401", async () => {
      const l = await make(api, bob.cookie);
      expect((await t.call("GET", `${api}/${l.id}`)).status).toBe(401);
    });
  });

  describe(`GET ${api}/lookup`, () => {
    test("finds your link by its exact code", async () => {
      const l = await make(api, bob.cookie);
      const r = await t.call("GET", `${api}/lookup?code=${encodeURIComponent(l.shortCode)}`, { cookie: bob.cookie });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ id: l.id, shortCode: l.shortCode, originalUrl: l.originalUrl });
    });

    test("codes are case-sensitive; unknown, another user's and the other tracker's codes are 404", async () => {
      const l = await make(api, bob.cookie);
      const other = await make(main ? "/api/pic-drift-links" : "/api/links", bob.cookie);
      for (const [code, cookie] of [
        [l.shortCode.toUpperCase(), bob.cookie],
        ["no-such-code", bob.cookie],
        [l.shortCode, carol.cookie],
        [other.shortCode, bob.cookie],
      ] as const) {
        const r = await t.call("GET", `${api}/lookup?code=${encodeURIComponent(code)}`, { cookie });
        expect(r.status, code).toBe(404);
        expect(r.json.error.code).toBe("NOT_FOUND");
      }
    });

    test("a missing, empty or over-long code is a 400 with the field; hostile codes are only looked up", async () => {
      for (const q of ["", "?code=", `?code=${"x".repeat(201)}`]) {
        const r = await t.call("GET", `${api}/lookup${q}`, { cookie: bob.cookie });
        expect(r.status, q).toBe(400);
        expect(r.json.error.code).toBe("VALIDATION");
        expect(r.json.error.fields).toHaveProperty("code");
      }
      for (const code of [HOSTILE.sql, HOSTILE.script, HOSTILE.emoji, "../../api/user", "a/b"]) {
        const r = await t.call("GET", `${api}/lookup?code=${encodeURIComponent(code)}`, { cookie: bob.cookie });
        expect(r.status, code).toBe(404);
      }
    });

    test(main ? "the root link is never found through the Link Tracker" : "the root link: the instance owner finds it, nobody else does", async () => {
      const owner = await t.call("GET", `${api}/lookup?code=root`, { cookie: alice.cookie });
      const other = await t.call("GET", `${api}/lookup?code=root`, { cookie: bob.cookie });
      expect(other.status).toBe(404);
      if (main) expect(owner.status).toBe(404);
      else expect(owner.json).toMatchObject({ shortCode: "root", isSystem: true });
    });

    test("without a session: 401", async () => {
      expect((await t.call("GET", `${api}/lookup?code=anything`)).status).toBe(401);
    });
  });

  describe(`PATCH ${api}/{id}`, () => {
    test("only the fields sent change; the redirect follows at once", async () => {
      const l = await make(api, bob.cookie, main ? { expiresAt: inOneHour() } : {});
      const r = await t.call("PATCH", `${api}/${l.id}`, { body: { originalUrl: "https://example.org/patched" }, cookie: bob.cookie });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ id: l.id, shortCode: l.shortCode, originalUrl: "https://example.org/patched", title: l.title, description: "first", expiresAt: l.expiresAt });
      expect(await location(l.shortCode)).toBe("https://example.org/patched");
      const t2 = await t.call("PATCH", `${api}/${l.id}`, { body: { title: "Only the title" }, cookie: bob.cookie });
      expect(t2.json).toMatchObject({ originalUrl: "https://example.org/patched", title: "Only the title", description: "first" });
      expect(await row(l.id)).toMatchObject({ original_url: "https://example.org/patched", title: "Only the title", description: "first", short_code: l.shortCode });
    });

    test("an empty body changes nothing but the update time", async () => {
      const l = await make(api, bob.cookie);
      const r = await t.call("PATCH", `${api}/${l.id}`, { body: {}, cookie: bob.cookie });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ originalUrl: l.originalUrl, title: l.title, description: "first", shortCode: l.shortCode });
    });

    test("null clears the description; a new code renames the link", async () => {
      const l = await make(api, bob.cookie);
      const code = `renamed-${l.id}`;
      const r = await t.call("PATCH", `${api}/${l.id}`, { body: { description: null, shortCode: code }, cookie: bob.cookie });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ description: null, shortCode: code, title: l.title });
      expect(await location(code)).toBe(l.originalUrl);
      expect((await t.call("GET", `/${l.shortCode}`)).status).toBe(404);
    });

    if (main) {
      test("expiry: null clears it, a past one is refused, an unchanged past one is kept", async () => {
        const l = await make(api, bob.cookie, { expiresAt: inOneHour() });
        const cleared = await t.call("PATCH", `${api}/${l.id}`, { body: { expiresAt: null }, cookie: bob.cookie });
        expect(cleared.json.expiresAt).toBeNull();
        const past = await t.call("PATCH", `${api}/${l.id}`, { body: { expiresAt: "2001-01-01T00:00:00Z" }, cookie: bob.cookie });
        expect(past.status).toBe(400);
        expect(past.json.error.fields).toEqual({ expiresAt: "The expiry date must be in the future" });
        expect((await row(l.id))!.expires_at).toBeNull();
        // A link that expired keeps its expiry through a title patch.
        await t.database.run("UPDATE short_links SET expires_at = ? WHERE id = ?", "2001-01-01T00:00:00.000Z", l.id);
        const titled = await t.call("PATCH", `${api}/${l.id}`, { body: { title: "Still expired" }, cookie: bob.cookie });
        expect(titled.status).toBe(200);
        expect(titled.json).toMatchObject({ title: "Still expired", expiresAt: "2001-01-01T00:00:00.000Z" });
      });
    } else {
      test("the root link cannot be patched, even by the instance owner (403), nor reached by others (404)", async () => {
        const root = (await t.call("GET", `${api}/lookup?code=root`, { cookie: alice.cookie })).json as View;
        const owner = await t.call("PATCH", `${api}/${root.id}`, { body: { title: "Mine now" }, cookie: alice.cookie });
        expect(owner.status).toBe(403);
        const other = await t.call("PATCH", `${api}/${root.id}`, { body: { title: "Mine now" }, cookie: bob.cookie });
        expect(other.status).toBe(404);
        expect((await row(root.id))!.title).not.toBe("Mine now");
      });
    }

    const refusals: { name: string; body: Record<string, unknown>; field: string }[] = [
      { name: "an empty title", body: { title: "" }, field: "title" },
      { name: "a title with a NUL", body: { title: HOSTILE.nul }, field: "title" },
      { name: "a huge title", body: { title: HOSTILE.huge }, field: "title" },
      { name: "a javascript: destination", body: { originalUrl: "javascript:alert(1)" }, field: "originalUrl" },
      { name: "a destination on our own short domain", body: { originalUrl: "https://go.example/x" }, field: "originalUrl" },
      { name: "a short code with a script tag", body: { shortCode: HOSTILE.script }, field: "shortCode" },
      { name: "a reserved short code", body: { shortCode: "api" }, field: "shortCode" },
      { name: "a description over 255", body: { description: HOSTILE.huge }, field: "description" },
      { name: "a title that is not text", body: { title: 42 }, field: "title" },
    ];
    for (const s of refusals) {
      test(`refuses ${s.name}: 400 with the field, nothing changed`, async () => {
        const l = await make(api, bob.cookie);
        const before = await row(l.id);
        const r = await t.call("PATCH", `${api}/${l.id}`, { body: s.body, cookie: bob.cookie });
        expect(r.status).toBe(400);
        expect(r.json.error.code).toBe("VALIDATION");
        expect(Object.keys(r.json.error.fields ?? {})).toEqual([s.field]);
        expect(await row(l.id)).toEqual(before);
        expect(await location(l.shortCode)).toBe(l.originalUrl);
      });
    }

    test("a code another link holds is 409 on shortCode, nothing changed", async () => {
      const a = await make(api, bob.cookie);
      const b = await make(api, carol.cookie);
      const r = await t.call("PATCH", `${api}/${a.id}`, { body: { shortCode: b.shortCode }, cookie: bob.cookie });
      expect(r.status).toBe(409);
      expect(r.json.error.fields).toHaveProperty("shortCode");
      expect((await row(a.id))!.short_code).toBe(a.shortCode);
    });

    test("another user's link, a missing id, malformed JSON, no session: 4xx and nothing changed", async () => {
      const l = await make(api, bob.cookie);
      const before = await row(l.id);
      expect((await t.call("PATCH", `${api}/${l.id}`, { body: { title: "Carol's now" }, cookie: carol.cookie })).status).toBe(404);
      expect((await t.call("PATCH", `${api}/99999999`, { body: { title: "x" }, cookie: bob.cookie })).status).toBe(404);
      expect((await t.call("PATCH", `${api}/${l.id}`, { raw: "{not json", headers: { "content-type": "application/json" }, cookie: bob.cookie })).status).toBe(400);
      expect((await t.call("PATCH", `${api}/${l.id}`, { body: { title: "x" } })).status).toBe(401);
      expect(await row(l.id)).toEqual(before);
    });
  });
}

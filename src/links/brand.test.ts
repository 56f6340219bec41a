import { describe, expect, test } from "bun:test";
import { HOSTILE, setup } from "../test/helpers";

const t = await setup({ BRAND_DOMAIN: "go.brand.example", ROOT_REDIRECT_URL: "https://brand.example/welcome" });
// The first registered user is the instance owner (no OWNER_USERNAME set).
const owner = await t.signUp("owner");
const bob = await t.signUp("bob");
const API = "/api/pic-drift-links";

const row = (id: number) =>
  t.database.get<Record<string, unknown>>("SELECT *, COALESCE((SELECT clicks FROM link_click_counts WHERE link_id = short_links.id), 0) AS click_count FROM short_links WHERE id = ?", id);
const root = async () => (await t.database.get<{ id: number; click_count: number; original_url: string }>("SELECT *, COALESCE((SELECT clicks FROM link_click_counts WHERE link_id = short_links.id), 0) AS click_count FROM short_links WHERE short_code = 'root'"))!;

async function make(cookie: string, shortCode: string, tracker = API) {
  const r = await t.call("POST", tracker, { body: { originalUrl: `https://example.com/${shortCode}`, title: `Title ${shortCode}`, shortCode }, cookie });
  if (r.status !== 201) throw new Error(r.text);
  return r.json as { id: number; shortCode: string; shortUrl: string };
}

describe("brand links", () => {
  test("create makes a brand link with its short URL on BRAND_DOMAIN", async () => {
    const l = await make(bob.cookie, "bobs-brand");
    expect(l.shortUrl).toBe("http://go.brand.example/bobs-brand");
    expect(await row(l.id)).toMatchObject({ tracker: "brand", user_id: bob.user.id });
    const list = await t.call("GET", API, { cookie: bob.cookie });
    expect(list.json.map((l: { shortCode: string }) => l.shortCode)).toEqual(["bobs-brand"]);
  });

  test("the root link: listed for the owner only with includeRoot=true, as the bare brand domain", async () => {
    const withRoot = await t.call("GET", `${API}?includeRoot=true`, { cookie: owner.cookie });
    expect(withRoot.json[0]).toMatchObject({ shortCode: "root", isSystem: true, shortUrl: "http://go.brand.example", originalUrl: "https://brand.example/welcome", title: "Root Domain Redirect" });
    const without = await t.call("GET", API, { cookie: owner.cookie });
    expect(without.json.some((l: { isSystem: boolean }) => l.isSystem)).toBe(false);
    const bobs = await t.call("GET", `${API}?includeRoot=true`, { cookie: bob.cookie });
    expect(bobs.json.some((l: { isSystem: boolean }) => l.isSystem)).toBe(false);
    // Never in the main tracker.
    const main = await t.call("GET", "/api/links", { cookie: owner.cookie });
    expect(main.json).toEqual([]);
  });

  test("the root link: owner reads analytics and resets; cannot edit or delete (403); others get 404", async () => {
    const id = (await root()).id;
    await t.call("GET", "/", { headers: { host: "go.brand.example" } });
    // The app's first click starts the click worker (database, location data): on a loaded
    // machine that alone can outlast the write window, so wait for the click itself.
    for (let i = 0; i < 250 && (await root()).click_count === 0; i++) await Bun.sleep(20);
    expect((await root()).click_count).toBe(1);
    expect((await t.call("GET", `${API}/${id}/analytics`, { cookie: owner.cookie })).json.clickCount).toBe(1);
    const before = await row(id);
    const edit = await t.call("PUT", `${API}/${id}`, { body: { id, shortCode: "mine", originalUrl: "https://evil.example", title: "x" }, cookie: owner.cookie });
    expect(edit.status).toBe(403);
    expect(edit.json.error.message).toBe("The root link cannot be edited");
    const del = await t.call("DELETE", `${API}/${id}`, { cookie: owner.cookie });
    expect(del.status).toBe(403);
    expect(del.json.error.message).toBe("The root link cannot be deleted");
    for (const [method, path] of [
      ["GET", `${API}/${id}/analytics`],
      ["PUT", `${API}/${id}`],
      ["DELETE", `${API}/${id}`],
      ["POST", `${API}/${id}/reset-clicks?isRoot=true`],
      ["GET", `/api/links/${id}/analytics`],
      ["DELETE", `/api/links/${id}`],
    ] as const) {
      const r = await t.call(method, path, { cookie: bob.cookie, body: method === "PUT" ? { shortCode: "mine", originalUrl: "https://evil.example", title: "x" } : undefined });
      expect(r.status).toBe(404);
    }
    expect(await row(id)).toEqual(before);
    // Reset needs isRoot=true for the root link (spec §7).
    expect((await t.call("POST", `${API}/${id}/reset-clicks`, { cookie: owner.cookie })).status).toBe(404);
    const reset = await t.call("POST", `${API}/${id}/reset-clicks?isRoot=true`, { cookie: owner.cookie });
    expect(reset.status).toBe(200);
    expect((await root()).click_count).toBe(0);
    const a = await t.call("GET", `${API}/${id}/analytics`, { cookie: owner.cookie });
    expect(a.json).toMatchObject({ clickCount: 0, uniqueVisitors: 0, lastClick: null, clicks: [] });
  });

  test("GET / on the brand host redirects through the root link; on the app host it is the web app", async () => {
    const r = await t.call("GET", "/", { headers: { host: "go.brand.example" } });
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe("https://brand.example/welcome");
    const app = await t.call("GET", "/");
    expect(app.status).toBe(200);
    expect(app.headers.get("content-type")).toContain("text/html");
  });

  test("a brand code redirects on the brand host", async () => {
    await make(bob.cookie, "on-brand");
    const r = await t.call("GET", "/on-brand", { headers: { host: "go.brand.example" } });
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe("https://example.com/on-brand");
  });
});

describe("PUT /api/pic-drift-links/{id}", () => {
  test("edits code and destination; the very next redirect uses them and the old code is gone", async () => {
    const l = await make(bob.cookie, "before-edit");
    expect((await t.call("GET", "/before-edit")).headers.get("location")).toBe("https://example.com/before-edit");
    const r = await t.call("PUT", `${API}/${l.id}`, {
      body: { id: l.id, shortCode: "after-edit", originalUrl: "https://example.org/new?x=1", title: "Edited", description: "now longer" },
      cookie: bob.cookie,
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ shortCode: "after-edit", originalUrl: "https://example.org/new?x=1", title: "Edited", description: "now longer", shortUrl: "http://go.brand.example/after-edit" });
    const go = await t.call("GET", "/after-edit");
    expect(go.status).toBe(302);
    expect(go.headers.get("location")).toBe("https://example.org/new?x=1");
    expect((await t.call("GET", "/before-edit")).status).toBe(404);
  });

  test("keeping the same code is fine", async () => {
    const l = await make(bob.cookie, "same-code");
    const r = await t.call("PUT", `${API}/${l.id}`, { body: { id: l.id, shortCode: "same-code", originalUrl: "https://example.com/changed", title: "Same" }, cookie: bob.cookie });
    expect(r.status).toBe(200);
    expect((await t.call("GET", "/same-code")).headers.get("location")).toBe("https://example.com/changed");
  });

  type Bad = { name: string; body: Record<string, unknown>; status?: number; message: string | RegExp };
  const ok = { shortCode: "valid-code", originalUrl: "https://example.com/ok", title: "OK", description: "" };
  const invalid: Bad[] = [
    { name: "short code of 2", body: { ...ok, shortCode: "ab" }, message: "Short code must be at least 3 characters" },
    { name: "empty short code", body: { ...ok, shortCode: "" }, message: "Short code must be at least 3 characters" },
    { name: "missing short code", body: { originalUrl: ok.originalUrl, title: "OK" }, message: /Short code/ },
    { name: "short code of 51", body: { ...ok, shortCode: "x".repeat(51) }, message: "Short code must be at most 50 characters" },
    { name: "short code with spaces", body: { ...ok, shortCode: "a b c" }, message: /letters, numbers/ },
    { name: "short code with HTML", body: { ...ok, shortCode: HOSTILE.script }, message: /letters, numbers|at most 50/ },
    { name: "short code with SQL", body: { ...ok, shortCode: HOSTILE.sql }, message: /letters, numbers/ },
    { name: "short code emoji", body: { ...ok, shortCode: "🧵🧵🧵" }, message: /letters, numbers/ },
    { name: "reserved word", body: { ...ok, shortCode: "api" }, message: "That short code is reserved. Please choose another." },
    { name: "reserved tracker route", body: { ...ok, shortCode: "pic-drift-link-tracker" }, message: /reserved/ },
    // The brand host is its own here: a code the Link Tracker holds is free in this one (codesPerTracker.test.ts).
    { name: "code taken in the brand tracker", body: { ...ok, shortCode: "brand-taken" }, status: 409, message: "That short code is already taken" },
    { name: "code taken by the root link", body: { ...ok, shortCode: "root" }, status: 409, message: "That short code is already taken" },
    { name: "javascript: destination", body: { ...ok, originalUrl: "javascript:alert(1)" }, message: /http/ },
    { name: "data: destination", body: { ...ok, originalUrl: "data:text/html,hi" }, message: /http/ },
    { name: "own brand domain", body: { ...ok, originalUrl: "https://go.brand.example/x" }, message: /own short domains/ },
    { name: "missing title", body: { ...ok, title: "" }, message: "Title is required" },
    { name: "title over 100", body: { ...ok, title: "t".repeat(101) }, message: "Title must be at most 100 characters" },
    { name: "description over 255", body: { ...ok, description: HOSTILE.huge }, message: "Description must be at most 255 characters" },
    // SQLite stored a NUL that PostgreSQL refuses (and then migrate-data failed): refused on both.
    { name: "description with a NUL", body: { ...ok, description: "before\u0000after" }, message: "Description must not contain control characters other than tabs and line breaks" },
    { name: "description with an escape", body: { ...ok, description: "\u001b[31mred" }, message: /control characters/ },
    { name: "short code as a number", body: { ...ok, shortCode: 12345 }, message: "Short code must be text" },
  ];
  for (const s of invalid) {
    test(`refuses: ${s.name}`, async () => {
      await make(owner.cookie, "brand-taken").catch(() => undefined);
      const l = await make(bob.cookie, `edit-${Math.random().toString(36).slice(2, 9)}`);
      const before = await row(l.id);
      const r = await t.call("PUT", `${API}/${l.id}`, { body: { id: l.id, ...s.body }, cookie: bob.cookie });
      expect(r.status).toBe(s.status ?? 400);
      expect(r.json.error.message).toMatch(s.message);
      expect(await row(l.id)).toEqual(before);
    });
  }

  test("malformed JSON: 400 and nothing changes", async () => {
    const l = await make(bob.cookie, "json-target");
    const before = await row(l.id);
    const r = await t.call("PUT", `${API}/${l.id}`, { raw: "{nope", cookie: bob.cookie });
    expect(r.status).toBe(400);
    expect(await row(l.id)).toEqual(before);
  });

  test("another user's brand link: edit, delete, reset and analytics are 404 and nothing changes", async () => {
    const l = await make(bob.cookie, "bob-private");
    const before = await row(l.id);
    for (const [method, path, body] of [
      ["PUT", `${API}/${l.id}`, { id: l.id, shortCode: "stolen", originalUrl: "https://evil.example", title: "Mine" }],
      ["DELETE", `${API}/${l.id}`, undefined],
      ["POST", `${API}/${l.id}/reset-clicks`, undefined],
      ["GET", `${API}/${l.id}/analytics`, undefined],
    ] as const) {
      const r = await t.call(method, path, { cookie: owner.cookie, body: body as any });
      expect(r.status).toBe(404);
    }
    expect(await row(l.id)).toEqual(before);
    expect((await t.call("GET", "/bob-private")).headers.get("location")).toBe("https://example.com/bob-private");
  });

  test("the main tracker has no reset; its edit renames only with a valid code (src/links/edit.test.ts)", async () => {
    const l = await make(bob.cookie, "main-only", "/api/links");
    expect((await t.call("PUT", `/api/links/${l.id}`, { body: { shortCode: "zz", originalUrl: "https://e.com", title: "x" }, cookie: bob.cookie })).status).toBe(400);
    expect(await row(l.id)).toMatchObject({ short_code: "main-only" });
    expect((await t.call("POST", `/api/links/${l.id}/reset-clicks`, { cookie: bob.cookie })).status).toBe(404);
  });
});

describe("POST /api/pic-drift-links/{id}/reset-clicks", () => {
  test("sets the count to zero and clears the history so the analytics add up", async () => {
    const l = await make(bob.cookie, "resettable");
    for (let i = 0; i < 3; i++) await t.call("GET", "/resettable", { headers: { "user-agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36" } });
    // Reset flushes buffered clicks first: they are reset too.
    const r = await t.call("POST", `${API}/${l.id}/reset-clicks`, { cookie: bob.cookie });
    expect(r.status).toBe(200);
    expect(r.json.clickCount).toBe(0);
    await t.settle();
    expect((await row(l.id))!.click_count).toBe(0);
    const a = await t.call("GET", `${API}/${l.id}/analytics`, { cookie: bob.cookie });
    expect(a.json).toMatchObject({ clickCount: 0, uniqueVisitors: 0, lastClick: null, clicks: [] });
    expect(a.json.tallies.browser).toEqual([]);
    // Counting starts again from zero.
    await t.call("GET", "/resettable");
    await t.settle();
    const after = await t.call("GET", `${API}/${l.id}/analytics`, { cookie: bob.cookie });
    expect(after.json).toMatchObject({ clickCount: 1, uniqueVisitors: 1 });
    expect(after.json.clicks).toHaveLength(1);
    // Its first click after the reset is news again: one notification per crossing.
    const firsts = await t.database.all("SELECT link FROM notifications WHERE user_id = ? AND message = ?", bob.user.id, 'Your link "Title resettable" (/resettable) got its first click');
    expect(firsts).toEqual([{ link: "/pic-drift-link-tracker" }, { link: "/pic-drift-link-tracker" }]);
  });
});

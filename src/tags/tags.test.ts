// Tags on links (issue 23 item 2): /api/tags, tags in link bodies of both trackers, the list's
// filter, the quota and a tag's combined clicks. Runs on PostgreSQL too with TEST_BACKEND=postgres.
import { describe, expect, test } from "bun:test";
import { HOSTILE, setup } from "../test/helpers";

const t = await setup({ SHORT_DOMAIN: "go.example", MAX_TAGS_PER_USER: "6" });
const alice = await t.signUp("alice");
const bob = await t.signUp("bob");
const tagRow = (id: number) => t.database.get<Record<string, unknown>>("SELECT * FROM tags WHERE id = ?", id);

let n = 0;
async function link(api: string, cookie: string, tags?: string[]) {
  const r = await t.call("POST", api, { body: { originalUrl: `https://example.com/t${++n}`, title: `T${n}`, ...(tags ? { tags } : {}) }, cookie });
  if (r.status !== 201) throw new Error(r.text);
  return r.json as { id: number; shortCode: string; tags: string[] };
}

describe("/api/tags", () => {
  test("create, list with link counts, rename and recolour, delete (links stay, without it)", async () => {
    const made = await t.call("POST", "/api/tags", { body: { name: "Spring", color: "green" }, cookie: alice.cookie });
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({ name: "Spring", color: "green", linkCount: 0 });
    const l = await link("/api/links", alice.cookie, ["spring"]);
    expect(l.tags).toEqual(["Spring"]);
    const list = await t.call("GET", "/api/tags", { cookie: alice.cookie });
    expect(list.json.find((x: { id: number }) => x.id === made.json.id)).toMatchObject({ linkCount: 1 });
    const renamed = await t.call("PATCH", `/api/tags/${made.json.id}`, { body: { name: "Summer" }, cookie: alice.cookie });
    expect(renamed.json).toMatchObject({ name: "Summer", color: "green" });
    const recoloured = await t.call("PATCH", `/api/tags/${made.json.id}`, { body: { color: "blue" }, cookie: alice.cookie });
    expect(recoloured.json).toMatchObject({ name: "Summer", color: "blue" });
    expect((await t.call("GET", `/api/links/${l.id}`, { cookie: alice.cookie })).json.tags).toEqual(["Summer"]);
    expect((await t.call("DELETE", `/api/tags/${made.json.id}`, { cookie: alice.cookie })).json).toEqual({ ok: true });
    const after = await t.call("GET", `/api/links/${l.id}`, { cookie: alice.cookie });
    expect(after.status).toBe(200);
    expect(after.json.tags).toEqual([]);
  });

  test("names are one tag in any case; a taken name is 409 on name", async () => {
    await t.call("POST", "/api/tags", { body: { name: "Promo" }, cookie: bob.cookie });
    const again = await t.call("POST", "/api/tags", { body: { name: "PROMO" }, cookie: bob.cookie });
    expect(again.status).toBe(409);
    expect(again.json.error.fields).toHaveProperty("name");
    const other = await t.call("POST", "/api/tags", { body: { name: "Other" }, cookie: bob.cookie });
    const clash = await t.call("PATCH", `/api/tags/${other.json.id}`, { body: { name: "promo" }, cookie: bob.cookie });
    expect(clash.status).toBe(409);
    expect((await tagRow(other.json.id))!.name).toBe("Other");
  });

  for (const [name, body, field] of [
    ["an empty name", { name: "" }, "name"],
    ["a name with a comma", { name: "a,b" }, "name"],
    ["a name over 40 characters", { name: "x".repeat(41) }, "name"],
    ["a name with a NUL", { name: HOSTILE.nul }, "name"],
    ["a colour off the palette", { name: "Fine", color: "#ff0000" }, "color"],
    ["a name that is not text", { name: 7 }, "name"],
  ] as const) {
    test(`refuses ${name}: 400 on ${field}, nothing made`, async () => {
      const before = (await t.call("GET", "/api/tags", { cookie: bob.cookie })).json.length;
      const r = await t.call("POST", "/api/tags", { body: body as never, cookie: bob.cookie });
      expect(r.status).toBe(400);
      expect(Object.keys(r.json.error.fields)).toEqual([field]);
      expect((await t.call("GET", "/api/tags", { cookie: bob.cookie })).json.length).toBe(before);
    });
  }

  test("another user's tag: 404 for rename, delete and analytics, nothing changed", async () => {
    const mine = await t.call("POST", "/api/tags", { body: { name: "Private" }, cookie: alice.cookie });
    for (const [method, path, body] of [
      ["PATCH", `/api/tags/${mine.json.id}`, { name: "Stolen" }],
      ["DELETE", `/api/tags/${mine.json.id}`, undefined],
      ["GET", `/api/tags/${mine.json.id}/analytics`, undefined],
      ["PATCH", "/api/tags/99999999", { name: "x" }],
      ["DELETE", "/api/tags/abc", undefined],
    ] as const) {
      const r = await t.call(method, path, { body: body as never, cookie: bob.cookie });
      expect(r.status, `${method} ${path}`).toBe(404);
    }
    expect((await tagRow(mine.json.id))!.name).toBe("Private");
    expect((await t.call("GET", "/api/tags")).status).toBe(401);
  });

  test("a link naming another user's tag name gets a tag of its own", async () => {
    const l = await link("/api/links", bob.cookie, ["Private"]);
    expect(l.tags).toEqual(["Private"]);
    const bobs = (await t.call("GET", "/api/tags", { cookie: bob.cookie })).json.find((x: { name: string }) => x.name === "Private");
    const alices = (await t.call("GET", "/api/tags", { cookie: alice.cookie })).json.find((x: { name: string }) => x.name === "Private");
    expect(bobs.id).not.toBe(alices.id);
    expect(alices.linkCount).toBe(0);
  });
});

describe("tags on links", () => {
  test("both trackers: several per link, set on create, replaced on PUT, kept when PUT or PATCH leaves them out", async () => {
    const carol = await t.signUp("carol");
    for (const api of ["/api/links", "/api/pic-drift-links"]) {
      const l = await link(api, carol.cookie, ["b-tag", "A-tag", "a-TAG"]);
      expect(l.tags).toEqual(["A-tag", "b-tag"]);
      const put = await t.call("PUT", `${api}/${l.id}`, { body: { originalUrl: "https://example.com/p", title: "P", shortCode: l.shortCode }, cookie: carol.cookie });
      expect(put.json.tags).toEqual(["A-tag", "b-tag"]);
      const patched = await t.call("PATCH", `${api}/${l.id}`, { body: { tags: ["c-tag"] }, cookie: carol.cookie });
      expect(patched.json.tags).toEqual(["c-tag"]);
      const kept = await t.call("PATCH", `${api}/${l.id}`, { body: { title: "Q" }, cookie: carol.cookie });
      expect(kept.json.tags).toEqual(["c-tag"]);
      const cleared = await t.call("PATCH", `${api}/${l.id}`, { body: { tags: [] }, cookie: carol.cookie });
      expect(cleared.json.tags).toEqual([]);
    }
  });

  test("the list filters by tags (every tag named, any case) and counts what matches", async () => {
    const dave = await t.signUp("dave");
    const a = await link("/api/links", dave.cookie, ["red", "blue"]);
    const b = await link("/api/links", dave.cookie, ["red"]);
    await link("/api/links", dave.cookie, []);
    const red = await t.call("GET", "/api/links?tags=RED", { cookie: dave.cookie });
    expect(red.json.map((l: { id: number }) => l.id).sort()).toEqual([a.id, b.id].sort());
    expect(red.headers.get("x-total-count")).toBe("2");
    const both = await t.call("GET", "/api/links?tags=red,%20blue", { cookie: dave.cookie });
    expect(both.json.map((l: { id: number }) => l.id)).toEqual([a.id]);
    const none = await t.call("GET", "/api/links?tags=nothing", { cookie: dave.cookie });
    expect(none.json).toEqual([]);
    // Another user's tag of the same name does not match dave's links for them.
    expect((await t.call("GET", "/api/links?tags=red", { cookie: alice.cookie })).json).toEqual([]);
    const hostile = await t.call("GET", `/api/links?tags=${encodeURIComponent(HOSTILE.sql)}`, { cookie: dave.cookie });
    expect(hostile.status).toBe(200);
  });

  test("tag names in a link body are checked: 400 on tags, nothing made", async () => {
    for (const tags of [["a,b"], ["x".repeat(41)], Array.from({ length: 21 }, (_, i) => `t${i}`), "red"]) {
      const r = await t.call("POST", "/api/links", { body: { originalUrl: "https://example.com/z", title: "Z", tags } as never, cookie: bob.cookie });
      expect(r.status).toBe(400);
      expect(Object.keys(r.json.error.fields)[0]).toMatch(/^tags/);
    }
  });

  test("the tag quota: a link naming new tags past MAX_TAGS_PER_USER is 403 QUOTA_EXCEEDED and nothing is made", async () => {
    const erin = await t.signUp("erin");
    await link("/api/links", erin.cookie, ["q1", "q2", "q3", "q4", "q5"]);
    const over = await t.call("POST", "/api/links", { body: { originalUrl: "https://example.com/q", title: "Q", tags: ["q6", "q7"] }, cookie: erin.cookie });
    expect(over.status).toBe(403);
    expect(over.json.error.code).toBe("QUOTA_EXCEEDED");
    expect((await t.call("GET", "/api/tags", { cookie: erin.cookie })).json.length).toBe(5);
    // Existing tags still go on new links.
    expect((await link("/api/links", erin.cookie, ["q1", "Q2"])).tags).toEqual(["q1", "q2"]);
    expect((await t.call("POST", "/api/tags", { body: { name: "q6" }, cookie: erin.cookie })).status).toBe(201);
    expect((await t.call("POST", "/api/tags", { body: { name: "q7" }, cookie: erin.cookie })).status).toBe(403);
    // Bulk: items naming new tags past the cap are refused alone.
    const bulk = await t.call("POST", "/api/links/bulk", {
      body: { links: [{ originalUrl: "https://example.com/b1", title: "B1", tags: ["new-one"] }, { originalUrl: "https://example.com/b2", title: "B2", tags: ["q1"] }] },
      cookie: erin.cookie,
    });
    expect(bulk.json.results[0]).toMatchObject({ status: "refused", error: { code: "QUOTA_EXCEEDED" } });
    expect(bulk.json.results[1]).toMatchObject({ status: "created" });
  });

  test("a tag's analytics add up its links' clicks from the roll-ups", async () => {
    const fay = await t.signUp("fay");
    const a = await link("/api/links", fay.cookie, ["camp"]);
    const b = await link("/api/pic-drift-links", fay.cookie, ["camp"]);
    const c = await link("/api/links", fay.cookie, []);
    for (const code of [a.shortCode, a.shortCode, b.shortCode, c.shortCode]) await t.call("GET", `/${code}`);
    const tag = (await t.call("GET", "/api/tags", { cookie: fay.cookie })).json.find((x: { name: string }) => x.name === "camp");
    const r = await t.call("GET", `/api/tags/${tag.id}/analytics?days=7`, { cookie: fay.cookie });
    expect(r.status).toBe(200);
    expect(r.json.totalClicks).toBe(3);
    expect(r.json.days).toHaveLength(7);
    expect(r.json.days.at(-1).count).toBe(3);
    expect(r.json.topLinks.map((l: { id: number; clickCount: number }) => [l.id, l.clickCount])).toEqual([
      [a.id, 2],
      [b.id, 1],
    ]);
    expect((await t.call("GET", `/api/tags/${tag.id}/analytics?days=8`, { cookie: fay.cookie })).status).toBe(400);
  });
});

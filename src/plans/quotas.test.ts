// Per-user quotas (issue 21): every cap at exactly its value and one past, in a single create,
// in bulk and in import (per row), concurrent creates that must not overshoot, and the one error
// shape (403 QUOTA_EXCEEDED). Runs on both backends (TEST_BACKEND=postgres).
import { describe, expect, test } from "bun:test";
import { ORIGIN, setup } from "../test/helpers";
import { randomPhone, topicsStore } from "../topics/store";
import { QUOTA_MSG } from "./quotas";

const CAPS = { MAX_LINKS_PER_USER: "5", MAX_API_KEYS_PER_USER: "3", MAX_TOPICS_PER_USER: "3", MAX_TITLES_PER_TOPIC: "3", MAX_TOPIC_TEXT_BYTES: "1000" };
const t = await setup({ ...CAPS, FREE_TOPIC_LIMIT: "2", HEAVY_RATE_LIMIT: "0" });

const quotaError = (message: string) => ({ error: { code: "QUOTA_EXCEEDED", message } });
const linksOf = async (userId: number) => (await t.database.get<{ n: number }>("SELECT COUNT(*) AS n FROM short_links WHERE user_id = ?", userId))!.n;
const create = (cookie: string, i: number | string) => t.call("POST", "/api/links", { body: { originalUrl: `https://example.com/${i}`, title: `Link ${i}` }, cookie });
const bulk = (cookie: string, items: unknown[]) => t.call("POST", "/api/links/bulk", { body: { links: items } as never, cookie });
const item = (i: number | string, shortCode?: string) => ({ originalUrl: `https://example.com/${i}`, title: `Item ${i}`, ...(shortCode ? { shortCode } : {}) });

async function importCsv(cookie: string, rows: string[]) {
  const res = await t.app.handle(
    new Request(`${ORIGIN}/api/links/import`, { method: "POST", headers: { host: "localhost:3000", "content-type": "text/csv", cookie }, body: ["url,code,title", ...rows].join("\n") }),
  );
  return { status: res.status, json: (await res.json()) as any };
}

describe("links per user (MAX_LINKS_PER_USER)", () => {
  test("single create: the 5th is accepted, the 6th refused with 403 QUOTA_EXCEEDED and nothing written", async () => {
    const u = await t.signUp("single");
    for (let i = 1; i <= 5; i++) expect((await create(u.cookie, i)).status).toBe(201);
    expect(await linksOf(u.user.id)).toBe(5);
    const r = await create(u.cookie, 6);
    expect(r.status).toBe(403);
    expect(r.json).toEqual(quotaError(QUOTA_MSG.links(5)));
    expect(await linksOf(u.user.id)).toBe(5);
    // A deleted link frees its place.
    const [first] = (await t.call("GET", "/api/links", { cookie: u.cookie })).json;
    expect((await t.call("DELETE", `/api/links/${first.id}`, { cookie: u.cookie })).status).toBe(200);
    expect((await create(u.cookie, 7)).status).toBe(201);
  });

  test("another user's links do not count against yours", async () => {
    const u = await t.signUp("fresh");
    expect((await create(u.cookie, "fresh")).status).toBe(201);
    expect(await linksOf(u.user.id)).toBe(1);
  });

  test("bulk: items fill the places left in order; every later one is refused per item, earlier ones are kept", async () => {
    const u = await t.signUp("bulker");
    expect((await create(u.cookie, "pre")).status).toBe(201);
    // 4 places left: a taken code does not use one, so items 0-4 minus the clash fill exactly 4.
    await create((await t.signUp("squatter")).cookie, "x");
    const taken = (await t.database.get<{ short_code: string }>("SELECT short_code FROM short_links WHERE original_url = 'https://example.com/x'"))!.short_code;
    const r = await bulk(u.cookie, [item(0), item(1, taken), item(2), item(3, "bulk-quota-3"), item(4), item(5), item(6)]);
    expect(r.status).toBe(200);
    expect(r.json.created).toBe(4);
    expect(r.json.results.map((x: { status: string; error?: { code: string } }) => x.error?.code ?? x.status)).toEqual([
      "created",
      "CONFLICT",
      "created",
      "created",
      "created",
      "QUOTA_EXCEEDED",
      "QUOTA_EXCEEDED",
    ]);
    expect(r.json.results[5].error).toEqual({ code: "QUOTA_EXCEEDED", message: QUOTA_MSG.links(5) });
    expect(await linksOf(u.user.id)).toBe(5);
    // Full: a whole bulk is refused item by item, nothing written, not a 5xx.
    const again = await bulk(u.cookie, [item(7)]);
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ created: 0, refused: 1 });
    expect(await linksOf(u.user.id)).toBe(5);
    // The refused items never reached the redirect map.
    expect((await t.call("GET", "/bulk-quota-3")).status).toBe(302);
  });

  test("import: rows up to the cap are imported, each one past it is skipped with QUOTA_EXCEEDED", async () => {
    const u = await t.signUp("importer");
    for (let i = 0; i < 3; i++) expect((await create(u.cookie, `imp-pre-${i}`)).status).toBe(201);
    const r = await importCsv(u.cookie, ["https://example.com/a,imp-a,A", "https://example.com/b,imp-b,B", "https://example.com/c,imp-c,C"]);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ rows: 3, imported: 2, skipped: 1 });
    expect(r.json.results[2]).toEqual({ row: 4, status: "skipped", error: { code: "QUOTA_EXCEEDED", message: QUOTA_MSG.links(5) } });
    expect(await linksOf(u.user.id)).toBe(5);
    expect((await t.call("GET", "/imp-c")).status).toBe(404);
  });

  test("concurrent creates and bulks never take the owner past the cap", async () => {
    const u = await t.signUp("racer");
    const singles = Array.from({ length: 8 }, (_, i) => create(u.cookie, `race-${i}`));
    const bulks = Array.from({ length: 4 }, (_, b) => bulk(u.cookie, [item(`rb-${b}-0`), item(`rb-${b}-1`)]));
    const [s, b] = await Promise.all([Promise.all(singles), Promise.all(bulks)]);
    const made = s.filter((r) => r.status === 201).length + b.reduce((n, r) => n + r.json.created, 0);
    expect(s.every((r) => r.status === 201 || (r.status === 403 && r.json.error.code === "QUOTA_EXCEEDED"))).toBe(true);
    expect(made).toBe(5);
    expect(await linksOf(u.user.id)).toBe(5);
  });
});

describe("API keys per user (MAX_API_KEYS_PER_USER)", () => {
  test("the 3rd key is created, the 4th refused; revoking one frees its place", async () => {
    const u = await t.signUp("keyholder");
    const make = (name: string) => t.call("POST", "/api/api-keys", { body: { name, scope: "read" }, cookie: u.cookie });
    const ids: number[] = [];
    for (const name of ["one", "two", "three"]) {
      const r = await make(name);
      expect(r.status).toBe(201);
      ids.push(r.json.id);
    }
    const r = await make("four");
    expect(r.status).toBe(403);
    expect(r.json).toEqual(quotaError(QUOTA_MSG.apiKeys(3)));
    expect((await t.database.get<{ n: number }>("SELECT COUNT(*) AS n FROM api_keys WHERE user_id = ?", u.user.id))!.n).toBe(3);
    expect((await t.call("DELETE", `/api/api-keys/${ids[0]}`, { cookie: u.cookie })).status).toBe(200);
    expect((await make("four")).status).toBe(201);
  });

  test("concurrent creates stop at the cap", async () => {
    const u = await t.signUp("keyracer");
    const rs = await Promise.all(Array.from({ length: 8 }, (_, i) => t.call("POST", "/api/api-keys", { body: { name: `k${i}`, scope: "read" }, cookie: u.cookie })));
    expect(rs.filter((r) => r.status === 201).length).toBe(3);
    expect(rs.filter((r) => r.status === 403).length).toBe(5);
  });
});

describe("topics per user (MAX_TOPICS_PER_USER), premium included", () => {
  test("free: the plan's limit (2) answers first; premium: the 3rd is created, the 4th refused", async () => {
    const u = await t.signUp("topical");
    const make = (name: string) => t.call("POST", "/api/topics", { body: { name }, cookie: u.cookie });
    expect((await make("One")).status).toBe(201);
    expect((await make("Two")).status).toBe(201);
    const free = await make("Three");
    expect(free.status).toBe(403);
    expect(free.json.error.code).toBe("FORBIDDEN");
    expect((await t.call("POST", "/api/subscription/upgrade", { cookie: u.cookie })).status).toBe(200);
    expect((await make("Three")).status).toBe(201);
    const r = await make("Four");
    expect(r.status).toBe(403);
    expect(r.json).toEqual(quotaError(QUOTA_MSG.topics(3)));
    expect((await t.database.get<{ n: number }>("SELECT COUNT(*) AS n FROM topics WHERE user_id = ?", u.user.id))!.n).toBe(3);
  });

  test("concurrent creates by a premium user stop at the cap", async () => {
    const u = await t.signUp("topicracer");
    await t.call("POST", "/api/subscription/upgrade", { cookie: u.cookie });
    const rs = await Promise.all(Array.from({ length: 6 }, (_, i) => t.call("POST", "/api/topics", { body: { name: `Race ${i}` }, cookie: u.cookie })));
    expect(rs.filter((r) => r.status === 201).length).toBe(3);
    expect(rs.filter((r) => r.status === 403 && r.json.error.code === "QUOTA_EXCEEDED").length).toBe(3);
  });
});

describe("titles per topic and text per topic", async () => {
  const owner = await t.signUp("titler");
  const member = await t.signUp("member");
  await t.database.run("INSERT INTO shares (owner_id, member_id, created_at) VALUES (?, ?, ?)", owner.user.id, member.user.id, new Date().toISOString());
  const topics = topicsStore(t.database);
  const phone = () => randomPhone("+1555");
  const titlesIn = async (topicId: number) => (await t.database.get<{ n: number }>("SELECT COUNT(*) AS n FROM titles WHERE topic_id = ?", topicId))!.n;

  test("the 3rd title goes in, the 4th is refused, by the owner and by a member alike", async () => {
    const topic = await topics.create(owner.user.id, { name: "Counted", emoji: null }, phone);
    const path = `/api/titler/${topic.linkSlug}/titles`;
    const add = (name: string, cookie = owner.cookie) => t.call("POST", path, { body: { name, version: 1 }, cookie });
    expect((await add("a")).status).toBe(201);
    expect((await add("b", member.cookie)).status).toBe(201);
    expect((await add("c")).status).toBe(201);
    for (const cookie of [owner.cookie, member.cookie]) {
      const r = await add("d", cookie);
      expect(r.status).toBe(403);
      expect(r.json).toEqual(quotaError(QUOTA_MSG.titles(3)));
    }
    expect(await titlesIn(topic.id)).toBe(3);
  });

  test("text: a title taking the topic to exactly 1000 bytes goes in, one byte more is refused; an edit that grows it too", async () => {
    const topic = await topics.create(owner.user.id, { name: "Wordy", emoji: null }, phone);
    const path = `/api/titler/${topic.linkSlug}/titles`;
    // name "x" counts twice (name and original name): 2 bytes + notes.
    const first = await t.call("POST", path, { body: { name: "x", version: 1, notes: "n".repeat(498) }, cookie: owner.cookie });
    expect(first.status).toBe(201);
    const over = await t.call("POST", path, { body: { name: "y", version: 1, notes: "é".repeat(250) }, cookie: owner.cookie });
    expect(over.status).toBe(403);
    expect(over.json).toEqual(quotaError(QUOTA_MSG.text(1000)));
    const exact = await t.call("POST", path, { body: { name: "y", version: 1, notes: "é".repeat(249) }, cookie: owner.cookie });
    expect(exact.status).toBe(201);
    expect(await titlesIn(topic.id)).toBe(2);
    const grow = await t.call("PUT", `${path}/${first.json.id}`, { body: { notes: "n".repeat(499) }, cookie: owner.cookie });
    expect(grow.status).toBe(403);
    expect(grow.json.error.code).toBe("QUOTA_EXCEEDED");
    const row = await t.database.get<{ notes: string }>("SELECT notes FROM titles WHERE id = ?", first.json.id);
    expect(row!.notes.length).toBe(498);
    const shrink = await t.call("PUT", `${path}/${first.json.id}`, { body: { notes: "short" }, cookie: owner.cookie });
    expect(shrink.status).toBe(200);
  });
});

import { describe, expect, test } from "bun:test";
import { HOSTILE, setup } from "../test/helpers";
import { topicsStore } from "./store";

const t = await setup({ FREE_TOPIC_LIMIT: "3", PHONE_PREFIX: "+1555" });
const alice = await t.signUp("alice");
const bob = await t.signUp("bob");
const premium = await t.signUp("prem");
await t.ctx.accounts.setPlan(premium.user.id, "premium", new Date(Date.now() + 86_400_000).toISOString());

const topicRow = (id: number) => t.database.get("SELECT * FROM topics WHERE id = ?", id);
const orderOf = (userId: number) => t.database.all("SELECT id, sort_order FROM topics WHERE user_id = ? ORDER BY id", userId);
const create = async (cookie: string, body: unknown) => {
  const r = await t.call("POST", "/api/topics", { cookie, body: body as never });
  if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.text}`);
  return r.json;
};

const victim = await t.signUp("victim");
const secret = await create(victim.cookie, { name: "Secret Plans" });

type Scenario = { name: string; body?: unknown; raw?: string; headers?: Record<string, string>; status: number; message?: string | RegExp };

describe("POST /api/topics", () => {
  test("creates a topic with every spec field", async () => {
    const r = await t.call("POST", "/api/topics", { cookie: alice.cookie, body: { name: "  Weekend Plans  " } });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({
      userId: alice.user.id,
      username: "alice",
      name: "Weekend Plans",
      emoji: null,
      linkSlug: "weekend-plans",
      order: 0,
      isDefault: false,
      accessType: "personal",
      clickCount: 0,
    });
    expect(r.json.phoneNumber).toMatch(/^\+1555\d{7}$/);
    expect(r.json.createdAt).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect(r.json.updatedAt).toBe(r.json.createdAt);
    // A second one goes after it in custom order and gets its own number and slug.
    const second = await create(alice.cookie, { name: "weekend plans!" });
    expect(second.order).toBe(1);
    expect(second.linkSlug).toBe("weekend-plans-2");
    expect(second.phoneNumber).not.toBe(r.json.phoneNumber);
  });

  test("a premium user's leading emoji is split from the name", async () => {
    const r = await t.call("POST", "/api/topics", { cookie: premium.cookie, body: { name: "🚀 Launch Day" } });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ name: "Launch Day", emoji: "🚀", linkSlug: "launch-day" });
    const flag = await create(premium.cookie, { name: "🇨🇦 Canada trip" });
    expect(flag).toMatchObject({ name: "Canada trip", emoji: "🇨🇦" });
    const explicit = await create(premium.cookie, { name: "Family", emoji: "👨‍👩‍👧" });
    expect(explicit).toMatchObject({ name: "Family", emoji: "👨‍👩‍👧" });
    // An emoji with no name after it is the name itself.
    const only = await create(premium.cookie, { name: "🎉" });
    expect(only).toMatchObject({ name: "🎉", emoji: null, linkSlug: "topic" });
  });

  test("a name of exactly 50 characters is accepted; names without a-z0-9 get a fallback slug", async () => {
    const r = await t.call("POST", "/api/topics", { cookie: bob.cookie, body: { name: "x".repeat(50) } });
    expect(r.status).toBe(201);
    const jp = await create(bob.cookie, { name: "日本語" });
    expect(jp.linkSlug).toBe("日本語");
    expect(jp.name).toBe("日本語");
  });

  test("names in any script keep their letters in the slug; emoji-only names get the fallback", async () => {
    // Issue 25: a topic in another script keeps its letters (not "/bob/topic"); the percent-
    // encoded link the browser sends finds it, and its titles.
    const he = await create(premium.cookie, { name: "שלום עולם" });
    expect(he.linkSlug).toBe("שלום-עולם");
    const enc = encodeURIComponent(he.linkSlug);
    const found = await t.call("GET", `/api/topic/prem/${enc}`, { cookie: premium.cookie });
    expect(found.status).toBe(200);
    expect(found.json.id).toBe(he.id);
    const title = await t.call("POST", `/api/prem/${enc}/titles`, { cookie: premium.cookie, body: { name: "Привет", version: 1 } });
    expect(title.status).toBe(201);
    expect(title.json.slug).toBe("привет");
    // A name with no letter or number still gets the spec's fallback, with -2 for the next.
    const [a, b] = [await create(premium.cookie, { name: "🚀" }), await create(premium.cookie, { name: "🌊" })];
    expect(a.linkSlug).toMatch(/^topic(-\d+)?$/);
    expect(b.linkSlug).toMatch(/^topic-\d+$/);
    expect(a.linkSlug).not.toBe(b.linkSlug);
  });

  const invalid: Scenario[] = [
    { name: "missing name", body: {}, status: 400, message: "Topic name is required" },
    { name: "empty name", body: { name: "" }, status: 400, message: "Topic name is required" },
    { name: "blank name", body: { name: "    " }, status: 400, message: "Topic name is required" },
    { name: "51-character name", body: { name: "y".repeat(51) }, status: 400, message: "Topic name must be less than 50 characters" },
    { name: "10 kB name", body: { name: HOSTILE.huge }, status: 400, message: "Topic name must be less than 50 characters" },
    { name: "name as a number", body: { name: 42 }, status: 400, message: "Topic name must be text" },
    { name: "name as an object", body: { name: { $ne: null } }, status: 400, message: "Topic name must be text" },
    { name: "bad access type", body: { name: "ok", accessType: "everyone" }, status: 400, message: "Access must be personal, public or private" },
    { name: "long emoji text", body: { name: "ok", emoji: "not an emoji" }, status: 400, message: "Emoji must be a single emoji" },
    { name: "body is an array", body: [1, 2], status: 400 },
    { name: "body is null", body: null, status: 400 },
    { name: "malformed JSON", raw: '{"name": "x",', status: 400, message: "The request body is not valid JSON" },
    { name: "plain text body", raw: "name=x", headers: { "content-type": "text/plain" }, status: 415, message: "Content-Type: application/json" },
  ];
  for (const s of invalid) {
    test(`refuses ${s.name} and adds nothing`, async () => {
      const before = await t.count("topics");
      const r = await t.call("POST", "/api/topics", { cookie: alice.cookie, body: s.body as never, raw: s.raw, headers: s.headers });
      expect(r.status).toBe(s.status);
      expect(r.json.error.code).toBeString();
      if (s.message) expect(r.json.error.message).toMatch(s.message);
      expect(await t.count("topics")).toBe(before);
    });
  }

  test("hostile text is stored as plain data", async () => {
    const cookie = (await t.signUp("hostile")).cookie;
    for (const name of [HOSTILE.script, HOSTILE.sql, "naïve café"]) {
      const r = await create(cookie, { name });
      expect(r.name).toBe(name);
      const got = await t.call("GET", `/api/topic/hostile/${r.linkSlug}`, { cookie });
      expect(got.json.name).toBe(name);
    }
    expect(await t.count("users")).toBeGreaterThan(0);
  });

  test("creates at once never share a slug, order or number, and never fail", async () => {
    const u = await t.signUp("burst");
    await t.ctx.accounts.setPlan(u.user.id, "premium", null);
    const rs = await Promise.all(Array.from({ length: 8 }, () => t.call("POST", "/api/topics", { cookie: u.cookie, body: { name: "Same Name" } })));
    expect(rs.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(rs.map((r) => r.json.linkSlug).sort()).toEqual(["same-name", ...Array.from({ length: 7 }, (_, i) => `same-name-${i + 2}`)].sort());
    expect(rs.map((r) => r.json.order).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(new Set(rs.map((r) => r.json.phoneNumber)).size).toBe(8);
  });

  test("signed out is 401 and adds nothing", async () => {
    const before = await t.count("topics");
    const r = await t.call("POST", "/api/topics", { body: { name: "x" } });
    expect(r.status).toBe(401);
    expect(await t.count("topics")).toBe(before);
  });
});

describe("plan limits on topics", () => {
  test("a free user cannot add an emoji (403, nothing added)", async () => {
    const u = await t.signUp("freeemoji");
    for (const body of [{ name: "🚀 Launch" }, { name: "Launch", emoji: "🚀" }]) {
      const before = await t.count("topics");
      const r = await t.call("POST", "/api/topics", { cookie: u.cookie, body });
      expect(r.status).toBe(403);
      expect(r.json.error.message).toBe("Topic emoji are a Premium feature. Upgrade to Premium to add emoji to your topics.");
      expect(await t.count("topics")).toBe(before);
    }
  });

  test("a free user stops at FREE_TOPIC_LIMIT; premium does not; expired premium reads as free", async () => {
    const u = await t.signUp("limited");
    for (let i = 1; i <= 3; i++) await create(u.cookie, { name: `T${i}` });
    const r = await t.call("POST", "/api/topics", { cookie: u.cookie, body: { name: "T4" } });
    expect(r.status).toBe(403);
    expect(r.json.error.message).toBe("The Free plan includes up to 3 topics. Upgrade to Premium for unlimited topics.");
    expect(await t.database.get("SELECT COUNT(*) AS n FROM topics WHERE user_id = ?", u.user.id)).toEqual({ n: 3 });

    await t.ctx.accounts.setPlan(u.user.id, "premium", new Date(Date.now() - 1000).toISOString());
    expect((await t.call("POST", "/api/topics", { cookie: u.cookie, body: { name: "T4" } })).status).toBe(403);

    await t.ctx.accounts.setPlan(u.user.id, "premium", new Date(Date.now() + 60_000).toISOString());
    expect((await t.call("POST", "/api/topics", { cookie: u.cookie, body: { name: "🎯 T4" } })).status).toBe(201);
  });

  test("creates sent at once stop at the limit too (the count is read in the create's transaction)", async () => {
    const u = await t.signUp("racing");
    const rs = await Promise.all(Array.from({ length: 6 }, (_, i) => t.call("POST", "/api/topics", { cookie: u.cookie, body: { name: `R${i}` } })));
    expect(rs.map((r) => r.status).sort()).toEqual([201, 201, 201, 403, 403, 403]);
    expect(await t.database.get("SELECT COUNT(*) AS n FROM topics WHERE user_id = ?", u.user.id)).toEqual({ n: 3 });
  });
});

describe("GET /api/topics", () => {
  test("lists only the caller's topics in custom order", async () => {
    const u = await t.signUp("lister");
    await create(u.cookie, { name: "One" });
    await create(u.cookie, { name: "Two" });
    const r = await t.call("GET", "/api/topics", { cookie: u.cookie });
    expect(r.status).toBe(200);
    expect(r.json.map((x: { name: string }) => x.name)).toEqual(["One", "Two"]);
    expect(r.json.every((x: { userId: number }) => x.userId === u.user.id)).toBe(true);
    expect((await t.call("GET", "/api/topics")).status).toBe(401);
  });
});

describe("PUT /api/topics/:id", () => {
  test("renames, keeps the old slug working, changes access", async () => {
    const u = await t.signUp("renamer");
    const topic = await create(u.cookie, { name: "Old Name" });
    const r = await t.call("PUT", `/api/topics/${topic.id}`, { cookie: u.cookie, body: { name: "New Name" } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ id: topic.id, name: "New Name", linkSlug: "new-name", phoneNumber: topic.phoneNumber });
    for (const slug of ["old-name", "new-name"]) {
      const got = await t.call("GET", `/api/topic/renamer/${slug}`, { cookie: u.cookie });
      expect(got.status).toBe(200);
      expect(got.json).toMatchObject({ id: topic.id, name: "New Name", slug: "new-name", role: "owner" });
    }
    const acc = await t.call("PUT", `/api/topics/${topic.id}`, { cookie: u.cookie, body: { accessType: "public" } });
    expect(acc.json).toMatchObject({ name: "New Name", accessType: "public" });
    // Renaming back reuses the topic's own earlier slug.
    const back = await t.call("PUT", `/api/topics/${topic.id}`, { cookie: u.cookie, body: { name: "Old Name" } });
    expect(back.json.linkSlug).toBe("old-name");
  });

  test("a free user keeps an emoji they already have but cannot set a new one", async () => {
    const u = await t.signUp("downgraded");
    await t.ctx.accounts.setPlan(u.user.id, "premium", new Date(Date.now() + 60_000).toISOString());
    const topic = await create(u.cookie, { name: "🚀 Rocket" });
    await t.ctx.accounts.setPlan(u.user.id, "free", null);
    const keep = await t.call("PUT", `/api/topics/${topic.id}`, { cookie: u.cookie, body: { name: "🚀 Rocket ship" } });
    expect(keep.status).toBe(200);
    expect(keep.json).toMatchObject({ name: "Rocket ship", emoji: "🚀" });
    const swap = await t.call("PUT", `/api/topics/${topic.id}`, { cookie: u.cookie, body: { name: "🛸 Rocket ship" } });
    expect(swap.status).toBe(403);
    expect(await topicRow(topic.id)).toMatchObject({ emoji: "🚀" });
    const drop = await t.call("PUT", `/api/topics/${topic.id}`, { cookie: u.cookie, body: { name: "Plain" } });
    expect(drop.json).toMatchObject({ name: "Plain", emoji: null });
  });

  const invalid: Scenario[] = [
    { name: "empty name", body: { name: "" }, status: 400, message: "Topic name is required" },
    { name: "51-character name", body: { name: "z".repeat(51) }, status: 400, message: "Topic name must be less than 50 characters" },
    { name: "name as a number", body: { name: 7 }, status: 400, message: "Topic name must be text" },
    { name: "bad access", body: { accessType: "world" }, status: 400 },
    { name: "malformed JSON", raw: "{", status: 400 },
  ];
  for (const s of invalid) {
    test(`refuses ${s.name}; the row is unchanged`, async () => {
      const topic = await create(premium.cookie, { name: `Stable ${s.name}` });
      const before = await topicRow(topic.id);
      const r = await t.call("PUT", `/api/topics/${topic.id}`, { cookie: premium.cookie, body: s.body as never, raw: s.raw });
      expect(r.status).toBe(s.status);
      if (s.message) expect(r.json.error.message).toMatch(s.message);
      expect(await topicRow(topic.id)).toEqual(before);
    });
  }
});

describe("another user's topic is 404 and unchanged", () => {
  test.each([
    ["read via link", "GET", `/api/topic/victim/secret-plans`, undefined],
    ["update", "PUT", `/api/topics/${secret.id}`, { name: "pwned" }],
    ["update access", "PUT", `/api/topics/${secret.id}`, { accessType: "public" }],
    ["delete", "DELETE", `/api/topics/${secret.id}`, undefined],
    ["contact card", "GET", `/api/topics/${secret.id}/contact.vcf`, undefined],
  ] as const)("%s", async (_name, method, path, body) => {
    const before = await topicRow(secret.id);
    const r = await t.call(method, path, { cookie: bob.cookie, body: body as never });
    expect(r.status).toBe(404);
    expect(r.json.error.code).toBe("NOT_FOUND");
    expect(await topicRow(secret.id)).toEqual(before);
  });

  test("reorder only ever moves the caller's own topics", async () => {
    const victimId = victim.user.id;
    const before = await orderOf(victimId);
    const r = await t.call("POST", "/api/topics/reorder", { cookie: bob.cookie, body: { fromIndex: 0, toIndex: 1 } });
    expect(r.status).toBe(200);
    expect(await orderOf(victimId)).toEqual(before);
  });

  test.each(["abc", "0", "-1", "1.5", "99999999", "2147483648", "999999999999999", "1e3", "%27%20OR%201=1"])("id %p is 404", async (id) => {
    const r = await t.call("PUT", `/api/topics/${id}`, { cookie: bob.cookie, body: { name: "x" } });
    expect(r.status).toBe(404);
  });
});

describe("DELETE /api/topics/:id", () => {
  test("deletes the topic and its slugs", async () => {
    const u = await t.signUp("deleter");
    const topic = await create(u.cookie, { name: "Gone Soon" });
    const r = await t.call("DELETE", `/api/topics/${topic.id}`, { cookie: u.cookie });
    expect(r.status).toBe(204);
    expect(await topicRow(topic.id)).toBeNull();
    expect(await t.database.get("SELECT COUNT(*) AS n FROM topic_slugs WHERE topic_id = ?", topic.id)).toEqual({ n: 0 });
    expect((await t.call("DELETE", `/api/topics/${topic.id}`, { cookie: u.cookie })).status).toBe(404);
    expect((await t.call("GET", "/api/topic/deleter/gone-soon", { cookie: u.cookie })).status).toBe(404);
  });
});

describe("POST /api/topics/reorder", () => {
  test("moves one topic and renumbers the rest", async () => {
    const u = await t.signUp("sorter");
    await t.ctx.accounts.setPlan(u.user.id, "premium", null);
    for (const n of ["A", "B", "C", "D"]) await create(u.cookie, { name: n });
    const names = async () => (await t.call("GET", "/api/topics", { cookie: u.cookie })).json.map((x: { name: string }) => x.name);
    const r = await t.call("POST", "/api/topics/reorder", { cookie: u.cookie, body: { fromIndex: 0, toIndex: 2 } });
    expect(r.status).toBe(200);
    expect(r.json.map((x: { name: string; order: number }) => [x.name, x.order])).toEqual([["B", 0], ["C", 1], ["A", 2], ["D", 3]]);
    expect(await names()).toEqual(["B", "C", "A", "D"]);
    await t.call("POST", "/api/topics/reorder", { cookie: u.cookie, body: { fromIndex: 3, toIndex: 0 } });
    expect(await names()).toEqual(["D", "B", "C", "A"]);
    // Dropping on itself changes nothing.
    await t.call("POST", "/api/topics/reorder", { cookie: u.cookie, body: { fromIndex: 1, toIndex: 1 } });
    expect(await names()).toEqual(["D", "B", "C", "A"]);
  });

  const invalid: Scenario[] = [
    { name: "missing indexes", body: {}, status: 400, message: /fromIndex/ },
    { name: "out-of-range index", body: { fromIndex: 0, toIndex: 99 }, status: 400, message: "fromIndex and toIndex must point at topics in your list" },
    { name: "negative index", body: { fromIndex: -1, toIndex: 0 }, status: 400, message: "fromIndex must be 0 or more" },
    { name: "fractional index", body: { fromIndex: 0.5, toIndex: 0 }, status: 400, message: "fromIndex must be a whole number" },
    { name: "string index", body: { fromIndex: "0", toIndex: 1 }, status: 400, message: "fromIndex must be a number" },
    { name: "malformed JSON", raw: "{]", status: 400 },
  ];
  for (const s of invalid) {
    test(`refuses ${s.name}; order unchanged`, async () => {
      const before = await orderOf(alice.user.id);
      const r = await t.call("POST", "/api/topics/reorder", { cookie: alice.cookie, body: s.body as never, raw: s.raw });
      expect(r.status).toBe(s.status);
      if (s.message) expect(r.json.error.message).toMatch(s.message);
      expect(await orderOf(alice.user.id)).toEqual(before);
    });
  }
});

describe("GET /api/topics/:id/contact.vcf", () => {
  test("is a vCard 4.0 with the name, number and link", async () => {
    const topic = await create(premium.cookie, { name: "🎸 Band; practice, notes" });
    const r = await t.call("GET", `/api/topics/${topic.id}/contact.vcf`, { cookie: premium.cookie });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/vcard; charset=utf-8");
    expect(r.headers.get("content-disposition")).toBe(`attachment; filename="band-practice-notes.vcf"`);
    const lines = r.text.split("\r\n");
    expect(lines[0]).toBe("BEGIN:VCARD");
    expect(lines[1]).toBe("VERSION:4.0");
    expect(lines).toContain("FN:🎸 Band\\; practice\\, notes");
    expect(lines).toContain(`TEL;VALUE=uri;TYPE=cell:tel:${topic.phoneNumber}`);
    expect(lines).toContain("URL:http://localhost:3000/prem/band-practice-notes");
    expect(lines.at(-2)).toBe("END:VCARD");
    // RFC 6350: no line longer than 75 octets.
    for (const l of lines) expect(new TextEncoder().encode(l).length).toBeLessThanOrEqual(75);
  });
});

describe("GET /api/topic/:username/:topicSlug and clickCount", () => {
  test("reading the topic (as the message list and detail pages do) never counts", async () => {
    const topic = await create(premium.cookie, { name: "Reading Room", accessType: "public" });
    const own = await t.call("GET", "/api/topic/prem/reading-room", { cookie: premium.cookie });
    expect(own.json).toMatchObject({ role: "owner", clickCount: 0 });
    for (let i = 0; i < 3; i++) {
      const other = await t.call("GET", "/api/topic/PREM/reading-room", { cookie: bob.cookie });
      expect(other.status).toBe(200);
      expect(other.json).toMatchObject({ id: topic.id, role: "viewer", clickCount: 0, slug: "reading-room" });
    }
    expect(await topicRow(topic.id)).toMatchObject({ click_count: 0 });
    expect((await t.call("GET", "/api/topic/prem/reading-room")).status).toBe(401);
    expect((await t.call("GET", "/api/topic/nobody/reading-room", { cookie: bob.cookie })).status).toBe(404);
    expect((await t.call("GET", `/api/topic/prem/${encodeURIComponent(HOSTILE.sql)}`, { cookie: bob.cookie })).status).toBe(404);
    for (const path of [`/api/topic/prem/${encodeURIComponent(HOSTILE.nul)}`, `/api/topic/${encodeURIComponent(HOSTILE.nul)}/reading-room`]) {
      const r = await t.call("GET", path, { cookie: bob.cookie });
      expect({ path, status: r.status, code: r.json.error.code }).toEqual({ path, status: 404, code: "NOT_FOUND" });
    }
  });

  test("a topic-page open counts once per viewer per day, never for the owner", async () => {
    const topic = await create(premium.cookie, { name: "Public Board", accessType: "public" });
    const open = (cookie?: string, slug = "public-board", user = "prem") =>
      t.call("POST", `/api/topic/${user}/${encodeURIComponent(slug)}/open`, { cookie });
    // The owner never counts, however often they open it.
    for (let i = 0; i < 2; i++) {
      const own = await open(premium.cookie);
      expect(own.status).toBe(200);
      expect(own.json).toEqual({ counted: false, clickCount: 0 });
    }
    expect(await topicRow(topic.id)).toMatchObject({ click_count: 0 });
    const first = await open(bob.cookie, "public-board", "PREM");
    expect(first.json).toEqual({ counted: true, clickCount: 1 });
    expect((await open(alice.cookie)).json).toEqual({ counted: true, clickCount: 2 });
    // Reloads and replays of the same viewer's open, even all at once, count nothing more today.
    const again = await Promise.all(Array.from({ length: 20 }, () => open(bob.cookie)));
    expect(again.every((r) => r.status === 200 && r.json.counted === false && r.json.clickCount === 2)).toBe(true);
    expect(await topicRow(topic.id)).toMatchObject({ click_count: 2 });
    // The owner's dashboard shows it.
    const mine = (await t.call("GET", "/api/topics", { cookie: premium.cookie })).json as { id: number; clickCount: number }[];
    expect(mine.find((x) => x.id === topic.id)?.clickCount).toBe(2);
    // Another day is another open (the store is told the day; yesterday's keys are swept).
    const store = topicsStore(t.database);
    expect(await store.recordOpen(topic.id, bob.user.id, new Date(Date.now() + 86_400_000))).toBe(true);
    expect(await store.recordOpen(topic.id, bob.user.id, new Date(Date.now() + 86_400_000))).toBe(false);
    expect(await topicRow(topic.id)).toMatchObject({ click_count: 3 });
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect(await t.database.get("SELECT COUNT(*) AS n FROM topic_opens WHERE day < ?", tomorrow)).toEqual({ n: 0 });
    // Nothing counts for the unauthenticated, unknown or hidden.
    expect((await open(undefined)).status).toBe(401);
    expect((await open(bob.cookie, "no-such-topic")).status).toBe(404);
    expect((await open(bob.cookie, HOSTILE.sql)).status).toBe(404);
    expect((await open(bob.cookie, HOSTILE.nul)).status).toBe(404);
    expect((await open(bob.cookie, "secret-plans", "victim")).status).toBe(404);
    expect(await topicRow(secret.id)).toMatchObject({ click_count: 0 });
    expect(await topicRow(topic.id)).toMatchObject({ click_count: 3 });
  });
});

// A topic's titles page by page (issue 21): keyset cursors with a total, a name search, one
// series by name, sorts, and the page-size and cursor rules; another topic's titles never appear.
import { describe, expect, test } from "bun:test";
import { HOSTILE, setup } from "../test/helpers";
import { randomPhone, topicsStore } from "../topics/store";

const t = await setup();
const topics = topicsStore(t.database);
const owner = await t.signUp("tess");
const stranger = await t.signUp("stan");
const mine = await topics.create(owner.user.id, { name: "Scripts", emoji: null }, () => randomPhone("+1555"));
const theirs = await topics.create(stranger.user.id, { name: "Other", emoji: null }, () => randomPhone("+1555"));
const P = `/api/tess/${mine.linkSlug}/titles`;

type T = { id: number; name: string; version: number };
const add = async (name: string, version?: number, path = P, cookie = owner.cookie) => {
  const r = await t.call("POST", path, { body: { name, ...(version ? { version } : {}) }, cookie });
  expect(r.status, r.text).toBe(201);
  return r.json as T;
};

// 30 series, the first three with a second version; a name with LIKE wildcards in it.
for (let i = 0; i < 30; i++) await add(`Title ${String(i).padStart(2, "0")}`, 1);
for (let i = 0; i < 3; i++) await add(`Title ${String(i).padStart(2, "0")}`);
await add("100%_done", 1);
await add("Hello, world", 1);
await add("Title 00", 1, `/api/stan/${theirs.linkSlug}/titles`, stranger.cookie);

async function all(query: string) {
  const out: T[] = [];
  for (let cursor: string | null = "", n = 0; cursor !== null && n < 50; n++) {
    const r = await t.call("GET", `${P}?${query}&cursor=${cursor}`, { cookie: owner.cookie });
    expect(r.status, r.text).toBe(200);
    out.push(...r.json);
    cursor = r.headers.get("x-next-cursor");
  }
  return out;
}

describe("GET …/titles pages", () => {
  test("the default answer is the first 100, newest first, with the total; pages reach every version once", async () => {
    const r = await t.call("GET", P, { cookie: owner.cookie });
    expect(r.status).toBe(200);
    expect(r.json).toHaveLength(35);
    expect(r.headers.get("x-total-count")).toBe("35");
    expect(r.headers.get("x-next-cursor")).toBeNull();
    const paged = await all("limit=7");
    expect(paged.map((x) => x.id)).toEqual(r.json.map((x: T) => x.id));
    expect(new Set(paged.map((x) => x.id)).size).toBe(35);
  });

  test("sort by name then version, and oldest first", async () => {
    const byName = await all("sort=name&limit=5");
    expect(byName.slice(0, 3).map((x) => [x.name, x.version])).toEqual([["100%_done", 1], ["Hello, world", 1], ["Title 00", 1]]);
    const oldest = await all("sort=oldest&limit=9");
    expect(oldest[0]!.name).toBe("Title 00");
    expect(oldest.map((x) => x.id)).toEqual([...oldest].map((x) => x.id).sort((a, b) => a - b));
  });

  test("q finds names containing the text (wildcards literal); name gives one series", async () => {
    const r = await t.call("GET", `${P}?q=${encodeURIComponent("%_")}`, { cookie: owner.cookie });
    expect(r.json.map((x: T) => x.name)).toEqual(["100%_done"]);
    const ones = await t.call("GET", `${P}?q=title%201`, { cookie: owner.cookie });
    expect(ones.headers.get("x-total-count")).toBe("10");
    const comma = await t.call("GET", `${P}?name=${encodeURIComponent("Hello, world")}&q=${encodeURIComponent("o, w")}`, { cookie: owner.cookie });
    expect(comma.json.map((x: T) => x.name)).toEqual(["Hello, world"]);
    const series = await t.call("GET", `${P}?name=${encodeURIComponent("Title 01")}&sort=name`, { cookie: owner.cookie });
    expect(series.json.map((x: T) => x.version)).toEqual([1, 2]);
    expect(series.headers.get("x-total-count")).toBe("2");
  });

  test("another user's topic: 404, and its titles never in this list", async () => {
    expect((await t.call("GET", `/api/stan/${theirs.linkSlug}/titles?limit=5`, { cookie: owner.cookie })).status).toBe(404);
    const everything = await all("limit=500");
    expect(everything.every((x) => (x as unknown as { topicId: number }).topicId === mine.id)).toBe(true);
  });

  const bad = ["limit=0", "limit=501", "limit=x", "sort=created_at", "cursor=nope", `q=${"q".repeat(101)}`, `name=${"n".repeat(501)}`];
  for (const q of bad) {
    test(`refuses ${q.slice(0, 20)} with a 400`, async () => {
      const r = await t.call("GET", `${P}?${q}`, { cookie: owner.cookie });
      expect(r.status).toBe(400);
      expect(r.json.error.code).toBe("VALIDATION");
    });
  }

  test("a cursor of one sort is refused by another; hostile searches are plain text", async () => {
    const cursor = (await t.call("GET", `${P}?limit=2&sort=name`, { cookie: owner.cookie })).headers.get("x-next-cursor");
    expect((await t.call("GET", `${P}?limit=2&cursor=${cursor}`, { cookie: owner.cookie })).status).toBe(400);
    for (const q of [HOSTILE.sql, HOSTILE.script, HOSTILE.emoji, "\\"]) {
      const r = await t.call("GET", `${P}?q=${encodeURIComponent(q)}`, { cookie: owner.cookie });
      expect(r.status).toBe(200);
      expect(r.json).toEqual([]);
    }
  });
});

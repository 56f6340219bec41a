// Lists at any size (issue 21): keyset pages with a total, search, sort and status filters on
// both trackers' lists, compressed answers, and exports streamed one at a time per user.
import { describe, expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import { brotliDecompressSync } from "node:zlib";
import { HOSTILE, ORIGIN, setup } from "../test/helpers";
import { linksStore } from "./store";

const t = await setup({ SHORT_DOMAIN: "go.example" });
const alice = await t.signUp("alice");
const bob = await t.signUp("bob");

type L = { id: number; shortCode: string; title: string; originalUrl: string; createdAt: string; clickCount: number; isSystem: boolean };

async function bulk(cookie: string, links: object[], tracker = "links") {
  if (tracker !== "links") {
    for (const l of links) expect((await t.call("POST", `/api/${tracker}`, { body: l as never, cookie })).status).toBe(201);
    return;
  }
  for (let i = 0; i < links.length; i += 1000) {
    const r = await t.call("POST", "/api/links/bulk", { body: { links: links.slice(i, i + 1000) } as never, cookie });
    expect(r.json.refused).toBe(0);
  }
}

const list = (query: string, cookie = alice.cookie, tracker = "links") => t.call("GET", `/api/${tracker}${query}`, { cookie });

/** Every page of a query, following x-next-cursor; the totals each page reported. */
async function all(query: string, cookie = alice.cookie, tracker = "links") {
  const rows: L[] = [];
  const totals: number[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const r = await list(`${query}${query.includes("?") ? "&" : "?"}${cursor ? `cursor=${cursor}` : ""}`, cookie, tracker);
    expect(r.status).toBe(200);
    rows.push(...(r.json as L[]));
    totals.push(Number(r.headers.get("x-total-count")));
    cursor = r.headers.get("x-next-cursor");
    if (!cursor) return { rows, totals };
  }
  throw new Error("more than 100 pages");
}

// 250 numbered links for alice (three bulk rounds share created_at within a round: the id breaks ties).
const numbered = Array.from({ length: 250 }, (_, i) => ({
  originalUrl: `https://shop${i % 5}.example.com/items/${i}`,
  title: `Item ${String(i).padStart(3, "0")}${i % 50 === 7 ? " Kangaroo" : ""}`,
  description: i === 42 ? "The answer to everything" : "",
  shortCode: i === 13 ? "Zebra-Stripe_13" : null,
}));
await bulk(alice.cookie, numbered);
// Bob's links share every word alice searches for: none may ever appear in her lists.
await bulk(bob.cookie, [
  { originalUrl: "https://shop1.example.com/items/1", title: "Item Kangaroo bob", description: "The answer to everything", shortCode: "Zebra-Bob" },
]);

describe("GET /api/links pages", () => {
  test("default page of 100, newest first, with the total and a cursor; every link once across pages", async () => {
    const r = await list("");
    expect(r.status).toBe(200);
    expect(r.json).toHaveLength(100);
    expect(r.headers.get("x-total-count")).toBe("250");
    expect(r.headers.get("x-next-cursor")).toMatch(/^[A-Za-z0-9_-]+$/);
    const { rows, totals } = await all("?limit=37");
    expect(rows).toHaveLength(250);
    expect(new Set(rows.map((l) => l.id)).size).toBe(250);
    expect(totals.every((n) => n === 250)).toBe(true);
    // Newest first (creation order, the id): the order of the whole walk.
    const order = [...rows].sort((a, b) => b.id - a.id);
    expect(rows.map((l) => l.id)).toEqual(order.map((l) => l.id));
    // The last page carries no cursor.
    const last = await list("?limit=250");
    expect(last.headers.get("x-next-cursor")).toBeNull();
  });

  test("a cursor keeps its place while links are added and deleted", async () => {
    const carol = await t.signUp("carol");
    await bulk(carol.cookie, Array.from({ length: 30 }, (_, i) => ({ originalUrl: `https://c.example/${i}`, title: `C ${i}` })));
    const first = await list("?limit=10", carol.cookie);
    const cursor = first.headers.get("x-next-cursor")!;
    const page1 = first.json as L[];
    const second = (await list(`?limit=10&cursor=${cursor}`, carol.cookie)).json as L[];
    // A new link (newest) and a deleted one from the second page.
    const added = await t.call("POST", "/api/links", { body: { originalUrl: "https://example.com/new", title: "Brand new" }, cookie: carol.cookie });
    expect(added.status).toBe(201);
    const gone = second[3]!;
    expect((await t.call("DELETE", `/api/links/${gone.id}`, { cookie: carol.cookie })).status).toBe(200);
    const again = await list(`?limit=10&cursor=${cursor}`, carol.cookie);
    const ids = (again.json as L[]).map((l) => l.id);
    expect(ids).not.toContain(added.json.id);
    expect(ids).not.toContain(gone.id);
    expect(ids.some((id) => page1.some((l) => l.id === id))).toBe(false);
    expect(ids.slice(0, 3)).toEqual(second.slice(0, 3).map((l) => l.id));
    expect(ids[3]).toBe(second[4]!.id);
    // The total is today's: one added, one deleted.
    expect(again.headers.get("x-total-count")).toBe("30");
    await t.call("DELETE", `/api/links/${added.json.id}`, { cookie: carol.cookie });
    expect((await list("?limit=1", carol.cookie)).headers.get("x-total-count")).toBe("29");
  });

  const searches: { name: string; q: string; expect: (l: L) => boolean; total?: number }[] = [
    { name: "a title word", q: "kangaroo", expect: (l) => l.title.includes("Kangaroo"), total: 5 },
    { name: "a title word, any case", q: "KANGAROO", expect: (l) => l.title.includes("Kangaroo"), total: 5 },
    { name: "a word's beginning", q: "kang", expect: (l) => l.title.includes("Kangaroo"), total: 5 },
    { name: "a word's beginning, any case", q: "KaNg", expect: (l) => l.title.includes("Kangaroo"), total: 5 },
    { name: "a word's middle finds nothing (beginnings only)", q: "angaroo", expect: () => false, total: 0 },
    { name: "a short code's beginning", q: "Zebra-Str", expect: (l) => l.shortCode === "Zebra-Stripe_13", total: 1 },
    { name: "beginnings of two words", q: "kan sho", expect: (l) => l.title.includes("Kangaroo"), total: 5 },
    { name: "a destination's host word", q: "shop3", expect: (l) => l.originalUrl.includes("shop3."), total: 50 },
    { name: "a description word", q: "answer", expect: (l) => l.title === "Item 042", total: 1 },
    { name: "a short code, whole", q: "Zebra-Stripe_13", expect: (l) => l.shortCode === "Zebra-Stripe_13", total: 1 },
    { name: "a part of a short code", q: "zebra", expect: (l) => l.shortCode === "Zebra-Stripe_13", total: 1 },
    { name: "every word (all five of them)", q: "kangaroo shop2", expect: (l) => l.title.includes("Kangaroo") && l.originalUrl.includes("shop2."), total: 5 },
    { name: "every word (none has both)", q: "kangaroo shop3", expect: () => false, total: 0 },
    { name: "words with a comma between them", q: "kangaroo, shop2", expect: (l) => l.title.includes("Kangaroo"), total: 5 },
    { name: "nothing matches", q: "wombat", expect: () => false, total: 0 },
  ];
  for (const s of searches) {
    test(`search by ${s.name}`, async () => {
      const { rows, totals } = await all(`?q=${encodeURIComponent(s.q)}&limit=20`);
      expect(rows.every(s.expect)).toBe(true);
      expect(rows.some((l) => l.title.includes("bob") || l.shortCode === "Zebra-Bob")).toBe(false);
      if (s.total !== undefined) {
        expect(rows).toHaveLength(s.total);
        expect(totals[0]).toBe(s.total);
      }
    });
  }

  // Beginnings of 1 to 8 characters are answered from FTS5's prefix index (migrations/0024),
  // longer ones by merging the words they start: every length must find what a scan finds.
  test("a word's beginning of every length, 1 to 10 characters, newest and oldest first, finds what a scan of the words finds", async () => {
    const mine = (await all("?limit=1000")).rows as (L & { description: string | null })[];
    const words = (l: (typeof mine)[number]) => [l.title, l.originalUrl, l.description ?? "", l.shortCode].join(" ").toLowerCase().split(/[^\p{L}\p{N}]+/u);
    const prefixes = ["e", "k", "1", "ka", "it", "12", "kan", "ite", "sho", "kang", "item", "kanga", "items", "kangar", "shop3", "kangaro", "example", "kangaroo", "everythi", "everythin", "everything"];
    for (const q of prefixes) {
      const want = mine.filter((l) => words(l).some((w) => w.startsWith(q))).map((l) => l.id);
      expect(want.length).toBeGreaterThan(0);
      for (const sort of ["newest", "oldest"]) {
        const { rows, totals } = await all(`?q=${q}&sort=${sort}&limit=100`);
        expect(rows.map((l) => l.id)).toEqual(sort === "newest" ? want : [...want].reverse());
        expect(totals[0]).toBe(want.length);
      }
    }
  });

  test("a generated short code is found by its text and by its first characters", async () => {
    const some = (await list("?limit=1&sort=oldest")).json[0] as L;
    for (const q of [some.shortCode, some.shortCode.slice(0, 4), some.shortCode.slice(0, 4).toUpperCase()]) {
      const found = (await list(`?q=${q}`)).json as L[];
      expect(found.map((l) => l.id)).toContain(some.id);
    }
  });

  test("sorts: oldest, title, code, most and least clicked; each pages by its own cursor", async () => {
    const oldest = (await all("?sort=oldest&limit=60")).rows;
    expect(oldest.map((l) => l.id)).toEqual([...oldest].sort((a, b) => a.id - b.id).map((l) => l.id));
    const titles = (await all("?sort=title&limit=60")).rows.map((l) => l.title);
    expect(titles).toEqual([...titles].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    const codes = (await all("?sort=code&limit=60")).rows.map((l) => l.shortCode);
    expect(codes).toHaveLength(250);
    expect(codes).toEqual([...codes].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    // Clicks set straight in the count table: three links with 5, 3 and 1.
    const [a, b, c] = oldest;
    for (const [l, n] of [[a!, 5], [b!, 3], [c!, 1]] as const) await t.database.run("UPDATE link_click_counts SET clicks = ? WHERE link_id = ?", n, l.id);
    const most = (await all("?sort=most&limit=7")).rows;
    expect(most.slice(0, 3).map((l) => [l.id, l.clickCount])).toEqual([[a!.id, 5], [b!.id, 3], [c!.id, 1]]);
    expect(most).toHaveLength(250);
    const least = (await list("?sort=least&limit=250")).json as L[];
    expect(least.slice(-3).map((l) => l.id)).toEqual([c!.id, b!.id, a!.id]);
  });

  test("click order is refused past 5,000 links (it has no index), allowed when a search narrows the list", async () => {
    const r = await list("?sort=most&limit=5", bob.cookie);
    expect(r.status).toBe(200);
    await t.database.run("UPDATE link_totals SET links = 5001 WHERE user_id = ? AND tracker = 'main'", bob.user.id);
    try {
      const refused = await list("?sort=least&limit=5", bob.cookie);
      expect(refused.status).toBe(400);
      expect(refused.json.error.fields.sort).toMatch(/up to 5,000 links/);
      expect((await list("?sort=most&q=kangaroo", bob.cookie)).status).toBe(200);
    } finally {
      await t.database.run("UPDATE link_totals SET links = (SELECT COUNT(*) FROM short_links WHERE user_id = ? AND tracker = 'main') WHERE user_id = ? AND tracker = 'main'", bob.user.id, bob.user.id);
    }
  });

  test("status filters: active, expired, inactive, with their own totals", async () => {
    const some = (await list("?limit=3&sort=oldest")).json as L[];
    await t.database.run("UPDATE short_links SET expires_at = ? WHERE id = ?", "2001-01-01T00:00:00.000Z", some[0]!.id);
    await t.database.run("UPDATE short_links SET active = 0 WHERE id = ?", some[1]!.id);
    const expired = await list("?status=expired");
    expect((expired.json as L[]).map((l) => l.id)).toEqual([some[0]!.id]);
    expect(expired.headers.get("x-total-count")).toBe("1");
    expect((await list("?status=inactive")).json.map((l: L) => l.id)).toEqual([some[1]!.id]);
    const active = await list("?status=active&limit=1000");
    expect(active.headers.get("x-total-count")).toBe("248");
    expect(active.json.map((l: L) => l.id)).not.toContain(some[0]!.id);
    await t.database.run("UPDATE short_links SET expires_at = NULL, active = 1 WHERE id IN (?, ?)", some[0]!.id, some[1]!.id);
  });

  test("another user's list: only their own links, their own total", async () => {
    const r = await list("?limit=1000", bob.cookie);
    expect(r.json.map((l: L) => l.shortCode)).toEqual(["Zebra-Bob"]);
    expect(r.headers.get("x-total-count")).toBe("1");
    // Alice's cursor in Bob's hands pages Bob's links (a cursor is a place in an order, not a grant).
    const cursor = (await list("?limit=5")).headers.get("x-next-cursor")!;
    const r2 = await list(`?limit=5&cursor=${cursor}`, bob.cookie);
    expect(r2.status).toBe(200);
    expect(r2.json.every((l: L) => l.shortCode === "Zebra-Bob")).toBe(true);
  });

  test("signed out: 401", async () => {
    expect((await t.call("GET", "/api/links?limit=5")).status).toBe(401);
  });

  const bad: { name: string; query: string; field: string }[] = [
    { name: "limit 0", query: "?limit=0", field: "limit" },
    { name: "limit over 1000", query: "?limit=1001", field: "limit" },
    { name: "limit not a number", query: "?limit=ten", field: "limit" },
    { name: "limit negative", query: "?limit=-5", field: "limit" },
    { name: "limit in exponent form", query: "?limit=1e3", field: "limit" },
    { name: "limit huge", query: `?limit=${"9".repeat(400)}`, field: "limit" },
    { name: "an unknown sort", query: "?sort=created_at;DROP TABLE short_links", field: "sort" },
    { name: "an unknown status", query: "?status=everything", field: "status" },
    { name: "a cursor that is not one", query: "?cursor=not-a-cursor", field: "cursor" },
    { name: "a cursor of JSON with wrong types", query: `?cursor=${Buffer.from(JSON.stringify(["newest", 1, "x"])).toString("base64url")}`, field: "cursor" },
    { name: "a cursor of SQL", query: `?cursor=${Buffer.from(JSON.stringify(["newest", "x' OR 1=1 --", 1e300])).toString("base64url")}`, field: "cursor" },
    { name: "a very long cursor", query: `?cursor=${"A".repeat(5000)}`, field: "cursor" },
    { name: "a search over 100 characters", query: `?q=${"x".repeat(101)}`, field: "q" },
  ];
  for (const s of bad) {
    test(`refuses ${s.name} with a 400 naming the field`, async () => {
      const r = await list(s.query);
      expect(r.status).toBe(400);
      expect(r.json.error.code).toBe("VALIDATION");
      expect(Object.keys(r.json.error.fields ?? {})).toContain(s.field);
    });
  }

  test("a cursor made for another sort is refused", async () => {
    const cursor = (await list("?limit=5&sort=title")).headers.get("x-next-cursor")!;
    const r = await list(`?limit=5&sort=oldest&cursor=${cursor}`);
    expect(r.status).toBe(400);
    expect(r.json.error.fields.cursor).toMatch(/not a cursor of this list/);
  });

  // The query languages' own syntax (FTS5: quotes, NEAR, *, ^, column:, AND/OR/NOT, parentheses;
  // tsquery: & | ! <-> :* and quotes) typed into the search box is text, never an operator.
  const hostile = [
    HOSTILE.sql, HOSTILE.script, HOSTILE.emoji, '"unbalanced', "NEAR(a b) OR c*", "col:value ^x", "%_%", "a & b | !c :*", "---", "\\x00",
    "kang*", "*", "\"kang", "kang\"", "'kang'", "''", "(kang", "kang)", "((", "NEAR", "near/2", "AND", "OR NOT", "kang:*", "kang:A",
    "!kang", "kang & | !", "a <-> b", "<2>", "\\", "\\'", "title:kang", "{title}:kang", "🦘", "🦘kang", "kang🦘aroo", "ḱang", "١٢٣", "東京",
  ];
  for (const q of hostile) {
    test(`hostile search ${JSON.stringify(q).slice(0, 30)}: an answer, never a failure`, async () => {
      const r = await list(`?q=${encodeURIComponent(q)}`);
      expect(r.status).toBe(200);
      expect(Array.isArray(r.json)).toBe(true);
    });
  }

  test("a search with no letter or digit in it finds nothing, total 0, rather than every link", async () => {
    // The index holds words only; answering the whole list made "%" or an emoji read as matching
    // every link in the Link Tracker ("Showing 100 of 250"), while a topic's titles said none.
    for (const q of ["%", "_", "%_%", "🦘", "<>", "---", "\"'", "   %   "]) {
      for (const tracker of ["links", "pic-drift-links"]) {
        const r = await list(`?q=${encodeURIComponent(q)}`, alice.cookie, tracker);
        expect(r.status).toBe(200);
        expect(r.json).toEqual([]);
        expect(r.headers.get("x-total-count")).toBe("0");
        expect(r.headers.get("x-next-cursor")).toBeNull();
      }
    }
    // Blank is no search at all: the whole list.
    const blank = await list(`?q=${encodeURIComponent("   ")}`);
    expect(blank.headers.get("x-total-count")).toBe((await list("")).headers.get("x-total-count"));
    expect(Number(blank.headers.get("x-total-count"))).toBeGreaterThan(0);
  });

  test("operators around a word are dropped, the word's beginning still searched", async () => {
    for (const q of ["kang*", "\"kang", "(kang)", "!kang", "kang:*", "title:kang", "🦘kang", "'kang'"]) {
      const r = await list(`?q=${encodeURIComponent(q)}&limit=20`);
      expect(r.status).toBe(200);
      // title:kang is two words, title and kang: no link has a word starting "title".
      const want = q === "title:kang" ? 0 : 5;
      expect(r.json as L[]).toHaveLength(want);
    }
  });

  test("quotes and backslashes inside a word reach neither query language (the store's own quoting)", async () => {
    // Both languages read a quote or a backslash inside a quoted word as a space: the phrase of
    // the words around it. Read as an operator (OR, |), the last two would find "Yonder" and
    // "Xylophone". Links of their own, with titles chosen for it: alice's random codes made a
    // phrase match now and then (a code starting "y" after a word starting "x").
    const quoter = await t.signUp("quoter");
    for (const title of ["Yonder", "Xylophone", "Ka ngapi", "Kangaroo"]) {
      expect((await t.call("POST", "/api/links", { body: { originalUrl: "https://quote.example/", title }, cookie: quoter.cookie })).status).toBe(201);
    }
    const store = linksStore(t.database);
    const titles = async (word: string) =>
      (await store.page(quoter.user.id, "main", { words: [word], sort: "newest", status: "all", limit: 10, after: null, tags: [] })).rows.map((r) => r.title);
    for (const word of ['ka"ng', "ka'ng", "ka\\ng"]) expect(await titles(word)).toEqual(["Ka ngapi"]);
    for (const word of ['x" OR "y', "x' | 'y", "\\'"]) expect(await titles(word)).toEqual([]);
  });

  test("repeated parameters are refused, not guessed", async () => {
    const r = await list("?limit=5&limit=6");
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
  });
});

describe("GET /api/pic-drift-links pages", () => {
  test("pages with a total; the owner's root link comes first on the first page only, not counted", async () => {
    await bulk(alice.cookie, Array.from({ length: 7 }, (_, i) => ({ originalUrl: `https://brand.example/${i}`, title: `Brand ${["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"][i]}` })), "pic-drift-links");
    const first = await list("?includeRoot=true&limit=3", alice.cookie, "pic-drift-links");
    expect(first.status).toBe(200);
    expect(first.json).toHaveLength(4);
    expect(first.json[0].isSystem).toBe(true);
    expect(first.headers.get("x-total-count")).toBe("7");
    const next = await list(`?includeRoot=true&limit=3&cursor=${first.headers.get("x-next-cursor")}`, alice.cookie, "pic-drift-links");
    expect(next.json).toHaveLength(3);
    expect(next.json.some((l: L) => l.isSystem)).toBe(false);
    const found = await list("?q=brand%20gamma", alice.cookie, "pic-drift-links");
    expect(found.json.map((l: L) => l.title)).toEqual(["Brand gamma"]);
    // The brand links are not in the Link Tracker's list, nor its total.
    expect((await list("?q=brand&limit=5")).headers.get("x-total-count")).toBe("0");
    // Bob (not the owner) gets no root link and none of alice's.
    const b = await list("?includeRoot=true", bob.cookie, "pic-drift-links");
    expect(b.json).toEqual([]);
    expect(b.headers.get("x-total-count")).toBe("0");
  });
});

describe("compressed answers", () => {
  const get = (path: string, encoding?: string) =>
    t.app.handle(new Request(`${ORIGIN}${path}`, { headers: { host: "localhost:3000", cookie: alice.cookie, ...(encoding ? { "accept-encoding": encoding } : {}) } }));

  test("gzip when asked for gzip: the same JSON, smaller", async () => {
    const plain = await get("/api/links?limit=100");
    const text = await plain.text();
    const r = await get("/api/links?limit=100", "gzip, deflate");
    expect(r.headers.get("content-encoding")).toBe("gzip");
    expect(r.headers.get("vary")).toMatch(/accept-encoding/i);
    expect(r.headers.get("x-total-count")).toBe("250");
    const bytes = new Uint8Array(await r.arrayBuffer());
    expect(bytes.byteLength).toBeLessThan(text.length / 4);
    expect(JSON.parse(gunzipSync(bytes).toString())).toEqual(JSON.parse(text));
  });

  test("br preferred when accepted", async () => {
    const r = await get("/api/links?limit=100", "gzip, br");
    expect(r.headers.get("content-encoding")).toBe("br");
    expect(JSON.parse(brotliDecompressSync(new Uint8Array(await r.arrayBuffer())).toString())).toHaveLength(100);
  });

  test("not compressed: no Accept-Encoding, gzip;q=0, identity, or a body under 1 KB", async () => {
    for (const enc of [undefined, "gzip;q=0", "identity", "deflate"]) {
      const r = await get("/api/links?limit=100", enc);
      expect(r.headers.get("content-encoding")).toBeNull();
      expect(JSON.parse(await r.text())).toHaveLength(100);
    }
    const small = await get("/api/links?limit=1", "gzip");
    expect(small.headers.get("content-encoding")).toBeNull();
  });

  test("an analytics report is built, serialized and compressed on the reader thread: one JSON in every encoding, its refusals unchanged", async () => {
    // A database file: the reports go to its reader thread (src/downloads/answers.ts).
    expect(t.database.reader).not.toBeNull();
    const id = ((await (await get("/api/links?limit=1")).json()) as L[])[0]!.id;
    const path = `/api/links/${id}/analytics?days=90&pageSize=100`;
    const plain = await get(path);
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(plain.headers.get("content-type")).toBe("application/json");
    expect(plain.headers.get("vary")).toBe("accept-encoding");
    const json = JSON.parse(await plain.text());
    expect(json.link.id).toBe(id);
    expect(json.timeline.series).toHaveLength(90);
    const br = await get(path, "gzip, br");
    expect(br.headers.get("content-encoding")).toBe("br");
    expect(br.headers.get("vary")).toBe("accept-encoding");
    expect(JSON.parse(brotliDecompressSync(new Uint8Array(await br.arrayBuffer())).toString())).toEqual(json);
    const gz = await get(path, "gzip");
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(JSON.parse(gunzipSync(new Uint8Array(await gz.arrayBuffer())).toString())).toEqual(json);
    // Refused on that thread, answered here as ever: the one error shape, its fields kept.
    const deep = await get(`/api/links/${id}/analytics?page=11&pageSize=100`, "gzip");
    expect(deep.status).toBe(400);
    expect(deep.headers.get("content-encoding")).toBeNull();
    expect(await deep.json()).toEqual({
      error: { code: "VALIDATION", message: "Pages deeper than 1000 clicks are read with before (the previous page's nextBefore)", fields: { page: "too deep without before" } },
    });
  });

  test("errors and redirects are never compressed", async () => {
    const err = await get("/api/links?limit=0", "gzip");
    expect(err.status).toBe(400);
    expect(err.headers.get("content-encoding")).toBeNull();
    const redirect = await t.app.handle(new Request(`${ORIGIN}/Zebra-Stripe_13`, { headers: { host: "localhost:3000", "accept-encoding": "gzip, br" } }));
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("content-encoding")).toBeNull();
  });

  test("exports are gzip-streamed when asked", async () => {
    const r = await get("/api/links/export.json", "gzip");
    expect(r.headers.get("content-encoding")).toBe("gzip");
    expect(JSON.parse(gunzipSync(new Uint8Array(await r.arrayBuffer())).toString()).links).toHaveLength(250);
  });
});

describe("exports", () => {
  const open = (path: string, cookie = alice.cookie) => t.app.handle(new Request(`${ORIGIN}${path}`, { headers: { host: "localhost:3000", cookie } }));

  test("every link, newest first, across several batches (CSV and JSON agree)", async () => {
    await bulk(bob.cookie, Array.from({ length: 2100 }, (_, i) => ({ originalUrl: `https://bulk.example/${i}`, title: `Bulk ${i}` })));
    const json = await (await open("/api/links/export.json", bob.cookie)).json();
    expect(json.links).toHaveLength(2101);
    expect(new Set(json.links.map((l: { shortCode: string }) => l.shortCode)).size).toBe(2101);
    const csv = await (await open("/api/links/export.csv", bob.cookie)).text();
    const lines = csv.trim().split("\r\n");
    expect(lines).toHaveLength(2102);
    // A code starting with "-" is guarded against spreadsheets with a leading quote.
    expect(lines.slice(1).map((l) => l.split(",")[0]!.replace(/^'/, ""))).toEqual(json.links.map((l: { shortCode: string }) => l.shortCode));
    const listed = (await all("?limit=1000", bob.cookie)).rows.map((l) => l.shortCode);
    // A search matching more than 1,000 links counts to 1,000 and says so; the pages still reach every match.
    const broad = await all("?q=bulk&limit=1000", bob.cookie);
    expect(broad.rows).toHaveLength(2100);
    expect(broad.totals[0]).toBe(1000);
    // A one-character beginning (FTS5's prefix index) matching every link: capped total, every match reached, both orders.
    for (const sort of ["newest", "oldest"]) {
      const short = await all(`?q=b&sort=${sort}&limit=1000`, bob.cookie);
      expect(short.rows).toHaveLength(2101);
      expect(new Set(short.rows.map((l) => l.id)).size).toBe(2101);
      expect(short.totals.every((n) => n === 1000)).toBe(true);
    }
    expect((await list("?q=b&limit=5", bob.cookie)).headers.get("x-total-capped")).toBe("true");
    expect((await list("?q=bulk&limit=5", bob.cookie)).headers.get("x-total-capped")).toBe("true");
    expect((await list("?limit=5", bob.cookie)).headers.get("x-total-capped")).toBeNull();
    expect((await list("?limit=5", bob.cookie)).headers.get("x-total-count")).toBe("2101");
    expect(json.links.map((l: { shortCode: string }) => l.shortCode)).toEqual(listed);
  }, 30_000);

  test("one at a time per user: a second export while the first streams is a 429 with a stable code", async () => {
    const first = await open("/api/links/export.csv", bob.cookie);
    expect(first.status).toBe(200);
    for (const path of ["/api/links/export.csv", "/api/links/export.json"]) {
      const second = await open(path, bob.cookie);
      expect(second.status).toBe(429);
      expect(second.headers.get("retry-after")).toBe("5");
      expect((await second.json()).error).toMatchObject({ code: "EXPORT_IN_PROGRESS", message: expect.stringMatching(/already running/) });
    }
    // Another user is not held up.
    const other = await open("/api/links/export.json", alice.cookie);
    expect(other.status).toBe(200);
    expect((await other.json()).links).toHaveLength(250);
    // Once the first is read to its end, the next is allowed.
    await first.text();
    const third = await open("/api/links/export.json", bob.cookie);
    expect(third.status).toBe(200);
    await third.arrayBuffer();
  });

  test("an export the client abandons frees its turn", async () => {
    const first = await open("/api/links/export.json", bob.cookie);
    const reader = first.body!.getReader();
    await reader.read();
    await reader.cancel();
    const next = await open("/api/links/export.json", bob.cookie);
    expect(next.status).toBe(200);
    await next.arrayBuffer();
  });
});

describe("sparklines: each listed link's clicks per day, from one read of the roll-ups", () => {
  test("14 days, today last; a click today counts there; every other link of the page reads zeros", async () => {
    const made = await t.call("POST", "/api/links", { body: { originalUrl: "https://spark.example/", title: "Spark" } as never, cookie: bob.cookie });
    expect(made.status).toBe(201);
    const code = (made.json as { shortCode: string }).shortCode;
    for (let i = 0; i < 3; i++) expect((await t.call("GET", `/${code}`)).status).toBe(302);
    const page = (await list("?limit=5", bob.cookie)).json as { shortCode: string; recentClicks: number[]; clickCount: number }[];
    const spark = page.find((l) => l.shortCode === code)!;
    expect(spark.recentClicks).toHaveLength(14);
    expect(spark.recentClicks[13]).toBe(3);
    expect(spark.recentClicks.slice(0, 13)).toEqual(new Array(13).fill(0));
    for (const other of page.filter((l) => l.shortCode !== code)) expect(other.recentClicks.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(other.clickCount);
    // Alice's page never carries bob's link or its clicks.
    const alicePage = (await list("?limit=100", alice.cookie)).json as { shortCode: string; recentClicks: number[] }[];
    expect(alicePage.some((l) => l.shortCode === code)).toBe(false);
    expect(alicePage.every((l) => l.recentClicks.length === 14)).toBe(true);
  });
});

import { describe, expect, test } from "bun:test";
import { HOSTILE, setup } from "../test/helpers";

// SHORT_DOMAIN and BRAND_DOMAIN differ from the app host so "our own domains" has three names.
const t = await setup({ SHORT_DOMAIN: "tl.example", BRAND_DOMAIN: "go.brand.example:8443" });
const alice = await t.signUp("alice");
const bob = await t.signUp("bob");

const create = (body: unknown, cookie = alice.cookie, tracker = "links") => t.call("POST", `/api/${tracker}`, { body: body as any, cookie });
const linkRow = (id: number) => t.database.get<Record<string, unknown>>("SELECT * FROM short_links WHERE id = ?", id);

describe("POST /api/links", () => {
  test("creates a link with a generated 7-character code and the short URL on SHORT_DOMAIN", async () => {
    const r = await create({ originalUrl: "https://example.com/a?b=c#d", title: "  Docs  ", description: "read me" });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ originalUrl: "https://example.com/a?b=c#d", title: "Docs", description: "read me", clickCount: 0, active: true, expiresAt: null, isSystem: false });
    expect(r.json.shortCode).toMatch(/^[A-Za-z0-9_-]{7}$/);
    expect(r.json.shortUrl).toBe(`http://tl.example/${r.json.shortCode}`);
    expect(await linkRow(r.json.id)).toMatchObject({ user_id: alice.user.id, tracker: "main" });
  });

  test("takes a custom code and an expiry", async () => {
    const expires = new Date(Date.now() + 86_400_000).toISOString();
    const r = await create({ originalUrl: "https://example.com", title: "Custom", shortCode: "My_Code-1", expiresAt: expires });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ shortCode: "My_Code-1", expiresAt: expires, description: null });
  });

  type Bad = { name: string; body: unknown; status?: number; message: string | RegExp; field?: string };
  const base = { originalUrl: "https://example.com", title: "T" };
  const invalid: Bad[] = [
    { name: "missing URL", body: { title: "T" }, message: "Please enter a valid URL", field: "originalUrl" },
    { name: "empty URL", body: { ...base, originalUrl: "   " }, message: "Please enter a valid URL" },
    { name: "missing title", body: { originalUrl: "https://example.com" }, message: "Title is required", field: "title" },
    { name: "blank title", body: { ...base, title: "   " }, message: "Title is required" },
    { name: "title over 100", body: { ...base, title: "x".repeat(101) }, message: "Title must be at most 100 characters" },
    { name: "description over 255", body: { ...base, description: "x".repeat(256) }, message: "Description must be at most 255 characters" },
    { name: "custom code too short", body: { ...base, shortCode: "ab" }, message: "Short code must be at least 3 characters" },
    { name: "custom code too long", body: { ...base, shortCode: "a".repeat(51) }, message: "Short code must be at most 50 characters" },
    { name: "custom code with a slash", body: { ...base, shortCode: "a/b/c" }, message: /letters, numbers/ },
    { name: "custom code with a dot", body: { ...base, shortCode: "chunk.js" }, message: /letters, numbers/ },
    { name: "reserved code", body: { ...base, shortCode: "pricing" }, message: "That short code is reserved. Please choose another." },
    { name: "reserved code in another case", body: { ...base, shortCode: "Link-Tracker" }, message: /reserved/ },
    { name: "reserved chunk- prefix", body: { ...base, shortCode: "chunk-abc" }, message: /reserved/ },
    { name: "duplicate code", body: { ...base, shortCode: "My_Code-1" }, status: 409, message: "That short code is already taken", field: "shortCode" },
    // "root" (the brand root link's code) is free here: the brand host is its own (codesPerTracker.test.ts).
    { name: "bad expiry", body: { ...base, expiresAt: "next tuesday" }, message: "Please enter a valid date" },
    { name: "expiry in the past", body: { ...base, expiresAt: "2001-01-01T00:00:00Z" }, message: "The expiry date must be in the future" },
    { name: "title as a number", body: { ...base, title: 42 }, message: "Title must be text" },
    { name: "URL as an array", body: { ...base, originalUrl: ["https://example.com"] }, message: "URL must be text" },
    { name: "10 kB title", body: { ...base, title: HOSTILE.huge }, message: "Title must be at most 100 characters" },
    { name: "body is an array", body: [1, 2], message: /./ },
    { name: "body is null", body: null, message: /./ },
  ];
  for (const s of invalid) {
    test(`refuses: ${s.name}`, async () => {
      const before = await t.count("short_links");
      const r = await create(s.body);
      expect(r.status).toBe(s.status ?? 400);
      expect(r.json.error.message).toMatch(s.message);
      if (s.field) expect(Object.keys(r.json.error.fields ?? {})).toContain(s.field);
      expect(await t.count("short_links")).toBe(before);
    });
  }

  test("malformed JSON is a clear 400 and nothing changes", async () => {
    const before = await t.count("short_links");
    const r = await t.call("POST", "/api/links", { raw: '{"originalUrl": "https://x', cookie: alice.cookie });
    expect(r.status).toBe(400);
    expect(r.json.error.message).toBe("The request body is not valid JSON");
    expect(await t.count("short_links")).toBe(before);
  });

  test("signed out: 401", async () => {
    const r = await t.call("POST", "/api/links", { body: base });
    expect(r.status).toBe(401);
  });

  test("hostile text is stored as plain data", async () => {
    for (const title of [HOSTILE.script, HOSTILE.sql, HOSTILE.emoji]) {
      const r = await create({ ...base, title, description: HOSTILE.script });
      expect(r.status).toBe(201);
      expect(r.json.title).toBe(title.trim());
      expect(r.json.description).toBe(HOSTILE.script);
    }
    expect(await t.count("users")).toBe(2);
  });
});

describe("destinations", () => {
  const hostile: [string, unknown, RegExp][] = [
    ["javascript:", "javascript:alert(1)", /http/],
    ["JavaScript: mixed case", "JaVaScRiPt:alert(document.cookie)", /http/],
    ["javascript: after a tab", "\tjavascript:alert(1)", /http/],
    ["javascript: with a tab inside", "java\tscript:alert(1)", /spaces or control/],
    ["javascript: with a newline inside", "java\nscript:alert(1)", /spaces or control/],
    ["javascript: percent-encoded scheme", "%6A%61vascript:alert(1)", /valid URL/],
    ["javascript: with an entity", "javascript&colon;alert(1)", /valid URL/],
    ["javascript: after a NUL", "\u0000javascript:alert(1)", /spaces or control|http/],
    ["vbscript:", "vbscript:msgbox(1)", /http/],
    ["data: HTML", "data:text/html,<script>alert(1)</script>", /http/],
    ["DATA: base64", "DATA:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==", /http/],
    ["file:", "file:///etc/passwd", /http/],
    ["ftp:", "ftp://example.com/x", /http/],
    ["blob:", "blob:https://example.com/uuid", /http/],
    ["about:", "about:blank", /http/],
    ["mailto:", "mailto:a@example.com", /http/],
    ["ws:", "ws://example.com/socket", /http/],
    ["relative path", "/just/a/path", /valid URL/],
    ["protocol-relative", "//evil.example/x", /valid URL/],
    ["a bare own short domain (https:// is added, then it is a loop)", "tl.example/abc", /own short domains/],
    ["a bare word", "example", /valid URL/],
    ["scheme without slashes", "http:example.com", /valid URL/],
    ["no host", "https://", /valid URL/],
    ["bad port", "https://example.com:99999/", /valid URL/],
    ["space inside", "https://exa mple.com/", /spaces or control/],
    ["CRLF header injection", "https://example.com/\r\nSet-Cookie: x=1", /spaces or control/],
    ["zero-width space", "https://example.com/\u200b", /spaces or control/],
    ["user and password", "https://user:pass@example.com/", /username or password/],
    ["user only", "https://admin@example.com/", /username or password/],
    ["empty credentials", "https://@example.com/", /username or password/],
    ["credentials that look like a host", "https://example.com@evil.example/", /username or password/],
    ["over 2,048 characters", `https://example.com/${"a".repeat(2050)}`, /2,048/],
    ["the app host", "http://localhost:3000/abc", /own short domains/],
    ["the app host in capitals", "HTTP://LOCALHOST:3000/abc", /own short domains/],
    ["the short domain", "https://tl.example/abc", /own short domains/],
    ["the short domain with a trailing dot", "https://tl.example./abc", /own short domains/],
    ["the short domain on another port", "http://tl.example:8080/abc", /own short domains/],
    ["the short domain percent-encoded", "https://%74l.example/abc", /own short domains/],
    ["the short domain in full-width letters", "https://ｔｌ.example/abc", /own short domains/],
    ["the brand domain", "https://go.brand.example:8443/root", /own short domains/],
    ["a number", 12345, /must be text/],
    ["an object", { href: "https://example.com" }, /must be text/],
    ["null", null, /must be text|valid URL/],
  ];
  test(`there are at least 30 hostile destinations (${hostile.length})`, () => expect(hostile.length).toBeGreaterThanOrEqual(30));
  for (const [name, url, message] of hostile) {
    test(`refuses ${name}`, async () => {
      const before = await t.count("short_links");
      const r = await create({ originalUrl: url, title: "Hostile" });
      expect(r.status).toBe(400);
      expect(r.json.error.message).toMatch(message);
      expect(await t.count("short_links")).toBe(before);
    });
  }

  const legit: [string, string][] = [
    ["an IDN host", "https://例え.jp/パス?q=値"],
    ["a punycode host", "https://xn--e1afmkfd.xn--p1ai/"],
    ["a port", "http://example.com:8080/a"],
    ["a long query string", `https://example.com/search?q=${"a".repeat(1900)}`],
    ["a fragment", "https://example.com/page#section-2"],
    ["an IPv6 host", "http://[2001:db8::1]:8080/x"],
    ["percent-encoded path", "https://example.com/a%20b/%E2%9C%93?x=%3Cy%3E"],
    ["another port on the app's loopback address", "http://127.0.0.1:9999/"],
  ];
  for (const [name, url] of legit) {
    test(`accepts ${name} and redirects to it unchanged`, async () => {
      const r = await create({ originalUrl: url, title: "Fine" });
      expect(r.status).toBe(201);
      expect(r.json.originalUrl).toBe(url);
      const go = await t.call("GET", `/${r.json.shortCode}`);
      expect(go.status).toBe(302);
      // The Location is the same URL, serialised to ASCII (punycode host, percent-encoded path).
      expect(go.headers.get("location")).toBe(new URL(url).href);
      // Hosts written in one script carry no warning.
      expect(r.json.hostWarning).toBeNull();
    });
  }

  // Issue 25: a bare address gets https:// in front, as Dub and Shlink do.
  const bare: [string, string][] = [
    ["example.com", "https://example.com"],
    ["example.com/page?x=1#top", "https://example.com/page?x=1#top"],
    ["  shop.example.co.uk:8443/cart ", "https://shop.example.co.uk:8443/cart"],
    ["münchen.de/stadt", "https://münchen.de/stadt"],
  ];
  for (const [typed, stored] of bare) {
    test(`a bare '${typed.trim()}' is stored as ${stored} and redirects there`, async () => {
      const r = await create({ originalUrl: typed, title: "Bare" });
      expect(r.status).toBe(201);
      expect(r.json.originalUrl).toBe(stored);
      expect((await t.call("GET", `/${r.json.shortCode}`)).headers.get("location")).toBe(new URL(stored).href);
    });
  }

  // [name, destination, scripts, punycode host]
  const lookAlikes: [string, string, string[], string][] = [
    ["a Cyrillic look-alike of apple.com", "https://аррӏе.com/login", ["Cyrillic", "Latin"], "xn--80ak6aa92e.com"],
    ["the same typed as punycode", "https://xn--80ak6aa92e.com/login", ["Cyrillic", "Latin"], "xn--80ak6aa92e.com"],
    ["one Cyrillic letter inside a Latin label", "https://pаypal.com/", ["Latin", "Cyrillic"], "xn--pypal-4ve.com"],
    ["Greek omicron among Latin letters", "https://gοogle.com/", ["Latin", "Greek"], "xn--gogle-rce.com"],
  ];
  for (const [name, url, scripts, ascii] of lookAlikes) {
    test(`accepts ${name}, flagged with its punycode name`, async () => {
      const r = await create({ originalUrl: url, title: "Look-alike" });
      expect(r.status).toBe(201);
      expect(r.json.originalUrl).toBe(url);
      expect(r.json.hostWarning).toEqual({
        asciiHost: ascii,
        scripts,
        message: `Look-alike address: its name mixes ${scripts.join(" and ")} letters, so it may imitate another site.`,
      });
      // Every read of the link carries it too.
      const list = (await t.call("GET", "/api/links", { cookie: alice.cookie })).json as { id: number; hostWarning: unknown }[];
      expect(list.find((l) => l.id === r.json.id)?.hostWarning).toEqual(r.json.hostWarning);
    });
  }
  test("scripts that are written together (Japanese, Korean) and single-script IDNs are not flagged", async () => {
    for (const url of ["https://日本語テスト.com/", "https://한국어.kr/", "https://пример.рф/", "https://münchen.de/"]) {
      const r = await create({ originalUrl: url, title: "Fine" });
      expect({ url, warning: r.json.hostWarning }).toEqual({ url, warning: null });
    }
  });
});

describe("GET and DELETE /api/links", () => {
  test("lists only the user's own links in this tracker, newest first", async () => {
    const brand = await create({ originalUrl: "https://example.com/brand", title: "Brand one" }, alice.cookie, "pic-drift-links");
    expect(brand.status).toBe(201);
    const mine = await t.call("GET", "/api/links", { cookie: alice.cookie });
    expect(mine.status).toBe(200);
    const codes = (mine.json as { shortCode: string }[]).map((l) => l.shortCode);
    expect(codes).toContain("My_Code-1");
    expect(codes).not.toContain(brand.json.shortCode);
    const times = (mine.json as { createdAt: string }[]).map((l) => l.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    const bobs = await t.call("GET", "/api/links", { cookie: bob.cookie });
    expect(bobs.json).toEqual([]);
  });

  test("another user's link: delete and analytics are 404 and nothing changes", async () => {
    const r = await create({ originalUrl: "https://example.com/private", title: "Alice only" });
    const id = r.json.id;
    const before = await linkRow(id);
    for (const [method, path] of [
      ["DELETE", `/api/links/${id}`],
      ["GET", `/api/links/${id}/analytics`],
      ["GET", `/api/links/${id}/clicks.csv`],
      ["DELETE", `/api/pic-drift-links/${id}`],
      // Ids past PostgreSQL's integer name no link on either backend (not a 5xx).
      ["DELETE", "/api/links/2147483648"],
      ["GET", "/api/links/999999999999999/analytics"],
      ["POST", "/api/pic-drift-links/2147483648/reset-clicks"],
    ] as const) {
      const res = await t.call(method, path, { cookie: bob.cookie });
      expect(res.status).toBe(404);
    }
    expect(await linkRow(id)).toEqual(before);
  });

  test("a main-tracker link is not reachable through the brand tracker, and the reverse", async () => {
    const r = await create({ originalUrl: "https://example.com/x", title: "Main" });
    expect((await t.call("GET", `/api/pic-drift-links/${r.json.id}/analytics`, { cookie: alice.cookie })).status).toBe(404);
  });

  test("bad ids are 404", async () => {
    for (const id of ["abc", "-1", "1.5", "0", "99999999", "1e3"]) {
      expect((await t.call("DELETE", `/api/links/${id}`, { cookie: alice.cookie })).status).toBe(404);
    }
  });

  test("delete removes the link, its clicks, and its redirect at once", async () => {
    const r = await create({ originalUrl: "https://example.com/doomed", title: "Doomed", shortCode: "doomed" });
    expect((await t.call("GET", "/doomed")).status).toBe(302);
    const del = await t.call("DELETE", `/api/links/${r.json.id}`, { cookie: alice.cookie });
    expect(del.status).toBe(200);
    expect(await linkRow(r.json.id)).toBeNull();
    expect(await t.database.get("SELECT COUNT(*) AS n FROM link_analytics WHERE link_id = ?", r.json.id)).toEqual({ n: 0 });
    const after = await t.call("GET", "/doomed");
    expect(after.status).toBe(404);
    // The code is free again.
    expect((await create({ originalUrl: "https://example.com", title: "Reuse", shortCode: "doomed" })).status).toBe(201);
  });
});

// API keys (issue 14): managing them with a session, using them as Bearer credentials.
import { describe, expect, test } from "bun:test";
import { HOSTILE, setup } from "../test/helpers";
import { hashToken } from "../http/auth";
import { KEY_MSG } from "./access";

// Every scenario below makes its own key: more than the default MAX_API_KEYS_PER_USER (src/plans/quotas.test.ts tests the cap).
const t = await setup({ MAX_API_KEYS_PER_USER: "0" });
const alice = await t.signUp("alice");
const bob = await t.signUp("bob");
const KEYS = "/api/api-keys";

type Created = { id: number; key: string; prefix: string; name: string; scope: string; only: string | null; createdAt: string; lastUsedAt: string | null };

async function newKey(cookie: string, scope: "read" | "read-write", only: "links" | "topics" | null = null, name = `key ${scope} ${only}`) {
  const r = await t.call("POST", KEYS, { body: { name, scope, only }, cookie });
  if (r.status !== 201) throw new Error(r.text);
  return r.json as Created;
}

/** A request with the key as its only credential. */
const withKey = (key: string, method: string, path: string, body?: Record<string, unknown>, headers: Record<string, string> = {}) =>
  t.call(method, path, { body, headers: { authorization: `Bearer ${key}`, ...headers } });

const keyRow = (id: number) => t.database.get("SELECT * FROM api_keys WHERE id = ?", id);
const linkBody = (path: string) => ({ originalUrl: `https://example.com/${path}`, title: `Via key ${path}` });

describe("managing keys with a session", () => {
  test("create shows the whole key once; the list shows prefix, scope, created and last-used, never the key", async () => {
    const k = await newKey(alice.cookie, "read-write", "links", "CI deploys");
    expect(k.key).toMatch(/^tl_[A-Za-z0-9_-]{43}$/);
    expect(k).toMatchObject({ name: "CI deploys", scope: "read-write", only: "links", prefix: k.key.slice(0, 11), lastUsedAt: null });
    const list = await t.call("GET", KEYS, { cookie: alice.cookie });
    expect(list.status).toBe(200);
    const listed = list.json.find((x: Created) => x.id === k.id);
    expect(listed).toEqual({ id: k.id, name: "CI deploys", prefix: k.prefix, scope: "read-write", only: "links", createdAt: k.createdAt, lastUsedAt: null });
    expect(list.text).not.toContain(k.key);
    // Bob sees none of Alice's keys.
    expect((await t.call("GET", KEYS, { cookie: bob.cookie })).json.some((x: Created) => x.id === k.id)).toBe(false);
  });

  test("only a sha256 of the key is at rest", async () => {
    const k = await newKey(alice.cookie, "read");
    const row = (await keyRow(k.id))!;
    expect(row.key_hash).toBe(hashToken(k.key));
    const dump = JSON.stringify(await t.database.all("SELECT * FROM api_keys"));
    expect(dump).not.toContain(k.key);
    expect(dump).not.toContain(k.key.slice(11));
  });

  type Bad = { name: string; body: unknown; message: string | RegExp };
  const bad: Bad[] = [
    { name: "no name", body: { scope: "read" }, message: "Name is required" },
    { name: "blank name", body: { name: "   ", scope: "read" }, message: "Name is required" },
    { name: "name over 50", body: { name: "n".repeat(51), scope: "read" }, message: "Name must be at most 50 characters" },
    { name: "huge name", body: { name: HOSTILE.huge, scope: "read" }, message: "Name must be at most 50 characters" },
    { name: "name with a NUL", body: { name: HOSTILE.nul, scope: "read" }, message: /control characters/ },
    { name: "name as a number", body: { name: 5, scope: "read" }, message: "Name must be text" },
    { name: "no scope", body: { name: "x" }, message: "Scope must be read or read-write" },
    { name: "scope admin", body: { name: "x", scope: "admin" }, message: "Scope must be read or read-write" },
    { name: "scope as SQL", body: { name: "x", scope: HOSTILE.sql }, message: "Scope must be read or read-write" },
    { name: "only accounts", body: { name: "x", scope: "read", only: "accounts" }, message: /Limit must be links or topics/ },
    { name: "only as an array", body: { name: "x", scope: "read", only: ["links"] }, message: /Limit must be links or topics/ },
  ];
  for (const s of bad) {
    test(`create refuses ${s.name}: 400, no key made`, async () => {
      const before = await t.count("api_keys");
      const r = await t.call("POST", KEYS, { body: s.body as Record<string, unknown>, cookie: alice.cookie });
      expect(r.status).toBe(400);
      expect(r.json.error.message).toMatch(s.message);
      expect(await t.count("api_keys")).toBe(before);
    });
  }

  test("hostile names are kept as text; malformed JSON is 400", async () => {
    const k = await newKey(alice.cookie, "read", null, `${HOSTILE.script}🧵`.slice(0, 40));
    expect((await keyRow(k.id))!.name).toBe(`${HOSTILE.script}🧵`.slice(0, 40));
    const before = await t.count("api_keys");
    expect((await t.call("POST", KEYS, { raw: "{nope", cookie: alice.cookie })).status).toBe(400);
    expect(await t.count("api_keys")).toBe(before);
  });

  test("revoke: the very next request with the key is 401; another user's key is 404 and stays", async () => {
    const k = await newKey(alice.cookie, "read");
    expect((await withKey(k.key, "GET", "/api/links")).status).toBe(200);
    const other = await t.call("DELETE", `${KEYS}/${k.id}`, { cookie: bob.cookie });
    expect(other.status).toBe(404);
    expect(await keyRow(k.id)).not.toBeNull();
    expect((await t.call("DELETE", `${KEYS}/${k.id}`, { cookie: alice.cookie })).status).toBe(200);
    const after = await withKey(k.key, "GET", "/api/links");
    expect(after.status).toBe(401);
    expect(after.json.error.message).toBe(KEY_MSG.unknown);
    expect((await t.call("DELETE", `${KEYS}/${k.id}`, { cookie: alice.cookie })).status).toBe(404);
  });

  test("revoking a junk or missing id is 404 and revokes nothing", async () => {
    await newKey(alice.cookie, "read");
    const before = await t.count("api_keys");
    for (const id of ["abc", "0", "-1", "1e3", "999999", encodeURIComponent(HOSTILE.sql), "9".repeat(40)]) {
      const r = await t.call("DELETE", `${KEYS}/${id}`, { cookie: alice.cookie });
      expect(r.status).toBe(404);
      expect(r.json.error.code).toBe("NOT_FOUND");
    }
    expect(await t.count("api_keys")).toBe(before);
  });

  test("without a session the keys routes are 401", async () => {
    expect((await t.call("GET", KEYS)).status).toBe(401);
    expect((await t.call("POST", KEYS, { body: { name: "x", scope: "read" } })).status).toBe(401);
  });
});

describe("using a key: Authorization: Bearer", () => {
  test("a read-write key creates, edits and deletes the user's links, with no Origin check", async () => {
    const k = await newKey(alice.cookie, "read-write");
    const made = await withKey(k.key, "POST", "/api/links", linkBody("rw"), { origin: "https://elsewhere.example" });
    expect(made.status).toBe(201);
    const row = await t.database.get<{ user_id: number }>("SELECT user_id FROM short_links WHERE id = ?", made.json.id);
    expect(row!.user_id).toBe(alice.user.id);
    const edit = await withKey(k.key, "PUT", `/api/links/${made.json.id}`, { originalUrl: "https://example.com/edited", title: "Edited by key" });
    expect(edit.status).toBe(200);
    expect((await withKey(k.key, "DELETE", `/api/links/${made.json.id}`)).status).toBe(200);
  });

  test("a cookie request keeps the Origin check; a key sent with a cookie does too", async () => {
    const k = await newKey(alice.cookie, "read-write");
    const cookie = await t.call("POST", "/api/links", { body: linkBody("xsite"), cookie: alice.cookie, headers: { origin: "https://evil.example" } });
    expect(cookie.status).toBe(403);
    const both = await t.call("POST", "/api/links", { body: linkBody("xsite2"), cookie: alice.cookie, headers: { origin: "https://evil.example", authorization: `Bearer ${k.key}` } });
    expect(both.status).toBe(403);
  });

  test("last-used is written on use", async () => {
    const k = await newKey(alice.cookie, "read");
    expect((await keyRow(k.id))!.last_used_at).toBeNull();
    const before = Date.now();
    expect((await withKey(k.key, "GET", "/api/topics")).status).toBe(200);
    const used = (await keyRow(k.id))!.last_used_at as string;
    expect(Date.parse(used)).toBeGreaterThanOrEqual(before - 1000);
    const listed = (await t.call("GET", KEYS, { cookie: alice.cookie })).json.find((x: Created) => x.id === k.id);
    expect(listed.lastUsedAt).toBe(used);
  });

  test("another user's objects stay 404 through a key, and nothing changes", async () => {
    const bobs = await t.call("POST", "/api/links", { body: linkBody("bobs"), cookie: bob.cookie });
    const topic = await t.call("POST", "/api/topics", { body: { name: "Bob's topic" }, cookie: bob.cookie });
    expect(topic.status).toBe(201);
    const k = await newKey(alice.cookie, "read-write");
    const rows = async () => [await t.database.get("SELECT * FROM short_links WHERE id = ?", bobs.json.id), await t.database.get("SELECT * FROM topics WHERE id = ?", topic.json.id)];
    const before = await rows();
    for (const [method, path, body] of [
      ["PUT", `/api/links/${bobs.json.id}`, { originalUrl: "https://evil.example", title: "Mine" }],
      ["DELETE", `/api/links/${bobs.json.id}`, undefined],
      ["GET", `/api/links/${bobs.json.id}/analytics`, undefined],
      ["PUT", `/api/topics/${topic.json.id}`, { name: "Stolen" }],
      ["DELETE", `/api/topics/${topic.json.id}`, undefined],
    ] as const) {
      const r = await withKey(k.key, method, path, body as Record<string, unknown> | undefined);
      expect(r.status).toBe(404);
    }
    expect(await rows()).toEqual(before);
    expect((await withKey(k.key, "GET", "/api/links")).json.some((l: { id: number }) => l.id === bobs.json.id)).toBe(false);
  });

  // The scopes × routes matrix: each key against a read and a write of each area, and the
  // account routes that no key reaches.
  const scopes = [
    { scope: "read", only: null },
    { scope: "read-write", only: null },
    { scope: "read", only: "links" },
    { scope: "read-write", only: "links" },
    { scope: "read", only: "topics" },
    { scope: "read-write", only: "topics" },
  ] as const;
  const routes = [
    { name: "list links", area: "links", write: false, method: "GET", path: () => "/api/links", ok: 200 },
    { name: "create a link", area: "links", write: true, method: "POST", path: () => "/api/links", body: () => linkBody(`m${Math.random().toString(36).slice(2, 8)}`), ok: 201 },
    { name: "list brand links", area: "links", write: false, method: "GET", path: () => "/api/pic-drift-links", ok: 200 },
    { name: "list topics", area: "topics", write: false, method: "GET", path: () => "/api/topics", ok: 200 },
    { name: "create a topic", area: "topics", write: true, method: "POST", path: () => "/api/topics", body: () => ({ name: `T${Math.random().toString(36).slice(2, 8)}` }), ok: 201 },
    { name: "list notifications", area: "other", write: false, method: "GET", path: () => "/api/notifications", ok: 200 },
    { name: "read who I am", area: "account", write: false, method: "GET", path: () => "/api/user", ok: 0 },
    { name: "list API keys", area: "account", write: false, method: "GET", path: () => "/api/api-keys", ok: 0 },
    { name: "create an API key", area: "account", write: true, method: "POST", path: () => "/api/api-keys", body: () => ({ name: "minted", scope: "read-write" }), ok: 0 },
    { name: "upgrade the plan", area: "account", write: true, method: "POST", path: () => "/api/subscription/upgrade", body: () => ({}), ok: 0 },
  ] as const;
  for (const s of scopes) {
    for (const r of routes) {
      const allowed = r.area !== "account" && (s.only === null || s.only === r.area) && (s.scope === "read-write" || !r.write);
      test(`${s.scope}${s.only ? ` (only ${s.only})` : ""} × ${r.name}: ${allowed ? r.ok : 403}`, async () => {
        // Counted through the database: a refused write leaves every table as it was.
        await t.signUp(`m${Math.random().toString(36).slice(2, 10)}`);
        const k = await newKey(alice.cookie, s.scope, s.only);
        const counts = () => ["short_links", "topics", "api_keys", "sessions"].map((x) => t.count(x));
        const before = counts();
        const res = await withKey(k.key, r.method, r.path(), "body" in r ? r.body() : undefined);
        if (allowed) {
          expect(res.status).toBe(r.ok);
        } else {
          expect(res.status).toBe(403);
          expect(res.json.error.code).toBe("FORBIDDEN");
          const outside = s.only !== null && s.only !== r.area;
          expect(res.json.error.message).toBe(r.area === "account" ? KEY_MSG.account : outside ? (s.only === "links" ? KEY_MSG.onlyLinks : KEY_MSG.onlyTopics) : KEY_MSG.readOnly);
          expect(counts()).toEqual(before);
        }
      });
    }
  }

  const unauthorised: { name: string; header: string; message: string }[] = [
    { name: "unknown key", header: `Bearer tl_${"A".repeat(43)}`, message: KEY_MSG.unknown },
    { name: "a key one character short", header: `Bearer tl_${"A".repeat(42)}`, message: KEY_MSG.malformed },
    { name: "no tl_ prefix", header: `Bearer ${"A".repeat(46)}`, message: KEY_MSG.malformed },
    { name: "Basic scheme", header: "Basic YWxpY2U6cGFzcw==", message: KEY_MSG.malformed },
    { name: "empty Bearer", header: "Bearer ", message: KEY_MSG.malformed },
    { name: "SQL", header: `Bearer ${HOSTILE.sql}`, message: KEY_MSG.malformed },
    { name: "huge", header: `Bearer tl_${HOSTILE.huge}`, message: KEY_MSG.malformed },
    // Header values are bytes: an emoji cannot be sent at all; Latin-1 letters can.
    { name: "non-ASCII", header: `Bearer tl_${"é".repeat(43)}`, message: KEY_MSG.malformed },
  ];
  for (const u of unauthorised) {
    test(`401 for ${u.name}, nothing changed`, async () => {
      const before = await t.count("short_links");
      const r = await t.call("POST", "/api/links", { body: linkBody("never"), headers: { authorization: u.header } });
      expect(r.status).toBe(401);
      expect(r.json.error).toMatchObject({ code: "UNAUTHORIZED", message: u.message });
      expect(await t.count("short_links")).toBe(before);
    });
  }

  test("the scheme's case and the spaces after it are free (RFC 9110: 1*SP), as curl or a proxy may send them", async () => {
    const k = await newKey(alice.cookie, "read");
    for (const header of [`Bearer ${k.key}`, `bearer ${k.key}`, `BEARER  ${k.key}`, `Bearer   ${k.key}`]) {
      const r = await t.call("GET", "/api/links", { headers: { authorization: header } });
      expect(r.status, header).toBe(200);
    }
  });

  test("a key in the query string is refused, even a valid one, even beside a session", async () => {
    const k = await newKey(alice.cookie, "read-write");
    for (const [path, cookie] of [
      [`/api/links?api_key=${k.key}`, undefined],
      [`/api/links?token=${k.key}`, undefined],
      [`/api/links?x=${k.key}`, alice.cookie],
    ] as const) {
      const r = await t.call("GET", path, { cookie });
      expect(r.status).toBe(401);
      expect(r.json.error.message).toBe(KEY_MSG.inQuery);
    }
    expect((await keyRow(k.id))!.last_used_at).toBeNull();
  });

  test("deleting the user deletes their keys (ON DELETE CASCADE)", async () => {
    const carol = await t.signUp("carol");
    const k = await newKey(carol.cookie, "read");
    await t.database.run("DELETE FROM users WHERE id = ?", carol.user.id);
    expect(await keyRow(k.id)).toBeNull();
    expect((await withKey(k.key, "GET", "/api/links")).status).toBe(401);
  });
});

// Two app instances on one PostgreSQL database (each its own pool, as two servers behind a load
// balancer would have): writes that decide a number or a name from what is already stored
// never hand out one twice and never fail a user. Run by scripts/test.sh's PostgreSQL section
// (a throwaway cluster); without PostgreSQL these fail, they never skip.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../app";
import { loadConfig } from "../config";
import { openDatabase } from "../db/connect";
import { ORIGIN, PASSWORD, testDatabaseUrl } from "../test/helpers";

const url = await testDatabaseUrl();
const closing: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closing) await close();
});

async function instance() {
  const dir = mkdtempSync(join(tmpdir(), "threadlink-versions-"));
  const config = loadConfig({ DATA_DIR: dir, PUBLIC_URL: ORIGIN, DATABASE_URL: url, FREE_TOPIC_LIMIT: "3" });
  const { db } = await openDatabase(config);
  const { app, ctx } = await createApp({ db, config });
  closing.push(async () => {
    for (const hook of ctx.shutdownHooks) await hook();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return async (method: string, path: string, cookie?: string, body?: unknown) => {
    const headers: Record<string, string> = { host: "localhost:3000" };
    if (cookie) headers.cookie = cookie;
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await app.handle(new Request(`${ORIGIN}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
    const text = await res.text();
    return { status: res.status, text, json: text ? JSON.parse(text) : null, headers: res.headers };
  };
}

const [a, b] = [await instance(), await instance()];

async function signUp(username: string) {
  const r = await a("POST", "/api/register", undefined, { username, password: PASSWORD, email: `${username}@example.test` });
  expect(r.status).toBe(201);
  await a("POST", "/api/subscription/upgrade", r.headers.get("set-cookie")!.split(";")[0]!);
  return { cookie: r.headers.get("set-cookie")!.split(";")[0]!, id: r.json.user.id as number };
}

const owner = await signUp("vera");
const member = await signUp("milo");
// milo sees vera's topics: an invite made on one instance, accepted on the other.
const invite = await a("POST", "/api/invites", owner.cookie);
expect((await b("POST", `/api/invites/${invite.json.code}/accept`, member.cookie)).status).toBe(200);
const topic = (await b("POST", "/api/topics", owner.cookie, { name: "Busy Board" })).json as { id: number; linkSlug: string };
const P = `/api/vera/${topic.linkSlug}/titles`;

describe("two instances on one PostgreSQL", () => {
  test("2 × 20 new messages at once: 40 distinct consecutive version numbers, no error", async () => {
    expect((await a("POST", P, owner.cookie, { name: "Standup", version: 1 })).status).toBe(201);
    const rs = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b)("POST", P, i % 4 < 2 ? owner.cookie : member.cookie, { name: "Standup", notes: `n${i}` })),
    );
    expect(rs.filter((r) => r.status !== 201).map((r) => `${r.status} ${r.text}`)).toEqual([]);
    expect(rs.map((r) => r.json.version as number).sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 2));
    const stored = (await a("GET", P, owner.cookie)).json as { name: string; version: number }[];
    expect(stored.filter((x) => x.name === "Standup").map((x) => x.version).sort((x, y) => x - y)).toEqual(Array.from({ length: 41 }, (_, i) => i + 1));
  });

  test("the same new title from both at once: one 201, the other the CONFLICT the form expects", async () => {
    const rs = await Promise.all([a, b].map((call) => call("POST", P, owner.cookie, { name: "Retro", version: 1 })));
    expect(rs.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(rs.find((r) => r.status === 409)!.json.error.message).toBe("A title with that name already exists in this topic");
  });

  test("a rename and new versions at once: every version ends in one series, numbers unique", async () => {
    const first = (await a("POST", P, owner.cookie, { name: "Draft", version: 1 })).json as { id: number };
    const rs = await Promise.all([
      b("PUT", `${P}/${first.id}?updateAllVersions=true`, owner.cookie, { name: "Final" }),
      ...Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b)("POST", P, owner.cookie, { name: "Draft" })),
    ]);
    expect(rs.filter((r) => r.status >= 500).map((r) => r.text)).toEqual([]);
    const stored = (await b("GET", P, owner.cookie)).json as { name: string; version: number }[];
    for (const name of ["Draft", "Final"]) {
      const versions = stored.filter((x) => x.name === name).map((x) => x.version);
      expect(new Set(versions).size).toBe(versions.length);
    }
  });

  test("topics created at once on both: distinct slugs, orders and numbers; the free limit holds", async () => {
    const rs = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b)("POST", "/api/topics", owner.cookie, { name: "Twin" })));
    expect(rs.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(new Set(rs.map((r) => r.json.linkSlug)).size).toBe(10);
    expect(new Set(rs.map((r) => r.json.order)).size).toBe(10);

    const free = await a("POST", "/api/register", undefined, { username: "frida", password: PASSWORD, email: "frida@example.test" });
    const cookie = free.headers.get("set-cookie")!.split(";")[0]!;
    const limited = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b)("POST", "/api/topics", cookie, { name: `F${i}` })));
    expect(limited.filter((r) => r.status === 201)).toHaveLength(3);
    expect(limited.filter((r) => r.status !== 201).map((r) => r.status)).toEqual(Array(5).fill(403));
  });

  test("one viewer's open on both at once counts once", async () => {
    const pub = (await a("POST", "/api/topics", owner.cookie, { name: "Open Day", accessType: "public" })).json as { id: number; linkSlug: string };
    const rs = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b)("POST", `/api/topic/vera/${pub.linkSlug}/open`, member.cookie)));
    expect(rs.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(rs.filter((r) => r.json.counted)).toHaveLength(1);
    expect((await b("GET", `/api/topic/vera/${pub.linkSlug}`, owner.cookie)).json.clickCount).toBe(1);
  });
});

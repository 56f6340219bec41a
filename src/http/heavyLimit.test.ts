// Issue 21: heavy calls (bulk, import, exports, analytics) limited per user, sessions included;
// the import's body read only after the session or key is found and within that limit.
import { describe, expect, test } from "bun:test";
import { ORIGIN, setup } from "../test/helpers";
import { HEAVY_CALLS } from "./rateLimit";

const HEAVY = 3;
const t = await setup({ HEAVY_RATE_LIMIT: String(HEAVY) });
const alice = await t.signUp("alice");
const bob = await t.signUp("bob");
const link = (await t.call("POST", "/api/links", { body: { originalUrl: "https://example.com/a", title: "A" }, cookie: alice.cookie })).json;
const bobLink = (await t.call("POST", "/api/links", { body: { originalUrl: "https://example.com/b", title: "B" }, cookie: bob.cookie })).json;

/** A body stream that counts the chunks the server pulls from it. */
function countedBody(chunks: number, size = 64 * 1024) {
  const chunk = new Uint8Array(size).fill(0x61);
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (pulled === chunks) return c.close();
      pulled++;
      c.enqueue(chunk);
    },
  });
  return { body, pulled: () => pulled };
}

function upload(headers: Record<string, string>, body: ReadableStream<Uint8Array> | string) {
  return t.app.handle(
    new Request(`${ORIGIN}/api/links/import`, { method: "POST", headers: { host: "localhost:3000", "content-type": "text/csv", ...headers }, body, duplex: "half" } as RequestInit),
  );
}

describe("HEAVY_CALLS", () => {
  const cases: [string, boolean][] = [
    ["/api/links/bulk", true],
    ["/api/links/import", true],
    ["/api/links/export.csv", true],
    ["/api/links/export.json", true],
    ["/api/links/12/analytics", true],
    ["/api/pic-drift-links/12/clicks.csv", true],
    ["/api/links", false],
    ["/api/links/12", false],
    ["/api/links/redirect/abc", false],
    ["/api/topics", false],
  ];
  for (const [path, heavy] of cases) test(`${path}: ${heavy ? "counted" : "not counted"}`, () => expect(HEAVY_CALLS.test(path)).toBe(heavy));
});

describe("per-user limit on heavy calls (HEAVY_RATE_LIMIT)", () => {
  test("a signed-in browser gets its 3 analytics calls a minute, then 429 with Retry-After; other users and light calls are untouched", async () => {
    const statuses = [];
    for (let i = 0; i < HEAVY + 1; i++) statuses.push((await t.call("GET", `/api/links/${link.id}/analytics`, { cookie: alice.cookie })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await t.call("GET", "/api/links/export.json", { cookie: alice.cookie });
    expect(refused.status).toBe(429);
    expect(refused.json.error).toMatchObject({ code: "RATE_LIMITED", message: expect.stringContaining(`${HEAVY} a minute`) });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    // A refused bulk writes nothing.
    const before = await t.count("short_links");
    const bulk = await t.call("POST", "/api/links/bulk", { body: { links: [{ originalUrl: "https://example.com/c", title: "C" }] }, cookie: alice.cookie });
    expect(bulk.status).toBe(429);
    expect(await t.count("short_links")).toBe(before);
    // Light calls go on; another user has a budget of their own.
    expect((await t.call("GET", "/api/links", { cookie: alice.cookie })).status).toBe(200);
    expect((await t.call("GET", `/api/links/${bobLink.id}/analytics`, { cookie: bob.cookie })).status).toBe(200);
  });

  test("the user's API keys share the user's budget", async () => {
    const carol = await t.signUp("carol");
    const key = (await t.call("POST", "/api/api-keys", { body: { name: "k", scope: "read" }, cookie: carol.cookie })).json.key as string;
    expect((await t.call("GET", "/api/links/export.csv", { cookie: carol.cookie })).status).toBe(200);
    expect((await t.call("GET", "/api/links/export.csv", { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    expect((await t.call("GET", "/api/links/export.csv", { cookie: carol.cookie })).status).toBe(200);
    expect((await t.call("GET", "/api/links/export.csv", { headers: { authorization: `Bearer ${key}` } })).status).toBe(429);
  });

  test("an import over the limit is refused before its body is read", async () => {
    const dave = await t.signUp("dave");
    for (let i = 0; i < HEAVY; i++) expect((await upload({ cookie: dave.cookie }, "url,code,title\nhttps://example.com/d,,D\n")).status).toBe(200);
    const file = countedBody(160);
    const r = await upload({ cookie: dave.cookie }, file.body);
    expect(r.status).toBe(429);
    expect(file.pulled()).toBeLessThanOrEqual(1);
  });
});

describe("the import authenticates before reading a body", () => {
  const bad: [string, Record<string, string>][] = [
    ["a made-up session cookie", { cookie: "tl_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" }],
    ["a made-up API key", { authorization: "Bearer tl_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" }],
    ["no credentials", {}],
  ];
  for (const [name, headers] of bad) {
    test(`${name}: 401, the 10 MB body left unread`, async () => {
      const before = await t.count("short_links");
      const file = countedBody(160);
      const r = await upload({ ...headers, "content-length": String(160 * 64 * 1024) }, file.body);
      expect(r.status).toBe(401);
      expect((await r.json()).error.code).toBe("UNAUTHORIZED");
      expect(file.pulled()).toBeLessThanOrEqual(1);
      expect(await t.count("short_links")).toBe(before);
    });
  }

  test("a signed-in user's file is read and imported", async () => {
    const erin = await t.signUp("erin");
    const r = await upload({ cookie: erin.cookie }, "url,code,title\nhttps://example.com/e,erin-e,E\n");
    expect(r.status).toBe(200);
    expect((await r.json()).imported).toBe(1);
  });

  test("150 parallel unauthenticated 10 MB uploads through a real socket: refused, RSS does not grow materially", async () => {
    const server = t.app.listen({ port: 0, hostname: "127.0.0.1" });
    const port = server.server!.port!;
    const size = 10 * 1024 * 1024;
    const chunk = new Uint8Array(256 * 1024).fill(0x61);
    const head = `POST /api/links/import HTTP/1.1\r\nHost: localhost:3000\r\nContent-Type: text/csv\r\nCookie: tl_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\r\nContent-Length: ${size}\r\n\r\n`;
    /** Sends the headers and as much of the body as the server takes; resolves with the status line. */
    const one = () =>
      new Promise<string>((resolve) => {
        let sent = 0;
        let answer = "";
        const push = (s: { write(b: Uint8Array): number }) => {
          while (sent < size) {
            const n = s.write(chunk.subarray(0, Math.min(chunk.length, size - sent)));
            sent += n;
            if (n < chunk.length) return;
          }
        };
        Bun.connect({
          hostname: "127.0.0.1",
          port,
          socket: {
            open(s) {
              s.write(head);
              push(s);
            },
            drain: push,
            data(s, d) {
              answer += d.toString();
              if (answer.includes("\r\n")) {
                s.end();
                resolve(answer.split("\r\n")[0]!);
              }
            },
            close: () => resolve(answer.split("\r\n")[0] ?? ""),
            error: () => resolve(answer.split("\r\n")[0] ?? ""),
          },
        });
      });
    try {
      Bun.gc(true);
      const before = process.memoryUsage.rss();
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
      const t0 = performance.now();
      const lines = await Promise.all(Array.from({ length: 150 }, one));
      const ms = performance.now() - t0;
      clearInterval(sampler);
      const grown = Math.max(peak, process.memoryUsage.rss()) - before;
      console.log(`150 unauthenticated 10 MB uploads: ${Math.round(ms)} ms, peak RSS +${(grown / 1048576).toFixed(1)} MB`);
      // 401, or 429 once the address has used its anonymous API limit (API_ANON_RATE_LIMIT).
      expect(lines.filter((l) => !/^HTTP\/1.1 (401|429) /.test(l))).toEqual([]);
      // Read first, the bodies would be 1.5 GB; unread, what grows is sockets and buffers.
      expect(grown).toBeLessThan(64 * 1024 * 1024);
      expect(ms).toBeLessThan(10_000);
    } finally {
      server.stop(true);
    }
  }, 60_000);
});

// Redirects through a real listening socket: the peer address decides whether proxy headers
// are believed, and a real process must flush its buffered clicks on SIGTERM. On either backend
// (TEST_BACKEND): on PostgreSQL the process is started with DATABASE_URL.
import { describe, expect, test } from "bun:test";
import { Database as SqliteHandle } from "bun:sqlite";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onPostgres, setup, testDatabaseUrl } from "../test/helpers";
import { freePort } from "../test/instances";
import { WRITE_WITHIN_MS } from "../analytics/recorder";
import { type Database, pgDatabase, sqliteDatabase } from "../db/database";
import { openPg } from "../db/pg";
import { connect } from "node:net";
import { cityFromHeader } from "./visitor";

async function listening(env: Record<string, string>) {
  const t = await setup(env);
  const server = t.app.listen({ port: 0, hostname: "127.0.0.1" });
  const base = `http://127.0.0.1:${server.server!.port}`;
  const alice = await t.signUp("alice");
  const r = await t.call("POST", "/api/links", { body: { originalUrl: "https://example.com/geo", title: "Geo", shortCode: "geo" }, cookie: alice.cookie });
  const id = r.json.id as number;
  const get = (headers: Record<string, string>) => fetch(`${base}/geo`, { headers, redirect: "manual" });
  const rows = () => t.database.all<{ ip: string; country: string | null; city: string | null }>("SELECT ip, country, city FROM link_analytics WHERE link_id = ? ORDER BY id", id);
  return { t, base, get, rows, stop: () => server.stop(true) };
}


describe("the fast lane (Bun's router) answers exactly as the app does", () => {
  test("live links on every redirect path; app pages, unknown codes and other methods fall through", async () => {
    const s = await listening({});
    const base = s.base;
    const viaServer = (path: string, init: RequestInit = {}) => fetch(`${base}${path}`, { redirect: "manual", ...init });
    const viaApp = (path: string, method = "GET") => s.t.app.handle(new Request(`http://localhost:3000${path}`, { method }));
    const pick = (r: Response) => ({ status: r.status, location: r.headers.get("location"), cache: r.headers.get("cache-control"), referrer: r.headers.get("referrer-policy"), nosniff: r.headers.get("x-content-type-options"), frame: r.headers.get("x-frame-options") });
    for (const path of ["/geo", "/l/geo", "/r/geo", "/api/links/redirect/geo"]) {
      for (const method of ["GET", "HEAD"]) {
        const fast = await viaServer(path, { method });
        expect(pick(fast)).toEqual(pick(await viaApp(path, method)));
        expect(pick(fast)).toMatchObject({ status: 302, location: "https://example.com/geo", referrer: "unsafe-url", nosniff: "nosniff", frame: "DENY" });
      }
    }
    // An app page shaped like a code is the web app; an unknown code is the 404 redirect page.
    const page = await viaServer("/auth");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const unknown = await viaServer("/no-such-code");
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain("<h1>Link not found</h1>");
    expect((await viaServer("/l")).headers.get("location")).toBe("/");
    // Not a redirect method: the app's answer (no 302, nothing recorded).
    expect((await viaServer("/geo", { method: "POST", headers: { origin: base } })).status).not.toBe(302);
    await s.t.settle();
    // Eight GETs (four through each path) became clicks; the HEADs and the POST did not.
    expect(await s.rows()).toHaveLength(8);
    s.stop();
  });
});

describe("city names from a CDN header (issue 25)", () => {
  const cases: [string, string, string | null][] = [
    ["raw UTF-8 bytes read as Latin-1", Buffer.from("São Paulo", "utf8").toString("latin1"), "São Paulo"],
    ["raw UTF-8 Zürich", Buffer.from("Zürich", "utf8").toString("latin1"), "Zürich"],
    ["raw UTF-8 Montréal", Buffer.from("Montréal", "utf8").toString("latin1"), "Montréal"],
    ["raw UTF-8 in another script", Buffer.from("Москва", "utf8").toString("latin1"), "Москва"],
    ["a real Latin-1 byte stays itself", "Z\u00fcrich", "Zürich"],
    ["percent-encoded (Vercel)", "S%C3%A3o%20Paulo", "São Paulo"],
    ["plain ASCII", "Mountain View", "Mountain View"],
    ["a literal percent", "100% Town", "100% Town"],
    ["controls dropped", "Bad\u0007City\u0085", "BadCity"],
    ["only blanks", "   ", null],
  ];
  for (const [what, raw, city] of cases) test(`${what} → ${JSON.stringify(city)}`, () => expect(cityFromHeader(raw)).toBe(city));

  test("through a real socket: Cloudflare's raw UTF-8 bytes are stored as the city's name", async () => {
    const s = await listening({});
    const port = Number(new URL(s.base).port);
    const head = Buffer.concat([
      Buffer.from("GET /geo HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: 203.0.113.9\r\nCF-IPCountry: BR\r\nCF-IPCity: "),
      Buffer.from("São Paulo", "utf8"),
      Buffer.from("\r\nConnection: close\r\n\r\n"),
    ]);
    const reply = await new Promise<string>((resolve, reject) => {
      const sock = connect(port, "127.0.0.1", () => sock.end(head));
      let got = "";
      sock.on("data", (d) => (got += d.toString("latin1")));
      sock.on("end", () => resolve(got));
      sock.on("error", reject);
    });
    expect(reply).toStartWith("HTTP/1.1 302");
    await s.t.settle();
    expect(await s.rows()).toEqual([{ ip: "203.0.113.0", country: "BR", city: "São Paulo" }]);
    s.stop();
  });
});

describe("location and address from proxy headers", () => {
  test("from a trusted proxy (loopback by default): X-Forwarded-For, CF-IPCountry and CF-IPCity are believed", async () => {
    const s = await listening({});
    // The client wrote "1.1.1.1"; the proxy appended the address it saw. Only the rightmost
    // untrusted entry is believed (it was the leftmost before, which anyone could forge).
    await s.get({ "x-forwarded-for": "1.1.1.1, 8.8.8.8" });
    await s.get({ "x-forwarded-for": "203.0.113.9", "cf-ipcountry": "de", "cf-ipcity": "M%C3%BCnchen" });
    await s.get({ "x-forwarded-for": "2a00:1450:4001:82a::200e" });
    await s.get({ "x-forwarded-for": "not-an-ip<script>" });
    await s.get({ "cf-ipcountry": "XX" });
    await s.get({ "x-forwarded-for": "8.8.8.8", "cf-ipcity": "Mountain View" });
    // A private address the proxy appended is the client: 10.0.0.1 is not a trusted proxy.
    await s.get({ "x-forwarded-for": "8.8.8.8, 10.0.0.1" });
    await s.t.settle();
    expect(await s.rows()).toEqual([
      // Resolved by the embedded DB-IP country database; stored truncated (IP_STORAGE default).
      { ip: "8.8.8.0", country: "US", city: null },
      { ip: "203.0.113.0", country: "DE", city: "München" },
      { ip: "2a00:1450:4001::", country: "DE", city: null },
      // A malformed forwarded address falls back to the peer (loopback: no location).
      { ip: "127.0.0.0", country: null, city: null },
      { ip: "127.0.0.0", country: null, city: null },
      // A city from the proxy, the country from the database.
      { ip: "8.8.8.0", country: "US", city: "Mountain View" },
      { ip: "10.0.0.0", country: null, city: null },
    ]);
    s.stop();
  });

  test("a chain of trusted proxies (exact and CIDR) is walked from the right", async () => {
    const s = await listening({ TRUSTED_PROXIES: "127.0.0.1, 10.0.0.0/8, fd00::/8", IP_STORAGE: "full" });
    const chains = [
      // [header, stored client address]
      ["8.8.8.8, 10.1.2.3", "8.8.8.8"],
      ["203.0.113.9, 8.8.8.8, 10.1.2.3, 10.4.5.6", "8.8.8.8"],
      ["9.9.9.9, 8.8.4.4, fd00::1", "8.8.4.4"],
      // A malformed hop ends the walk at the last trusted proxy reached.
      ["8.8.8.8, not-an-ip, 10.1.2.3", "10.1.2.3"],
      ["8.8.8.8, 010.1.2.3", "127.0.0.1"],
      // Every hop trusted: the leftmost proxy is the best-known client.
      ["10.9.9.9, 10.1.2.3", "10.9.9.9"],
      ["::ffff:8.8.8.8", "8.8.8.8"],
    ] as const;
    for (const [xff] of chains) await s.get({ "x-forwarded-for": xff });
    await s.t.settle();
    expect((await s.rows()).map((r) => r.ip)).toEqual(chains.map(([, ip]) => ip));
    s.stop();
  });

  test("from an untrusted peer: proxy headers are ignored", async () => {
    const s = await listening({ TRUSTED_PROXIES: "10.9.9.9", IP_STORAGE: "full" });
    await s.get({ "x-forwarded-for": "8.8.8.8", "cf-ipcountry": "FR", "cf-ipcity": "Paris", "x-vercel-ip-country": "JP" });
    await s.t.settle();
    expect(await s.rows()).toEqual([{ ip: "127.0.0.1", country: null, city: null }]);
    s.stop();
  });

  test("IP_STORAGE=none stores no address but still locates", async () => {
    const s = await listening({ IP_STORAGE: "none" });
    await s.get({ "x-forwarded-for": "8.8.4.4" });
    await s.t.settle();
    expect(await s.rows()).toEqual([{ ip: null as unknown as string, country: "US", city: null }]);
    s.stop();
  });
});

/**
 * `threadlink serve` from source in its own process, healthy, with one user and a link `code`
 * made through the API. `dir` is its data folder; on PostgreSQL it serves a database of the test
 * cluster (DATABASE_URL). `open()` reads what it stored, from outside the process.
 */
async function servedProcess(code: string) {
  const dir = mkdtempSync(join(tmpdir(), `threadlink-${code}-`));
  const url = onPostgres ? await testDatabaseUrl() : null;
  // A port the kernel says is free: a random one collided now and then with a client's port
  // (the server then exits at once, and the test waited out its minute).
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn([process.execPath, "src/main.ts", "serve"], {
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dir, PUBLIC_URL: base, LOG_LEVEL: "error", CLICK_DETAIL_PER_MINUTE: "0", ...(url ? { DATABASE_URL: url } : {}) },
    stdout: "ignore",
    stderr: "ignore",
  });
  const done = () => {
    proc.kill();
    rmSync(dir, { recursive: true, force: true });
  };
  const open = (): Database => (url ? pgDatabase(openPg(url, { max: 1, bigint: true })) : sqliteDatabase(new SqliteHandle(join(dir, "threadlink.db"), { readonly: true })));
  try {
    for (let i = 0; i < 100; i++) {
      try {
        if ((await fetch(`${base}/api/health`)).ok) break;
      } catch {
        /* not up yet */
      }
      await Bun.sleep(100);
    }
    const reg = await fetch(`${base}/api/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: `u${code}`, password: "correct horse battery", email: `${code}@example.test` }),
    });
    const cookie = (reg.headers.get("set-cookie") ?? "").split(";")[0]!;
    const made = await fetch(`${base}/api/links`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ originalUrl: `https://example.com/${code}`, title: code, shortCode: code }),
    });
    expect(made.status).toBe(201);
  } catch (e) {
    done();
    throw e;
  }
  return { base, proc, done, open };
}

describe("graceful shutdown", () => {
  test("SIGTERM under load: every redirect that got its 302 is exactly one click row, and the count equals the rows", async () => {
    const { base, proc, done, open } = await servedProcess("load");
    try {
      // Sixteen clients redirect as fast as they can; SIGTERM lands in the middle of it.
      let ok = 0;
      let stopped = false;
      const client = async () => {
        while (!stopped) {
          try {
            const r = await fetch(`${base}/load`, { redirect: "manual" });
            if (r.status === 302) ok++;
          } catch {
            return; // the server stopped listening
          }
        }
      };
      const clients = Array.from({ length: 16 }, client);
      await Bun.sleep(700);
      const before = ok;
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
      stopped = true;
      await Promise.all(clients);
      // Under load: hundreds of redirects answered before the signal, still arriving at it.
      expect(before).toBeGreaterThan(100);

      const db = open();
      const n = async (sql: string) => (await db.get<{ n: number }>(sql))!.n;
      const rows = await n("SELECT COUNT(*) AS n FROM link_analytics");
      const count = await n("SELECT clicks AS n FROM link_click_counts WHERE link_id = (SELECT id FROM short_links WHERE short_code = 'load')");
      // SQLite: the stop also folded them into the per-link index (migrations/0008): no tail
      // left. (PostgreSQL does not fold.)
      const indexed = onPostgres ? ok : await n("SELECT COUNT(*) AS n FROM link_clicks");
      await db.close();
      expect(rows).toBe(ok);
      expect(count).toBe(ok);
      expect(indexed).toBe(ok);
    } finally {
      done();
    }
  }, 60_000);

  test("kill -9: the click writer runs from start-up, so a click is on disk within the write window of the first redirect", async () => {
    const { base, proc, done, open } = await servedProcess("kill9");
    // Bun names a Worker's thread "Worker" (Linux only; elsewhere the durability check below stands alone).
    const named = (name: string) => {
      try {
        return readdirSync(`/proc/${proc.pid}/task`).filter((t) => readFileSync(`/proc/${proc.pid}/task/${t}/comm`, "utf8").trim() === name);
      } catch {
        return null;
      }
    };
    const threads = (name: string) => named(name)?.length ?? -1;
    // A thread's nice value: field 19 of its stat line, counted after the name's closing parenthesis.
    const nice = (tid: string) => {
      const stat = readFileSync(`/proc/${proc.pid}/task/${tid}/stat`, "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
    };
    try {
      // No redirect yet, and the writer's thread is already there ("Worker"), beside the reader
      // thread started with the server ("reader": src/db/reader.ts).
      if (process.platform === "linux") {
        expect(threads("Worker")).toBe(1);
        expect(threads("reader")).toBe(1);
        // The reader thread runs below the request thread once it has opened its connection
        // (READER_NICE, 10 by default: src/shared/priority.ts); the click writer does not.
        const reader = named("reader")![0]!;
        for (const until = Date.now() + 5_000; nice(reader) !== 10 && Date.now() < until; ) await Bun.sleep(20);
        expect(nice(reader)).toBe(10);
        expect(nice(String(proc.pid))).toBe(0);
        expect(nice(named("Worker")![0]!)).toBe(0);
      }

      const db = open();
      const rows = async () => (await db.get<{ n: number }>("SELECT COUNT(*) AS n FROM link_analytics"))!.n;
      const clicked = performance.now();
      expect((await fetch(`${base}/kill9`, { redirect: "manual" })).status).toBe(302);
      while ((await rows()) === 0 && performance.now() - clicked < 5_000) await Bun.sleep(10);
      const took = performance.now() - clicked;
      proc.kill("SIGKILL");
      await proc.exited;
      // Committed before the kill, and still there after it.
      expect(await rows()).toBe(1);
      await db.close();
      // The documented window, with room for a busy machine (a writer started by the click took ~0.5-0.7 s more).
      expect(took).toBeLessThan(WRITE_WITHIN_MS + 400);
    } finally {
      done();
    }
  }, 60_000);
});

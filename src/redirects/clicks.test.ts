// Redirects never wait for the click writer (issue 12): a stalled writer does not slow them,
// and what cannot be kept past the bound is counted. Several app instances on one database
// (issue 15) record the same link and visitor at once and stay exact. On either backend
// (TEST_BACKEND). (SIGTERM under load and kill -9: server.test.ts.)
import { describe, expect, test } from "bun:test";
import { Database as SqliteHandle } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../app";
import { analyticsReports } from "../analytics/report";
import { FIREFOX, stallClickWriters } from "../analytics/clickFixture";
import { loadConfig } from "../config";
import { openDatabase } from "../db/connect";
import type { Database } from "../db/database";
import { linksStore } from "../links/store";
import { onPostgres, PASSWORD, testDatabaseUrl } from "../test/helpers";

/** A database of its own (a SQLite folder, or a PostgreSQL database of the test cluster). */
async function freshDatabase() {
  const dir = mkdtempSync(join(tmpdir(), "threadlink-clicks-"));
  // One address floods one link here: no per-source detail limit (tested in throttle tests).
  const env: Record<string, string> = { DATA_DIR: dir, PUBLIC_URL: "http://127.0.0.1", CLICK_DETAIL_PER_MINUTE: "0" };
  if (onPostgres) env.DATABASE_URL = await testDatabaseUrl();
  const config = loadConfig(env);
  const { db } = await openDatabase(config);
  return { dir, config, db, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** An app instance listening on a loopback port; `stop` runs its graceful-stop hooks. */
async function instance(db: Database, config: ReturnType<typeof loadConfig>, maxClickBacklog?: number) {
  const { app, ctx } = await createApp({ db, config, ...(maxClickBacklog ? { maxClickBacklog } : {}) });
  const server = app.listen({ port: 0, hostname: "127.0.0.1" });
  const base = `http://127.0.0.1:${server.server!.port}`;
  return {
    base,
    async stop() {
      server.stop(true);
      for (const hook of ctx.shutdownHooks) await hook();
    },
  };
}

async function signUpAndLink(base: string, code: string) {
  const reg = await fetch(`${base}/api/register`, { method: "POST", headers: { "content-type": "application/json", origin: base }, body: JSON.stringify({ username: "alice", password: PASSWORD, email: "a@example.test" }) });
  const cookie = (reg.headers.get("set-cookie") ?? "").split(";")[0]!;
  const made = await fetch(`${base}/api/links`, { method: "POST", headers: { "content-type": "application/json", origin: base, cookie }, body: JSON.stringify({ originalUrl: `https://example.com/${code}`, title: code, shortCode: code }) });
  expect(made.status).toBe(201);
  return ((await made.json()) as { id: number }).id;
}

const n = async (db: Database, sql: string, ...params: number[]) => (await db.get<{ n: number }>(sql, ...params))!.n;

describe.skipIf(onPostgres)("an app write waiting for SQLite's write lock", () => {
  test("redirects answer at once while it waits behind another connection's transaction; it then commits", async () => {
    const d = await freshDatabase();
    const app = await instance(d.db, d.config);
    const base = app.base;
    // Another connection holds the write lock, as the click worker does for a transaction.
    const other = new SqliteHandle(join(d.config.dataDir, "threadlink.db"));
    try {
      const reg = await fetch(`${base}/api/register`, { method: "POST", headers: { "content-type": "application/json", origin: base }, body: JSON.stringify({ username: "alice", password: PASSWORD, email: "a@example.test" }) });
      const cookie = (reg.headers.get("set-cookie") ?? "").split(";")[0]!;
      const made = await fetch(`${base}/api/links`, { method: "POST", headers: { "content-type": "application/json", origin: base, cookie }, body: JSON.stringify({ originalUrl: "https://example.com/here", title: "here", shortCode: "here" }) });
      expect(made.status).toBe(201);
      other.exec("BEGIN IMMEDIATE");
      const pending = fetch(`${base}/api/links`, { method: "POST", headers: { "content-type": "application/json", origin: base, cookie }, body: JSON.stringify({ originalUrl: "https://example.com/later", title: "later", shortCode: "later" }) });
      // SQLite's own wait (busy_timeout, 5 s) would hold the request thread, and every redirect, until the lock is free.
      await Bun.sleep(50);
      let slowest = 0;
      for (let i = 0; i < 30; i++) {
        const started = performance.now();
        const r = await fetch(`${base}/here`, { redirect: "manual" });
        slowest = Math.max(slowest, performance.now() - started);
        expect(r.status).toBe(302);
      }
      expect(slowest).toBeLessThan(250);
      other.exec("COMMIT");
      expect((await pending).status).toBe(201);
      expect((await fetch(`${base}/later`, { redirect: "manual" })).status).toBe(302);
    } finally {
      if (other.inTransaction) other.exec("ROLLBACK");
      other.close();
      await app.stop();
      await d.db.close();
      d.remove();
    }
  }, 30_000);
});

describe("a stalled report", () => {
  test("redirects answer at once while analytics reads, click pages and the CSV wait (the stall injected into the database reads)", async () => {
    const d = await freshDatabase();
    const app = await instance(d.db, d.config);
    const base = app.base;
    // Every report read of a link's roll-ups or click rows waits for `release` (as behind a slow
    // disk or a lock); redirects read neither.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let stalled = 0;
    // The reports read through db.reads (the reader thread on SQLite): the stall goes there.
    const reads = d.db.reads;
    const real = { all: reads.all.bind(reads), get: reads.get.bind(reads) };
    const stallable = (sql: string) => /link_rollups|link_analytics/.test(sql) && !/INSERT|UPDATE|DELETE/.test(sql);
    reads.all = (async (sql: string, ...params: unknown[]) => {
      if (stallable(sql)) {
        stalled++;
        await gate;
      }
      return real.all(sql, ...(params as never[]));
    }) as typeof reads.all;
    reads.get = (async (sql: string, ...params: unknown[]) => {
      if (stallable(sql)) {
        stalled++;
        await gate;
      }
      return real.get(sql, ...(params as never[]));
    }) as typeof reads.get;
    // Reports are built and downloads streamed on the reader thread (src/downloads/answers.ts,
    // jobs.ts): they wait there too.
    const reader = d.db.reader!;
    const realAnswer = reader.answer.bind(reader);
    const realDownload = reader.download.bind(reader);
    reader.answer = async (job, acceptEncoding) => {
      stalled++;
      await gate;
      return realAnswer(job, acceptEncoding);
    };
    reader.download = (job, done) => {
      stalled++;
      const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
      void gate.then(() => realDownload(job, done).pipeTo(writable)).catch(() => {});
      return readable;
    };
    try {
      const reg = await fetch(`${base}/api/register`, { method: "POST", headers: { "content-type": "application/json", origin: base }, body: JSON.stringify({ username: "alice", password: PASSWORD, email: "a@example.test" }) });
      const cookie = (reg.headers.get("set-cookie") ?? "").split(";")[0]!;
      const make = async (code: string) => {
        const r = await fetch(`${base}/api/links`, { method: "POST", headers: { "content-type": "application/json", origin: base, cookie }, body: JSON.stringify({ originalUrl: `https://example.com/${code}`, title: code, shortCode: code }) });
        return ((await r.json()) as { id: number }).id;
      };
      const watched = await make("watched");
      await make("other");
      const reads = [
        fetch(`${base}/api/links/${watched}/analytics`, { headers: { cookie } }),
        fetch(`${base}/api/links/${watched}/analytics?before=1000&pageSize=100`, { headers: { cookie } }),
        fetch(`${base}/api/links/${watched}/clicks.csv`, { headers: { cookie } }).then(async (r) => new Response(await r.text(), { status: r.status })),
      ];
      for (let i = 0; i < 100 && stalled < 3; i++) await Bun.sleep(10);
      expect(stalled).toBeGreaterThanOrEqual(3);
      let slowest = 0;
      for (let i = 0; i < 50; i++) {
        const started = performance.now();
        const r = await fetch(`${base}/other`, { redirect: "manual" });
        slowest = Math.max(slowest, performance.now() - started);
        expect(r.status).toBe(302);
      }
      // Milliseconds each (the limit leaves room for a loaded machine): the reads still wait.
      expect(slowest).toBeLessThan(250);
      release();
      for (const r of await Promise.all(reads)) expect(r.status).toBe(200);
    } finally {
      release();
      Object.assign(reads, real);
      reader.answer = realAnswer;
      reader.download = realDownload;
      await app.stop();
      await d.db.close();
      d.remove();
    }
  }, 30_000);
});

describe("a stalled click writer", () => {
  test("redirects answer at once while the writer cannot commit; past the bound rows are dropped but counted", async () => {
    const d = await freshDatabase();
    const BOUND = 200;
    const app = await instance(d.db, d.config, BOUND);
    const base = app.base;
    let stall: Awaited<ReturnType<typeof stallClickWriters>> | null = null;
    try {
      const id = await signUpAndLink(base, "stall");
      const rows = () => n(d.db, "SELECT COUNT(*) AS n FROM link_analytics WHERE link_id = ?", id);
      const count = () => n(d.db, "SELECT clicks AS n FROM link_click_counts WHERE link_id = ?", id);
      const health = async () => ((await (await fetch(`${base}/api/health`)).json()) as { details: { clicks: { backlog: number; highWater: number; dropped: number } } }).details.clicks;
      // The first click starts the worker; wait for it, so the stall below meets a running writer.
      expect((await fetch(`${base}/stall`, { redirect: "manual" })).status).toBe(302);
      for (let i = 0; i < 250 && (await rows()) === 0; i++) await Bun.sleep(20);
      expect(await rows()).toBe(1);

      // The writer's commit waits (stallClickWriters: SQLite's write lock, PostgreSQL's fold-mark
      // row), then retries every second, as it would behind a stalled disk or a long lock.
      stall = await stallClickWriters({ dir: d.dir, databaseUrl: d.config.databaseUrl });
      const N = 3 * BOUND;
      let sent = 0;
      let slowest = 0;
      const client = async () => {
        while (sent < N) {
          sent++;
          const started = performance.now();
          const r = await fetch(`${base}/stall`, { redirect: "manual" });
          slowest = Math.max(slowest, performance.now() - started);
          expect(r.status).toBe(302);
          // Spread over well past the writer's window (300 ms), so the worker is stuck mid-commit.
          await Bun.sleep(5);
        }
      };
      await Promise.all(Array.from({ length: 4 }, client));
      // Nothing written; the bound kept, the rest counted as dropped, and /api/health says so.
      expect(await rows()).toBe(1);
      expect(await health()).toMatchObject({ backlog: BOUND, highWater: BOUND, dropped: N - BOUND });
      // Before issue 12 each redirect past the bound waited for the writer (2 s, as the lock
      // outlasts it); these take milliseconds. The limit leaves room for a machine so loaded
      // that any request can take hundreds of ms, and still tells the two apart.
      expect(slowest).toBeLessThan(1_000);

      await stall.release();
      stall = null;
      for (let i = 0; i < 400 && (await count()) < N + 1; i++) await Bun.sleep(20);
      // Every redirect counted; rows for the clicks kept within the bound.
      expect(await count()).toBe(N + 1);
      expect(await rows()).toBe(BOUND + 1);
      expect(await health()).toMatchObject({ backlog: 0, dropped: N - BOUND });
    } finally {
      await stall?.release();
      await app.stop();
      await d.db.close();
      d.remove();
    }
  }, 30_000);
});

describe("two instances on one database", () => {
  test("the same link and visitor clicked on both at once: counts, visit numbers and unique visitors exact after both stop", async () => {
    const d = await freshDatabase();
    // Two app instances, each with its own redirect map, recorder and click worker (its own
    // connection), as two servers behind a load balancer are.
    const one = await instance(d.db, d.config);
    const two = await instance(d.db, d.config);
    try {
      const id = await signUpAndLink(one.base, "both");
      // The second instance made its map before the link existed: on PostgreSQL it follows the
      // first through LISTEN/NOTIFY (within 100 ms), on SQLite (one file, one process here) it
      // is told as a restarted instance would be, from the database.
      const reached = async () => (await fetch(`${two.base}/both`, { method: "HEAD", redirect: "manual" })).status === 302;
      for (let i = 0; i < 100 && !(await reached()); i++) await Bun.sleep(20);
      if (!(await reached())) {
        await two.stop();
        Object.assign(two, await instance(d.db, d.config));
      }
      expect(await reached()).toBe(true);
      // Two visitors with cookies clicking through both instances, interleaved, plus one without
      // (this Host is not one we serve, so no cookie is set: the visitor is its address and
      // agent, the same on every click): the same (link, visitor) pairs on both writers at once.
      const visitors = ["0192f3a0-aaaa-7000-8000-000000000001", "0192f3a0-aaaa-7000-8000-000000000002"];
      const PER_CLIENT = 150;
      let ok = 0;
      const client = (base: string, visitor: string | null) => async () => {
        for (let i = 0; i < PER_CLIENT; i++) {
          // A browser's agent: fetch's own is a bot's, and bots are never visitors.
          const r = await fetch(`${base}/both`, { redirect: "manual", headers: { "user-agent": FIREFOX, ...(visitor ? { cookie: `tl_vid=${visitor}` } : {}) } });
          expect(r.status).toBe(302);
          ok++;
        }
      };
      const clients = [];
      for (const base of [one.base, two.base]) {
        for (const v of visitors) clients.push(client(base, v), client(base, v));
        clients.push(client(base, null));
      }
      // Analytics read (and rolled up) while both write: each click is added to the tallies once.
      const link = (await linksStore(d.db).byCode("both", "main"))!;
      const reports = analyticsReports(d.db);
      let writing = true;
      const reader = (async () => {
        while (writing) {
          await reports.report(link, "http://127.0.0.1/both", {});
          await Bun.sleep(50);
        }
      })();
      await Promise.all(clients.map((c) => c()));
      writing = false;
      await reader;
      await one.stop();
      await two.stop();

      expect(ok).toBe(clients.length * PER_CLIENT);
      expect(await n(d.db, "SELECT clicks AS n FROM link_click_counts WHERE link_id = ?", id)).toBe(ok);
      expect(await n(d.db, "SELECT COUNT(*) AS n FROM link_analytics WHERE link_id = ?", id)).toBe(ok);
      // Each visitor's visits are numbered 1, 2, 3 … in id order, none twice, whichever
      // instance recorded them: 4 clients × PER_CLIENT clicks each, 2 × for the cookie-less one.
      const hashed = (await d.db.get<{ v: string }>("SELECT DISTINCT visitor_id AS v FROM link_analytics WHERE link_id = ? AND visitor_id LIKE 'h:%'", id))!.v;
      for (const [v, clicks] of [[visitors[0]!, 4 * PER_CLIENT], [visitors[1]!, 4 * PER_CLIENT], [hashed, 2 * PER_CLIENT]] as const) {
        const mine = await d.db.all<{ metadata: string }>("SELECT metadata FROM link_analytics WHERE link_id = ? AND visitor_id = ? ORDER BY id", id, v);
        const numbers = mine.map((r) => (JSON.parse(r.metadata) as { visitNumber: number }).visitNumber);
        expect(numbers).toEqual(Array.from({ length: clicks }, (_, i) => i + 1));
        expect(mine.map((r) => (JSON.parse(r.metadata) as { isReturningVisitor: boolean }).isReturningVisitor)).toEqual(numbers.map((k) => k > 1));
      }
      // Ids commit in order (one turn at a time), so the roll-up adds every click once.
      const report = await reports.report({ ...link, click_count: ok }, "http://127.0.0.1/both", {});
      expect(report.uniqueVisitors).toBe(3);
      expect(report.tallies.browser).toEqual([{ name: "Firefox", count: ok }]);
      expect(report.timeline.series.reduce((k, day) => k + day.count, 0)).toBe(ok);
    } finally {
      await d.db.close();
      d.remove();
    }
  }, 60_000);
});

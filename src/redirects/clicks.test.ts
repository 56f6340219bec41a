// Redirects never wait for the click writer (issue 12): a stalled writer does not slow them,
// and what cannot be kept past the bound is counted. (SIGTERM under load: server.test.ts.)
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../app";
import { loadConfig } from "../config";
import { migrate } from "../db/migrate";
import { openDb } from "../db/open";
import { PASSWORD } from "../test/helpers";

describe("a stalled click writer", () => {
  test("redirects answer at once while the database is locked; past the bound rows are dropped but counted", async () => {
    const dir = mkdtempSync(join(tmpdir(), "threadlink-stall-"));
    const db = openDb(dir);
    migrate(db);
    const BOUND = 200;
    const { app } = await createApp({ db, config: loadConfig({ DATA_DIR: dir, PUBLIC_URL: "http://127.0.0.1" }), maxClickBacklog: BOUND });
    const server = app.listen({ port: 0, hostname: "127.0.0.1" });
    const base = `http://127.0.0.1:${server.server!.port}`;
    const blocker = openDb(dir);
    try {
      const reg = await fetch(`${base}/api/register`, { method: "POST", headers: { "content-type": "application/json", origin: base }, body: JSON.stringify({ username: "alice", password: PASSWORD, email: "a@example.test" }) });
      const cookie = (reg.headers.get("set-cookie") ?? "").split(";")[0]!;
      const made = await fetch(`${base}/api/links`, { method: "POST", headers: { "content-type": "application/json", origin: base, cookie }, body: JSON.stringify({ originalUrl: "https://example.com/stall", title: "Stall", shortCode: "stall" }) });
      expect(made.status).toBe(201);
      const id = ((await made.json()) as { id: number }).id;
      const rows = () => (db.query("SELECT COUNT(*) AS n FROM link_analytics WHERE link_id = ?").get(id) as { n: number }).n;
      const count = () => (db.query("SELECT clicks FROM link_click_counts WHERE link_id = ?").get(id) as { clicks: number }).clicks;
      const health = async () => ((await (await fetch(`${base}/api/health`)).json()) as { details: { clicks: { backlog: number; highWater: number; dropped: number } } }).details.clicks;
      // The first click starts the worker; wait for it, so the stall below meets a running writer.
      expect((await fetch(`${base}/stall`, { redirect: "manual" })).status).toBe(302);
      for (let i = 0; i < 250 && rows() === 0; i++) await Bun.sleep(20);
      expect(rows()).toBe(1);

      // Another connection holds the write lock: the worker's commit waits on it (busy_timeout,
      // then retries every second), as it would behind a stalled disk or a long checkpoint.
      blocker.exec("BEGIN IMMEDIATE");
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
      expect(rows()).toBe(1);
      expect(await health()).toMatchObject({ backlog: BOUND, highWater: BOUND, dropped: N - BOUND });
      // Before issue 12 each redirect past the bound waited for the writer (2 s, as the lock
      // outlasts it); these take milliseconds. The limit leaves room for a machine so loaded
      // that any request can take hundreds of ms, and still tells the two apart.
      expect(slowest).toBeLessThan(1_000);

      blocker.exec("COMMIT");
      for (let i = 0; i < 400 && count() < N + 1; i++) await Bun.sleep(20);
      // Every redirect counted; rows for the clicks kept within the bound.
      expect(count()).toBe(N + 1);
      expect(rows()).toBe(BOUND + 1);
      expect(await health()).toMatchObject({ backlog: 0, dropped: N - BOUND });
    } finally {
      if (blocker.inTransaction) blocker.exec("ROLLBACK");
      blocker.close();
      server.stop(true);
      await Bun.sleep(50);
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

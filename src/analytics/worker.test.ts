// The click worker, on either backend (TEST_BACKEND): batches written by another thread on its
// own connection, flush() as the read barrier, a graceful stop that loses nothing, the app's
// reads and writes coexisting with it, overload. On SQLite it also checkpoints the WAL.
import { expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import type { Database as SqliteHandle } from "bun:sqlite";
import { onPostgres } from "../test/helpers";
import { analyticsStore } from "./store";
import { BATCH, WRITE_WITHIN_MS } from "./recorder";
import { clickFixture, stallClickWriters } from "./clickFixture";

const autocheckpoint = (db: SqliteHandle) => (db.query("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number }).wal_autocheckpoint;

async function fixture() {
  const f = await clickFixture();
  const userId = await f.user("w");
  const a = await f.make(userId, "wka");
  const b = await f.make(userId, "wkb");
  const visitor = (i: number) => `visitor-${String(i).padStart(12, "0")}`;
  return { ...f, a, b, visit: (linkId: number, i: number) => f.click(linkId, visitor(i), true) };
}

test("flush() resolves once every captured click is written by the worker, with count, location and milestone", async () => {
  const f = await fixture();
  const r = f.recorder({ ipStorage: "truncated" });
  try {
    // Fewer than a batch: nothing is written on the capturing thread, even after a while.
    for (let i = 0; i < 10; i++) r.capture(f.visit(f.a.id, i));
    expect(await f.rows(f.a.id)).toBe(0);
    expect(await r.flush()).toBe(true);
    expect(await f.rows(f.a.id)).toBe(10);
    expect(await f.count(f.a.id)).toBe(10);
    expect(await f.db.get("SELECT ip, country, browser FROM link_analytics WHERE link_id = ? LIMIT 1", f.a.id)).toEqual({ ip: "8.8.8.0", country: "US", browser: "Firefox" });
    expect(await f.notices()).toEqual(['Your link "wka" (/wka) got its first click']);

    // More than a batch, across two links: all there after the flush, counts equal rows.
    const n = BATCH * 3 + 7;
    for (let i = 0; i < n; i++) r.capture(f.visit(i % 2 ? f.a.id : f.b.id, i));
    expect(await r.flush()).toBe(true);
    expect((await f.rows(f.a.id)) + (await f.rows(f.b.id))).toBe(10 + n);
    expect(await f.count(f.a.id)).toBe(await f.rows(f.a.id));
    expect(await f.count(f.b.id)).toBe(await f.rows(f.b.id));
    expect(r.backlog).toBe(0);
  } finally {
    await f.done();
  }
});

test("without a flush, clicks reach the database within WRITE_WITHIN_MS", async () => {
  const f = await fixture();
  const r = f.recorder();
  try {
    r.capture(f.visit(f.a.id, 1));
    const started = Date.now();
    while ((await f.rows(f.a.id)) === 0 && Date.now() - started < 5_000) await Bun.sleep(10);
    expect(await f.rows(f.a.id)).toBe(1);
    // The worker starts with the first click (opening the database and the location data takes
    // a moment); a second click on the running worker must arrive within the window.
    const again = Date.now();
    r.capture(f.visit(f.a.id, 2));
    while ((await f.rows(f.a.id)) === 1 && Date.now() - again < 5_000) await Bun.sleep(10);
    expect(await f.rows(f.a.id)).toBe(2);
    // Within the window, with room for a busy machine: a writer that waited for more clicks
    // (or for a timer far longer than the window) would fail here.
    expect(Date.now() - again).toBeLessThan(WRITE_WITHIN_MS + 500);
  } finally {
    await f.done();
  }
});

// SQLite's WAL: PostgreSQL checkpoints by itself.
test.skipIf(onPostgres)("the worker checkpoints; the app's connection does not while it runs, and again after stop()", async () => {
  const f = await fixture();
  const db = f.t.db;
  const r = f.recorder();
  try {
    expect(autocheckpoint(db)).toBe(1000);
    r.capture(f.visit(f.a.id, 1));
    await r.flush();
    for (let i = 0; i < 100 && autocheckpoint(db) !== 0; i++) await Bun.sleep(20);
    expect(autocheckpoint(db)).toBe(0);
    db.exec("CREATE TABLE filler (x TEXT)");
    const insert = db.prepare("INSERT INTO filler VALUES (?)");
    db.transaction(() => {
      for (let i = 0; i < 3000; i++) insert.run("x".repeat(3000));
    })();
    // Only a checkpoint copies pages into the database file, and this connection makes none.
    const file = join(f.t.dir, "threadlink.db");
    expect(statSync(file).size).toBeLessThan(3_000_000);
    for (let i = 0; i < 150 && statSync(file).size < 3000 * 3000; i++) await Bun.sleep(20);
    expect(statSync(file).size).toBeGreaterThan(3000 * 3000);
  } finally {
    await r.stop();
    expect(autocheckpoint(db)).toBe(1000);
    await f.done();
  }
});

test("stop() writes everything still waiting; a click after stop() starts a new worker", async () => {
  const f = await fixture();
  const r = f.recorder();
  try {
    for (let i = 0; i < 300; i++) r.capture(f.visit(f.a.id, i));
    await r.stop();
    expect(await f.rows(f.a.id)).toBe(300);
    expect(await f.count(f.a.id)).toBe(300);
    r.capture(f.visit(f.a.id, 301));
    expect(await r.flush()).toBe(true);
    expect(await f.rows(f.a.id)).toBe(301);
  } finally {
    await f.done();
  }
});

test("roll-ups are written with the clicks: each click tallied once, however the batches were grouped", async () => {
  const f = await fixture();
  const r = f.recorder();
  const analytics = analyticsStore(f.db);
  try {
    let sent = 0;
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 20 * BATCH; i++, sent++) r.capture(f.visit(f.a.id, sent));
      await r.flush();
      // Read between batches: a report never writes, and needs nothing rolled up first.
      expect((await analytics.summary(f.a.id)).unique).toBe(sent);
      for (let i = 0; i < 20 * BATCH; i++, sent++) r.capture(f.visit(f.a.id, sent));
    }
    expect(await r.flush()).toBe(true);
    expect(await f.rows(f.a.id)).toBe(sent);
    expect(await f.count(f.a.id)).toBe(sent);
    expect(await analytics.top(f.a.id, "browser")).toEqual([{ name: "Firefox", count: sent }]);
    expect((await analytics.summary(f.a.id)).unique).toBe(sent);
  } finally {
    await f.done();
  }
}, 30_000);

test("overload: past the bound a click never waits; its row is not kept but its link's count stays exact", async () => {
  const f = await fixture();
  const r = f.recorder({ maxBacklog: 5 });
  let stall: Awaited<ReturnType<typeof stallClickWriters>> | null = null;
  try {
    r.capture(f.visit(f.b.id, 0));
    await r.flush();
    // A stalled writer (stallClickWriters): nothing the worker tries to commit can land meanwhile.
    stall = await stallClickWriters({ dir: f.t.dir, databaseUrl: f.t.config.databaseUrl });
    const started = performance.now();
    for (let i = 1; i <= 40; i++) expect(r.capture(f.visit(i % 4 === 0 ? f.b.id : f.a.id, i))).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(50);
    // Five kept for writing (the bound), 35 counted only; nothing written while the lock is held.
    expect(r.stats()).toEqual({ backlog: 5, highWater: 5, maxBacklog: 5, dropped: 35, uncounted: 35 });
    await Bun.sleep(300);
    expect(await f.rows(f.a.id)).toBe(0);
    await stall.release();
    stall = null;
    expect(await r.flush()).toBe(true);
    // Every click counted (30 on a, 10 on b plus the first); rows only for the five kept.
    expect(await f.count(f.a.id)).toBe(30);
    expect(await f.count(f.b.id)).toBe(11);
    expect((await f.rows(f.a.id)) + (await f.rows(f.b.id))).toBe(1 + 5);
    expect(r.stats()).toMatchObject({ backlog: 0, dropped: 35, uncounted: 0 });
    // a's first-click milestone came with its counted-only clicks (no row of a was kept);
    expect(await f.notices()).toEqual(['Your link "wkb" (/wkb) got its first click', 'Your link "wka" (/wka) got its first click']);
    // ...and once the writer has room again, clicks are kept in full.
    r.capture(f.visit(f.a.id, 41));
    expect(await r.flush()).toBe(true);
    expect(await f.count(f.a.id)).toBe(31);
  } finally {
    await stall?.release();
    await f.done();
  }
});

test("counts in one statement per transaction: milestones crossed once each, a deleted link's clicks not kept", async () => {
  const f = await fixture();
  const r = f.recorder();
  try {
    // 99 clicks, then one batch that crosses 100 together with clicks of a link deleted meanwhile.
    for (let i = 0; i < 99; i++) r.capture(f.visit(f.a.id, i));
    await r.flush();
    expect(await f.notices()).toEqual(['Your link "wka" (/wka) got its first click']);
    for (let i = 0; i < 5; i++) r.capture(f.visit(f.b.id, 1000 + i));
    for (let i = 99; i < 1005; i++) r.capture(f.visit(f.a.id, i));
    await f.db.run("DELETE FROM short_links WHERE id = ?", f.b.id);
    expect(await r.flush()).toBe(true);
    expect(await f.count(f.a.id)).toBe(1005);
    expect(await f.rows(f.a.id)).toBe(1005);
    expect(await f.rows(f.b.id)).toBe(0);
    expect(await f.notices()).toEqual(['Your link "wka" (/wka) got its first click', 'Your link "wka" (/wka) passed 100 clicks', 'Your link "wka" (/wka) passed 1,000 clicks']);
  } finally {
    await f.done();
  }
});

test("text a header can carry is stored as it came: tabs, backslashes, a literal \\N, quotes, non-ASCII (PostgreSQL's COPY escapes)", async () => {
  const f = await fixture();
  const r = f.recorder({ ipStorage: "full" });
  try {
    const odd = ["a\tb", "back\\slash\\", "\\N", "'; DROP TABLE users; --", "naïve café 🧵", '"quoted", comma'];
    for (const [i, s] of odd.entries()) r.capture(f.click(f.a.id, `odd-${i}`, true, { referrer: s, userAgent: s, city: s, country: "DE" }));
    expect(await r.flush()).toBe(true);
    const rows = await f.db.all<{ referrer: string; user_agent: string; city: string }>("SELECT referrer, user_agent, city FROM link_analytics WHERE link_id = ? ORDER BY id", f.a.id);
    expect(rows).toEqual(odd.map((s) => ({ referrer: s, user_agent: s, city: s })));
  } finally {
    await f.done();
  }
});

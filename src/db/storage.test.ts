// Issue 21, bounded disk: the SQLite WAL stays under WAL_LIMIT_MB while bulk creates keep
// writing; /api/health reports the database's bytes and the free disk; a low disk is logged.
import { describe, expect, spyOn, test } from "bun:test";
import { statSync } from "node:fs";
import { onPostgres, setup } from "../test/helpers";

describe("/api/health details.storage", () => {
  test("the database's size, its WAL and (SQLite) the free disk, as numbers from the real files", async () => {
    const t = await setup();
    const r = await t.call("GET", "/api/health");
    expect(r.status).toBe(200);
    const s = r.json.details.storage;
    expect(s.databaseBytes).toBeGreaterThan(0);
    if (onPostgres) {
      // No view of the database server's disk from here; its WAL only with pg_monitor.
      expect(s.freeDiskBytes).toBeNull();
    } else {
      expect(s.databaseBytes).toBe(statSync(t.db.filename).size);
      expect(s.walBytes).toBeGreaterThanOrEqual(0);
      expect(s.freeDiskBytes).toBeGreaterThan(0);
    }
  }, 60_000);

  test.skipIf(onPostgres)("a warning is logged at start while the disk has less than DISK_WARN_MB free", async () => {
    const errors = spyOn(console, "error");
    try {
      // No disk is this large: the warning must come.
      await setup({ DISK_WARN_MB: "100000000" });
      const lines = errors.mock.calls.map((c) => String(c[0])).filter((l) => l.includes("disk space low"));
      expect(lines.length).toBe(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({ level: "warn", msg: "disk space low", warnBelowMB: 100000000 });
      errors.mockClear();
      await setup({ DISK_WARN_MB: "1" });
      expect(errors.mock.calls.some((c) => String(c[0]).includes("disk space low"))).toBe(false);
    } finally {
      errors.mockRestore();
    }
  }, 60_000);
});

// The smallest limit the README advises: one bulk batch of 100 links writes ~5 MB of WAL (16 KB
// pages, the search index's prefixes), and the checkpoint starts past a quarter of the limit.
const LIMIT_MB = 16;

describe.skipIf(onPostgres)("the SQLite WAL under a bulk load", () => {
  test(`40,000 links by bulk: the WAL never passes WAL_LIMIT_MB (${LIMIT_MB} MB)`, async () => {
    const t = await setup({ WAL_LIMIT_MB: String(LIMIT_MB), MAX_LINKS_PER_USER: "0" });
    const u = await t.signUp("loader");
    const wal = () => {
      try {
        return statSync(`${t.db.filename}-wal`).size;
      } catch {
        return 0;
      }
    };
    // A click starts the click worker, which runs the checkpoints (as the server does at start).
    const first = await t.call("POST", "/api/links", { body: { originalUrl: "https://example.com/start", title: "start", shortCode: "start" }, cookie: u.cookie });
    expect(first.status).toBe(201);
    expect((await t.call("GET", "/start")).status).toBe(302);
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, wal())), 2);
    const started = performance.now();
    for (let b = 0; b < 40; b++) {
      const items = Array.from({ length: 1000 }, (_, i) => ({ originalUrl: `https://example.com/${b}/${i}/${"p".repeat(200)}`, title: `Bulk ${b}-${i}`, description: "d".repeat(200) }));
      const r = await t.call("POST", "/api/links/bulk", { body: { links: items }, cookie: u.cookie });
      expect(r.json.created).toBe(1000);
      peak = Math.max(peak, wal());
      if (process.env.WAL_TRACE) console.log(b, (performance.now() - started).toFixed(0), (wal() / 1048576).toFixed(1));
    }
    clearInterval(sampler);
    const seconds = (performance.now() - started) / 1000;
    const dbBytes = statSync(t.db.filename).size;
    console.log(`40,000 links in ${seconds.toFixed(1)} s: database ${(dbBytes / 1048576).toFixed(1)} MB, WAL peak ${(peak / 1048576).toFixed(1)} MB, now ${(wal() / 1048576).toFixed(1)} MB`);
    // More was written than the limit, so the WAL was cut back while writes went on.
    expect(dbBytes).toBeGreaterThan(2 * LIMIT_MB * 1024 * 1024);
    expect(peak).toBeLessThanOrEqual(LIMIT_MB * 1024 * 1024);
  }, 120_000);
});

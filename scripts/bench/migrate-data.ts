// migrate-data throughput (issue 15): bounded, loopback only, prints figures; not part of `npm test`.
//
//   bash scripts/ensure-postgres.sh && node_modules/.bin/bun run scripts/bench/migrate-data.ts [CLICKS]
//
// Seeds a migrated SQLite database with 100 links and CLICKS click rows (200,000 by default,
// each with a referrer, user agent, visitor and metadata as the writer stores them), copies it
// with `migrateData` into a throwaway PostgreSQL 15 cluster started with fsync on (as a real
// server runs), and prints the wall time, the copying process's CPU time and rows per second.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrateData } from "../../src/cli/migrateData";
import { loadConfig } from "../../src/config";
import { migrate } from "../../src/db/migrate";
import { openDb } from "../../src/db/open";
import { startCluster } from "../lib/pgcluster";

const clicks = Number(process.argv[2] ?? 200_000);
const dir = mkdtempSync(join(tmpdir(), "threadlink-bench-migrate-"));
const cluster = await startCluster({ durable: true });
try {
  const db = openDb(dir);
  migrate(db);
  const now = new Date().toISOString();
  db.query("INSERT INTO users (username, password_hash, email, created_at, updated_at) VALUES ('bench', 'x', 'bench@example.test', ?, ?)").run(now, now);
  const link = db.prepare("INSERT INTO short_links (user_id, short_code, original_url, title, created_at, updated_at) VALUES (1, ?, 'https://example.com/', 'Bench', ?, ?) RETURNING id");
  const ids = db.transaction(() => Array.from({ length: 100 }, (_, i) => (link.get(`bench${i}`, now, now) as { id: number }).id))();
  const click = db.prepare(
    `INSERT INTO link_analytics (link_id, timestamp, referrer, user_agent, ip, country, city, device_type, browser, os, visitor_id, is_bot, metadata)
     VALUES (?, ?, 'https://news.example/item?id=1', 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36', '203.0.113.0',
             'US', NULL, 'desktop', 'Chrome', 'Linux', ?, 0, '{"isReturningVisitor":false,"visitNumber":1,"source":"referral","isBot":false}')`,
  );
  db.transaction(() => {
    for (let i = 0; i < clicks; i++) click.run(ids[i % ids.length]!, now, `v${i % 5000}`);
  })();
  db.close();

  const url = await cluster.createDatabase();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const report = await migrateData(loadConfig({ DATA_DIR: dir }), [url], () => {});
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  console.log(report.split("\n").filter((l) => /^ {2}(table|link_analytics|total) /.test(l)).join("\n"));
  console.log(
    `migrate-data: ${clicks} clicks in ${Math.round(ms)} ms (${Math.round(clicks / (ms / 1000))} rows/s), ` +
      `${Math.round((used.user + used.system) / 1000)} ms CPU in the copying process`,
  );
} finally {
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}

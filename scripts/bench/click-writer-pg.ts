// The PostgreSQL click writer's cost per click (issue 15), beside SQLite's (click-writer.ts):
// captured click lines in, committed rows, indexes and counts out, by transaction size.
// Bounded, loopback, not part of `npm test`.
//
//   node_modules/.bin/bun run scripts/bench/click-writer-pg.ts
//   BENCH_LINKS=100000 BENCH_CLICKS=300000 BENCH_SIZES=512,8192 bun run scripts/bench/click-writer-pg.ts
//
// A throwaway PostgreSQL 15 cluster (scripts/lib/pgcluster.ts) set up durable, as a server
// would be (fsync and full-page writes on); per size a fresh migrated database with 100,000
// links, and 300,000 clicks spread uniformly over them (the redirect benchmark's pattern: every
// click on another link's count row and index pages; each link's first click writes its
// milestone notice) written through the real PgClickWriter, as the click worker does. CPU is
// counted on both sides of the connection: this process (decoding, enrichment, COPY text) and
// every process of the cluster (its backend, WAL writer, checkpointer…), from /proc.
import { readdirSync, readFileSync } from "node:fs";
import { startCluster } from "../lib/pgcluster";
import { migratePg, openPg } from "../../src/db/pg";
import { PgClickWriter } from "../../src/analytics/pgWriter";
import { ClickLines, decodeClicks } from "../../src/analytics/clickMessages";

const LINKS = Number(process.env.BENCH_LINKS ?? 100_000);
const CLICKS = Number(process.env.BENCH_CLICKS ?? 300_000);
const SIZES = (process.env.BENCH_SIZES ?? "512,2048,8192").split(",").map(Number);
const UA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

/** CPU time (µs) of a process and its children: the cluster's postmaster and every server process. */
function clusterCpuUs(postmaster: number) {
  let ticks = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue;
    }
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(pid) !== postmaster && Number(f[1]) !== postmaster) continue;
    ticks += Number(f[11]) + Number(f[12]);
  }
  // USER_HZ is 100 on Linux.
  return ticks * 10_000;
}

const cluster = await startCluster({ durable: true });
try {
  console.log(`${CLICKS.toLocaleString("en-US")} clicks over ${LINKS.toLocaleString("en-US")} links, through PgClickWriter (PostgreSQL, durable)`);
  for (const size of SIZES) {
    const url = await cluster.createDatabase();
    const sql = openPg(url, { max: 1 });
    await migratePg(sql);
    const now = new Date().toISOString();
    await sql`INSERT INTO users (username, password_hash, email, created_at, updated_at) VALUES ('bench', 'x', 'bench@example.test', ${now}, ${now})`;
    await sql.unsafe(
      `INSERT INTO short_links (user_id, tracker, short_code, original_url, title, created_at, updated_at)
       SELECT (SELECT id FROM users), 'main', 'b' || g, 'https://example.com/landing/' || g || '?utm_source=bench', 'Bench ' || g, $1, $1 FROM generate_series(1, ${LINKS}) g`,
      [now],
    );
    const first = Number((await sql`SELECT MIN(id) AS id FROM short_links WHERE short_code LIKE 'b%'`)[0].id);
    const backend = Number((await sql`SELECT pg_backend_pid() AS pid`)[0].pid);
    const stat = readFileSync(`/proc/${backend}/stat`, "utf8");
    const postmaster = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    await sql.close();
    // The seed's dirty pages written out first, so they are not counted as the clicks' cost.
    const admin = openPg(cluster.adminUrl(url.slice(url.lastIndexOf("/") + 1)), { max: 1 });
    await admin.unsafe("CHECKPOINT");
    await admin.close();

    const lines: string[] = [];
    for (let done = 0; done < CLICKS; done += size) {
      const batch = new ClickLines();
      for (let i = 0; i < size; i++) {
        batch.add({ linkId: first + Math.floor(Math.random() * LINKS), at: Date.now(), userAgent: UA, referrer: null, ip: "203.0.113.9", visitorId: Bun.randomUUIDv7(), newVisitor: true, source: "direct", country: null, city: null });
      }
      lines.push(batch.take());
    }
    const writer = new PgClickWriter(url, { ipStorage: "truncated", geoipDb: null });
    await writer.geo.load();
    const cpu = process.cpuUsage();
    const server = clusterCpuUs(postmaster);
    const started = performance.now();
    for (const batch of lines) await writer.write(decodeClicks(batch));
    const wallUs = ((performance.now() - started) * 1_000) / CLICKS;
    const used = process.cpuUsage(cpu);
    const serverUs = (clusterCpuUs(postmaster) - server) / CLICKS;
    await writer.close();
    const clientUs = (used.user + used.system) / CLICKS;
    console.log(
      `transactions of ${String(size).padStart(5)} clicks: ${wallUs.toFixed(1)} µs/click wall, CPU ${clientUs.toFixed(1)} µs/click in the writer + ${serverUs.toFixed(1)} in PostgreSQL ` +
        `= ${(clientUs + serverUs).toFixed(1)} → ${Math.round(1e6 / (clientUs + serverUs)).toLocaleString("en-US")} clicks/s per core`,
    );
  }
} finally {
  await cluster.stop();
}

// Analytics at scale (issue 21): bounded, loopback only, prints every figure; not part of `npm test`.
//
//   node_modules/.bin/bun run scripts/bench/analytics-scale.ts                 # 10,000,000 clicks, both backends
//   BENCH_CLICKS=1000000 BENCH_BACKENDS=sqlite bun run scripts/bench/analytics-scale.ts
//   knobs: BENCH_BINARY (default dist/threadlink; "source" runs src/main.ts), BENCH_CLICKS,
//          BENCH_BACKENDS (sqlite,postgres), BENCH_SECONDS (per phase, 10), BENCH_PORT (3393),
//          BENCH_CEILING_PORT (3394)
//
// 1. The ceiling: the redirect probe (below) against a bare Bun.serve answering a fixed 302
//    (scripts/bench/ceiling.ts) — the least a request costs on this machine and client.
// 2. Per backend: a migrated database gets one user (a session), 1,000 other links and one link
//    with BENCH_CLICKS clicks, written straight into the tables the click writer fills: the raw
//    rows (SQLite: one prepared INSERT per row in one transaction, then the per-link fold as the
//    writer leaves it; PostgreSQL: one INSERT … SELECT over generate_series) and the roll-ups the
//    writer would have kept for them (tallied here as the rows are made). Rows carry realistic
//    text (a 110-character user agent, a referrer on a third): disk bytes per stored click are
//    measured from it.
// 3. The server starts on it; every analytics view is timed, the first one first: the report
//    (30 and 90 days), a keyset page at the far end (the oldest clicks), a numbered page, the
//    first 1 MB of clicks.csv.
// 4. Redirect latency of the other links (a probe process: one request at a time, 2 ms apart)
//    idle, then while 4 client processes loop on the big link's analytics (views and days),
//    deep keyset pages (random cursors), numbered pages and clicks.csv (read whole, or restarted
//    every 4 MB). Targets: p99 ≤ 10 ms and ≤ 2× idle; every view ≤ 50 ms.
import { $ } from "bun";
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const HOST = "127.0.0.1";
const argv = process.argv.slice(2);

// ---- child roles: the redirect probe and the load clients run in processes of their own, so
// the bench's own work never sits in the figures.
if (argv[0] === "probe") {
  const [, base, seconds, codesJson] = argv as [string, string, string, string];
  const codes = JSON.parse(codesJson) as string[];
  const lat: number[] = [];
  const until = performance.now() + Number(seconds) * 1000;
  let errors = 0;
  for (let i = 0; performance.now() < until; i++) {
    const t0 = performance.now();
    const r = await fetch(`${base}/${codes[i % codes.length]}`, { redirect: "manual" });
    await r.arrayBuffer();
    lat.push(performance.now() - t0);
    if (r.status !== 302) errors++;
    await Bun.sleep(2);
  }
  console.log(JSON.stringify({ lat, errors }));
  process.exit(0);
}
if (argv[0] === "load") {
  const [, base, seconds, cookie, bigId, minId, maxId, kind] = argv as [string, string, string, string, string, string, string, string];
  const until = performance.now() + Number(seconds) * 1000;
  const headers = { cookie };
  const times: number[] = [];
  let errors = 0;
  let bytes = 0;
  const lo = Number(minId);
  const hi = Number(maxId);
  for (let i = 0; performance.now() < until; i++) {
    const t0 = performance.now();
    let url: string;
    if (kind === "views") url = `${base}/api/links/${bigId}/analytics?days=${[7, 30, 90][i % 3]}`;
    else if (kind === "deep") url = `${base}/api/links/${bigId}/analytics?pageSize=100&before=${lo + Math.floor(Math.random() * (hi - lo))}`;
    else if (kind === "pages") url = `${base}/api/links/${bigId}/analytics?pageSize=100&page=${1 + (i % 10)}`;
    else url = `${base}/api/links/${bigId}/clicks.csv`;
    const r = await fetch(url, { headers });
    if (r.status !== 200) errors++;
    if (kind === "csv") {
      // Read on (a slow client would hold it longer), restarting every 4 MB.
      const reader = r.body!.getReader();
      let got = 0;
      while (got < 4 << 20) {
        const { done, value } = await reader.read();
        if (done) break;
        got += value.length;
      }
      await reader.cancel();
      bytes += got;
    } else bytes += (await r.arrayBuffer()).byteLength;
    times.push(performance.now() - t0);
  }
  console.log(JSON.stringify({ kind, times, errors, bytes }));
  process.exit(0);
}

// ---- the bench
const CLICKS = Number(process.env.BENCH_CLICKS ?? 10_000_000);
const BACKENDS = (process.env.BENCH_BACKENDS ?? "sqlite,postgres").split(",");
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PORT = Number(process.env.BENCH_PORT ?? 3393);
const CEILING_PORT = Number(process.env.BENCH_CEILING_PORT ?? 3394);
const OTHER_LINKS = 1_000;
const VISITORS = Math.max(1, Math.floor(CLICKS / 20));
const BINARY = process.env.BENCH_BINARY ?? "dist/threadlink";
const serveCmd = BINARY === "source" ? [process.execPath, "src/main.ts"] : [BINARY];
const TOKEN = "analytics-bench-session-0123456789abcdef";

const UAS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.4; rv:125.0) Gecko/20100101 Firefox/125.0",
];
const PARSED = [
  ["Chrome", "desktop", "Windows"],
  ["Mobile Safari", "mobile", "iOS"],
  ["Chrome", "mobile", "Android"],
  ["Firefox", "desktop", "macOS"],
] as const;
const COUNTRIES = ["US", "DE", "GB", "FR", "IN", "BR", "JP", "AU", null];
const CITIES = ["Berlin", "London", "Paris", "Mumbai", "Austin", null];
const SPAN = 180 * 86_400_000;
const T0 = Date.now() - SPAN - 60_000;

/** The i-th seeded click (1-based), as both backends' seeding writes it. */
function clickOf(i: number) {
  const ms = T0 + Math.floor((i * SPAN) / CLICKS);
  const visitor = i % VISITORS;
  return {
    ms,
    ua: i % 4,
    country: COUNTRIES[i % COUNTRIES.length] ?? null,
    city: CITIES[i % CITIES.length] ?? null,
    referrer: i % 3 === 0 ? "https://news.example/item?id=12345" : null,
    visitor: `v${visitor}`,
    visit: Math.floor((i - 1) / VISITORS) + 1,
  };
}

/** The roll-ups the click writer would have kept for the seeded clicks (tallies.ts). */
function rollupsOf(linkId: number) {
  const t = new Map<string, number>();
  const add = (dim: string, value: string, n = 1) => t.set(`${dim}\u0000${value}`, (t.get(`${dim}\u0000${value}`) ?? 0) + n);
  let returning = 0;
  for (let i = 1; i <= CLICKS; i++) {
    const c = clickOf(i);
    const p = PARSED[c.ua]!;
    add("country", c.country ?? "Unknown");
    add("city", c.city ?? "Unknown");
    add("browser", p[0]);
    add("device", p[1]);
    add("os", p[2]);
    add("referrer", c.referrer ? "news.example" : "Direct");
    add("day", new Date(c.ms).toISOString().slice(0, 10));
    if (c.visit > 1) returning++;
  }
  const rows: [number, string, string, number][] = [...t].map(([k, n]) => {
    const [dim, value] = k.split("\u0000") as [string, string];
    return [linkId, dim, value, n];
  });
  const visitors = Math.min(VISITORS, CLICKS);
  rows.push([linkId, "summary", "unique", visitors], [linkId, "summary", "rows", CLICKS], [linkId, "summary", "new", CLICKS - returning], [linkId, "summary", "returning", returning]);
  rows.push([linkId, "summary", "last_ms", clickOf(CLICKS).ms]);
  return { rows, visitors };
}

const fmt = (n: number, d = 1) => n.toFixed(d);
const pct = (a: number[], p: number) => {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};

function spawnServe(env: Record<string, string>) {
  return Bun.spawn([...serveCmd, "serve"], {
    env: { ...process.env, HOST, PORT: String(PORT), PUBLIC_URL: `http://${HOST}:${PORT}`, LOG_LEVEL: "warn", ...env },
    stdout: "ignore",
    stderr: "inherit",
  });
}

async function healthy(port: number) {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`http://${HOST}:${port}/api/health`)).ok) return;
    } catch {
      /* not yet */
    }
    await Bun.sleep(50);
  }
  throw new Error(`nothing healthy on ${port}`);
}

async function probe(base: string, codes: string[], seconds: number) {
  const out = await $`${process.execPath} ${import.meta.path} probe ${base} ${seconds} ${JSON.stringify(codes)}`.quiet().text();
  return JSON.parse(out) as { lat: number[]; errors: number };
}

function show(label: string, lat: number[]) {
  console.log(`  ${label.padEnd(44)} n=${String(lat.length).padStart(5)}  p50 ${fmt(pct(lat, 50), 2)} ms  p99 ${fmt(pct(lat, 99), 2)} ms  max ${fmt(Math.max(...lat), 1)} ms`);
}

// ---- seeding
type Seeded = { bigId: number; codes: string[]; minId: number; maxId: number; bytesPerClick: number; seedSeconds: number };

function seedSqlite(dir: string): Seeded {
  const started = performance.now();
  const file = join(dir, "threadlink.db");
  const db = new Database(file);
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; PRAGMA cache_size = -200000;");
  const now = new Date().toISOString();
  const user = (db.query("INSERT INTO users (username, password_hash, email, created_at, updated_at) VALUES ('bench', 'x', 'bench@example.test', ?, ?) RETURNING id").get(now, now) as { id: number }).id;
  db.query("INSERT INTO sessions (id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)").run(createHash("sha256").update(TOKEN).digest("hex"), user, now, new Date(Date.now() + 86_400_000).toISOString());
  const link = db.prepare("INSERT INTO short_links (user_id, tracker, short_code, original_url, title, created_at, updated_at) VALUES (?, 'main', ?, ?, ?, ?, ?) RETURNING id");
  const codes: string[] = [];
  for (let i = 0; i < OTHER_LINKS; i++) {
    const code = `o${i.toString(36).padStart(5, "0")}`;
    codes.push(code);
    link.get(user, code, `https://example.com/other/${i}`, `Other ${i}`, now, now);
  }
  const bigId = (link.get(user, "bigone", "https://example.com/big", "Big", now, now) as { id: number }).id;
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const sizeBefore = statSync(file).size;
  const insert = db.prepare(
    "INSERT INTO link_analytics (id, link_id, timestamp, referrer, user_agent, ip, country, city, device_type, browser, os, visitor_id, is_bot, metadata) VALUES (?, ?, ?, ?, ?, '203.0.113.0', ?, ?, ?, ?, ?, ?, 0, ?)",
  );
  const CHUNK = 200_000;
  for (let from = 1; from <= CLICKS; from += CHUNK) {
    db.transaction(() => {
      for (let i = from; i < Math.min(from + CHUNK, CLICKS + 1); i++) {
        const c = clickOf(i);
        const p = PARSED[c.ua]!;
        insert.run(i, bigId, new Date(c.ms).toISOString(), c.referrer, UAS[c.ua]!, c.country, c.city, p[1], p[0], p[2], c.visitor, `{"isReturningVisitor":${c.visit > 1},"visitNumber":${c.visit},"source":"direct","isBot":false}`);
      }
    })();
  }
  // As the click writer's fold leaves them (migrations/0008).
  db.exec(`INSERT INTO link_clicks (link_id, click_id) SELECT link_id, id FROM link_analytics ORDER BY link_id, id`);
  db.query("UPDATE click_fold SET folded = ?").run(CLICKS);
  db.query("UPDATE link_click_counts SET clicks = ? WHERE link_id = ?").run(CLICKS, bigId);
  const { rows, visitors } = rollupsOf(bigId);
  const up = db.prepare("INSERT INTO link_rollups (link_id, dim, value, count) VALUES (?, ?, ?, ?)");
  db.transaction(() => {
    for (const r of rows) up.run(...r);
    for (let v = 0; v < visitors; v++) up.run(bigId, "visitor", `v${v}`, Math.ceil((CLICKS - v) / VISITORS));
  })();
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const bytesPerClick = (statSync(file).size - sizeBefore) / CLICKS;
  db.close();
  return { bigId, codes, minId: 1, maxId: CLICKS, bytesPerClick, seedSeconds: (performance.now() - started) / 1000 };
}

async function seedPostgres(url: string, adminUrl: string): Promise<Seeded> {
  const started = performance.now();
  const sql = new SQL(url);
  const now = new Date().toISOString();
  const [{ id: user }] = await sql`INSERT INTO users (username, password_hash, email, created_at, updated_at) VALUES ('bench', 'x', 'bench@example.test', ${now}, ${now}) RETURNING id`;
  await sql`INSERT INTO sessions (id, user_id, created_at, expires_at) VALUES (${createHash("sha256").update(TOKEN).digest("hex")}, ${user}, ${now}, ${new Date(Date.now() + 86_400_000).toISOString()})`;
  const codes: string[] = [];
  for (let i = 0; i < OTHER_LINKS; i++) codes.push(`o${i.toString(36).padStart(5, "0")}`);
  await sql.unsafe(
    `INSERT INTO short_links (user_id, tracker, short_code, original_url, title, created_at, updated_at)
     SELECT $1, 'main', c, 'https://example.com/other/' || c, 'Other ' || c, $2, $2 FROM json_array_elements_text($3::text::json) AS c`,
    [user, now, JSON.stringify(codes)],
  );
  const [{ id: bigId }] = await sql`INSERT INTO short_links (user_id, tracker, short_code, original_url, title, created_at, updated_at) VALUES (${user}, 'main', 'bigone', 'https://example.com/big', 'Big', ${now}, ${now}) RETURNING id`;
  const size = async () => Number((await sql`SELECT pg_total_relation_size('link_analytics') + pg_total_relation_size('link_rollups') AS n`)[0].n);
  const sizeBefore = await size();
  // The same rows as clickOf, made by the server (the JS arrays become SQL arrays, 1-based).
  const arr = (a: readonly (string | null)[]) => `ARRAY[${a.map((x) => (x === null ? "NULL" : `'${x}'`)).join(",")}]::text[]`;
  const CHUNK = 1_000_000;
  for (let from = 1; from <= CLICKS; from += CHUNK) {
    const to = Math.min(from + CHUNK - 1, CLICKS);
    await sql.unsafe(`
      INSERT INTO link_analytics (id, link_id, timestamp, referrer, user_agent, ip, country, city, device_type, browser, os, visitor_id, is_bot, metadata)
      SELECT g, ${bigId}, to_char(to_timestamp((${T0}::bigint + (g * ${SPAN}::bigint) / ${CLICKS}) / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        CASE WHEN g % 3 = 0 THEN 'https://news.example/item?id=12345' END,
        (${arr(UAS)})[(g % 4 + 1)::int], '203.0.113.0', (${arr(COUNTRIES)})[(g % ${COUNTRIES.length} + 1)::int], (${arr(CITIES)})[(g % ${CITIES.length} + 1)::int],
        (${arr(PARSED.map((p) => p[1]))})[(g % 4 + 1)::int], (${arr(PARSED.map((p) => p[0]))})[(g % 4 + 1)::int], (${arr(PARSED.map((p) => p[2]))})[(g % 4 + 1)::int],
        'v' || (g % ${VISITORS}), 0,
        '{"isReturningVisitor":' || (((g - 1) / ${VISITORS}) > 0)::text || ',"visitNumber":' || ((g - 1) / ${VISITORS} + 1) || ',"source":"direct","isBot":false}'
      FROM generate_series(${from}::bigint, ${to}::bigint) AS g`);
  }
  await sql`UPDATE link_click_counts SET clicks = ${CLICKS} WHERE link_id = ${bigId}`;
  const { rows, visitors } = rollupsOf(bigId);
  await sql.unsafe("INSERT INTO link_rollups (link_id, dim, value, count) SELECT (j->>0)::int, j->>1, j->>2, (j->>3)::bigint FROM json_array_elements($1::text::json) AS j", [JSON.stringify(rows)]);
  await sql.unsafe(
    `INSERT INTO link_rollups (link_id, dim, value, count) SELECT ${bigId}, 'visitor', 'v' || v, (${CLICKS} - v + ${VISITORS} - 1) / ${VISITORS} FROM generate_series(0, ${visitors - 1}) AS v`,
  );
  const admin = new SQL(adminUrl);
  await admin.unsafe("VACUUM ANALYZE link_analytics");
  await admin.unsafe("VACUUM ANALYZE link_rollups");
  await admin.close();
  const bytesPerClick = ((await size()) - sizeBefore) / CLICKS;
  await sql.close();
  return { bigId, codes, minId: 1, maxId: CLICKS, bytesPerClick, seedSeconds: (performance.now() - started) / 1000 };
}

// ---- measuring
async function timeViews(base: string, s: Seeded) {
  const cookie = `tl_session=${TOKEN}`;
  const time = async (path: string, limitBytes = Number.POSITIVE_INFINITY) => {
    const t0 = performance.now();
    const r = await fetch(`${base}${path}`, { headers: { cookie } });
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${await r.text()}`);
    if (Number.isFinite(limitBytes)) {
      const reader = r.body!.getReader();
      let got = 0;
      while (got < limitBytes) {
        const { done, value } = await reader.read();
        if (done) break;
        got += value.length;
      }
      await reader.cancel();
    } else await r.arrayBuffer();
    return performance.now() - t0;
  };
  const views: [string, string, number?][] = [
    ["report, 30 days (the first view)", `/api/links/${s.bigId}/analytics`],
    ["report, 90 days", `/api/links/${s.bigId}/analytics?days=90`],
    ["report, 7 days", `/api/links/${s.bigId}/analytics?days=7`],
    ["deepest keyset page (100 oldest clicks)", `/api/links/${s.bigId}/analytics?pageSize=100&before=${s.minId + 100}`],
    ["keyset page in the middle", `/api/links/${s.bigId}/analytics?pageSize=100&before=${Math.floor((s.minId + s.maxId) / 2)}`],
    ["numbered page 10 (100 a page)", `/api/links/${s.bigId}/analytics?pageSize=100&page=10`],
    ["clicks.csv, first 64 KB", `/api/links/${s.bigId}/clicks.csv`, 1 << 16],
    ["clicks.csv, first 1 MB (not a view: a download)", `/api/links/${s.bigId}/clicks.csv`, 1 << 20],
  ];
  const results: { label: string; first: number; p50: number; max: number }[] = [];
  for (const [label, path, limit] of views) {
    const first = await time(path, limit);
    const again: number[] = [];
    for (let i = 0; i < 10; i++) again.push(await time(path, limit));
    results.push({ label, first, p50: pct(again, 50), max: Math.max(...again) });
    console.log(`  ${label.padEnd(44)} first ${fmt(first, 1)} ms, then p50 ${fmt(pct(again, 50), 1)} ms, max ${fmt(Math.max(...again), 1)} ms`);
  }
  return results;
}

async function underLoad(base: string, s: Seeded) {
  const cookie = `tl_session=${TOKEN}`;
  const idle = await probe(base, s.codes, SECONDS);
  show("redirects of other links, idle", idle.lat);
  const kinds = (process.env.BENCH_LOAD ?? "views,deep,pages,csv").split(",");
  const loaders = kinds.map((k) => $`${process.execPath} ${import.meta.path} load ${base} ${SECONDS + 1} ${cookie} ${s.bigId} ${s.minId} ${s.maxId} ${k}`.quiet().text());
  await Bun.sleep(500);
  const busy = await probe(base, s.codes, SECONDS);
  const loads = (await Promise.all(loaders)).map((o) => JSON.parse(o) as { kind: string; times: number[]; errors: number; bytes: number });
  show("redirects of other links, 4 clients on analytics", busy.lat);
  for (const l of loads) console.log(`    client ${l.kind.padEnd(6)} ${l.times.length} requests, p50 ${fmt(pct(l.times, 50), 1)} ms, p99 ${fmt(pct(l.times, 99), 1)} ms, ${(l.bytes / 1e6).toFixed(1)} MB, ${l.errors} errors`);
  return { idle, busy, loads };
}

async function main() {
  console.log(`analytics-scale: ${CLICKS.toLocaleString("en-US")} clicks on one link, ${VISITORS.toLocaleString("en-US")} visitors, ${OTHER_LINKS} other links; ${SECONDS} s per phase; ${serveCmd.join(" ")}`);
  if (BINARY !== "source" && !existsSync(BINARY)) await $`${process.execPath} run scripts/build.ts`;
  // 1. the ceiling
  const ceiling = Bun.spawn([process.execPath, "scripts/bench/ceiling.ts", String(CEILING_PORT)], { stdout: "ignore", stderr: "inherit" });
  let verdicts: string[] = [];
  try {
    // The ceiling has no /api/health: any answer means it listens.
    for (let i = 0; i < 200; i++) {
      try {
        await fetch(`http://${HOST}:${CEILING_PORT}/`, { redirect: "manual" });
        break;
      } catch {
        await Bun.sleep(50);
      }
    }
    const c = await probe(`http://${HOST}:${CEILING_PORT}`, ["x"], Math.min(SECONDS, 5));
    console.log("ceiling (a bare Bun.serve answering a fixed 302, same probe):");
    show("ceiling", c.lat);
  } finally {
    ceiling.kill();
  }
  for (const backend of BACKENDS) {
    console.log(`\n== ${backend} ==`);
    const dir = mkdtempSync(join(tmpdir(), "threadlink-analytics-bench-"));
    let cluster: Awaited<ReturnType<typeof import("../lib/pgcluster").startCluster>> | null = null;
    let server: Bun.Subprocess | null = null;
    try {
      const env: Record<string, string> = { DATA_DIR: join(dir, "data") };
      if (backend === "postgres") {
        const { startCluster } = await import("../lib/pgcluster");
        cluster = await startCluster({ durable: true });
        env.DATABASE_URL = await cluster.createDatabase("bench");
      }
      await $`${serveCmd} migrate`.env({ ...process.env, ...env }).quiet();
      const s = backend === "postgres" ? await seedPostgres(env.DATABASE_URL!, cluster!.adminUrl("bench")) : seedSqlite(env.DATA_DIR!);
      console.log(`  seeded in ${fmt(s.seedSeconds, 0)} s; disk per stored click (rows, indexes, the fold; roll-ups amortised): ${fmt(s.bytesPerClick, 0)} bytes`);
      server = spawnServe(env);
      await healthy(PORT);
      const base = `http://${HOST}:${PORT}`;
      const views = await timeViews(base, s);
      const load = await underLoad(base, s);
      const idleP99 = pct(load.idle.lat, 99);
      const busyP99 = pct(load.busy.lat, 99);
      const slowest = Math.max(...views.filter((v) => !v.label.includes("download")).map((v) => Math.max(v.first, v.max)));
      verdicts.push(
        `${backend}: every view ≤ 50 ms (first included): ${slowest <= 50 ? "MET" : "MISSED"} (slowest ${fmt(slowest)} ms); ` +
          `redirect p99 under load ${fmt(busyP99, 2)} ms ≤ 10 ms: ${busyP99 <= 10 ? "MET" : "MISSED"}; ≤ 2× idle (${fmt(idleP99, 2)} ms): ${busyP99 <= 2 * idleP99 ? "MET" : "MISSED"}`,
      );
    } finally {
      server?.kill();
      await server?.exited;
      await cluster?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log("\nverdicts:");
  for (const v of verdicts) console.log(`  ${v}`);
  verdicts = [];
}

await main();

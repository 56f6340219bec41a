// Click writer benchmark: what one click costs the click worker to store, by transaction size,
// and the writer-only capacity that gives on one core (issue 12: it must be ≥ 1.5× the request
// thread's HEAD-only rate). Bounded, no network; not part of `npm test`.
//
//   node_modules/.bin/bun run scripts/bench/click-writer.ts
//   BENCH_SIZES=8192 BENCH_LINKS=100000 BENCH_CLICKS=300000 BENCH_WARM=300000 bun run scripts/bench/click-writer.ts
//   BENCH_PROFILE=1 … also prints the wall µs per click each statement took, costliest first
//   BENCH_WEBHOOKS=10 … the bench user has that many endpoints subscribed to clicks.recorded, so
//     the batches pay the webhook outbox's fan-out (issue 26; none by default)
//
// A fresh database (the real migrations) with 100,000 links, written through the real
// ClickWriter on a connection set up as the click worker sets up its own, with a PASSIVE
// checkpoint every second as the worker runs. The clicks start as the recorder's batches
// (ClickLines), so decoding is paid as in the worker: captured click lines in, committed rows,
// indexes and counts out. CPU time is the writing thread's (process.threadCpuUsage), as
// scripts/bench/redirect.ts counts the request thread's HEAD-only time and the click worker's in
// the server; the process's (the engine's JIT and collector helper threads too) is printed
// beside it. Either holds while other work shares the machine.
// The clicks are spread uniformly over the links (the redirect benchmark's pattern, the worst
// case: every click lands on a different link's pages), each from a different public IPv4
// address (so each pays a location lookup and its own strings, as a server facing the internet
// does; loopback clicks pay neither), with a handful of real user agents and referrers.
// First BENCH_WARM clicks (8,192 a transaction) give the links a history, as a running server's
// links have: that is where each link's first click and its milestone notification happen
// (printed apart, "fresh links"). Then BENCH_CLICKS more are timed at each transaction size: a
// table that already holds clicks, a fold that rewrites a larger per-link index, and milestones
// at the rate a link with history crosses them.
// Beside it: the HEAD-only rate that scripts/bench/redirect.ts measured last on this machine
// (.tmp/bench-head-only.json), per core from the request thread's CPU, or BENCH_HEAD_US.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { openDbFile } from "../../src/db/open";
import { migrate } from "../../src/db/migrate";
import { existsSync, readFileSync } from "node:fs";
import { ClickWriter, writerConnection } from "../../src/analytics/writer";
import { ClickLines, decodeClicks } from "../../src/analytics/clickMessages";

const LINKS = Number(process.env.BENCH_LINKS ?? 100_000);
const CLICKS = Number(process.env.BENCH_CLICKS ?? 300_000);
const WARM = Number(process.env.BENCH_WARM ?? 300_000);
const SIZES = (process.env.BENCH_SIZES ?? "512,2048,8192").split(",").map(Number);
const WARM_SIZE = 8_192;
const PROFILE = process.env.BENCH_PROFILE === "1";
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 0);
const AGENTS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
  "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
  "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
];
const REFERRERS = [null, null, "https://news.ycombinator.com/", "https://www.google.com/", "https://t.co/x1y2z3", "https://example.org/blog/post?id=7"];
const pick = <T>(a: readonly T[]) => a[Math.floor(Math.random() * a.length)]!;

/** A random public IPv4 address (never a private, loopback, shared or multicast one). */
function publicIp() {
  for (;;) {
    const a = 1 + Math.floor(Math.random() * 223);
    if (a === 10 || a === 127 || a === 100 || a === 169 || a === 172 || a === 192) continue;
    return `${a}.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;
  }
}

function seed(path: string) {
  const db = openDbFile(path);
  migrate(db);
  const now = new Date().toISOString();
  db.query("INSERT INTO users (id, username, password_hash, email, created_at, updated_at) VALUES (1, 'bench', 'x', 'bench@example.test', ?, ?)").run(now, now);
  const insert = db.prepare("INSERT INTO short_links (user_id, tracker, short_code, original_url, title, created_at, updated_at) VALUES (1, 'main', ?, ?, ?, ?, ?) RETURNING id");
  let first = 0;
  db.transaction(() => {
    for (let i = 0; i < LINKS; i++) {
      const { id } = insert.get(`b${i.toString(36)}`, `https://example.com/landing/${i}?utm_source=bench`, `Bench ${i}`, now, now) as { id: number };
      first ||= id;
    }
  })();
  const hook = db.prepare("INSERT INTO webhooks (user_id, url, secret, events, created_at, updated_at) VALUES (1, ?, 'whsec_bench', ',clicks.recorded,', ?, ?)");
  for (let i = 0; i < WEBHOOKS; i++) hook.run(`https://hooks.example.com/${i}`, now, now);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  return first;
}

/** One recorder batch of `size` clicks, as the redirect captures them. */
function batch(firstLink: number, size: number) {
  const lines = new ClickLines();
  for (let i = 0; i < size; i++) {
    const referrer = pick(REFERRERS);
    lines.add({
      linkId: firstLink + Math.floor(Math.random() * LINKS),
      at: Date.now(),
      userAgent: pick(AGENTS),
      referrer,
      ip: publicIp(),
      // The redirect mints a visitor cookie for a request without one (wrk sends none).
      visitorId: Bun.randomUUIDv7(),
      newVisitor: true,
      // As src/redirects/routes.ts names a plain GET's source.
      source: referrer ? "referrer" : "direct",
      country: null,
      city: null,
    });
  }
  return lines.take();
}

/**
 * Writes `total` clicks in batches of `size` as the worker does (src/analytics/clickWorker.ts):
 * decode, write, a full collection of the heap at most every 100 ms after a transaction, a
 * PASSIVE checkpoint every second. Each batch is made just before it is written, outside the
 * measured time, so the heap holds one batch of text as the worker's does. CPU µs per click
 * (all, kernel; the process's, so collector helper threads count) and wall µs per click.
 */
function write(writer: ClickWriter, db: ReturnType<typeof openDbFile>, firstLink: number, size: number, total: number) {
  let thread = 0;
  let user = 0;
  let system = 0;
  let wall = 0;
  let checkpointed = performance.now();
  let collected = 0;
  for (let done = 0; done < total; done += size) {
    const data = batch(firstLink, size);
    const cpu = process.cpuUsage();
    const own = process.threadCpuUsage();
    const started = performance.now();
    writer.write(decodeClicks(data));
    if (performance.now() - collected >= 100) {
      collected = performance.now();
      Bun.gc(true);
    }
    if (performance.now() - checkpointed >= 1_000) {
      db.query("PRAGMA wal_checkpoint(PASSIVE)").get();
      checkpointed = performance.now();
    }
    wall += performance.now() - started;
    const used = process.cpuUsage(cpu);
    const mine = process.threadCpuUsage(own);
    thread += mine.user + mine.system;
    user += used.user;
    system += used.system;
  }
  const clicks = Math.ceil(total / size) * size;
  return { cpuUs: thread / clicks, processUs: (user + system) / clicks, kernelUs: system / clicks, wallUs: (wall * 1_000) / clicks };
}

/**
 * BENCH_PROFILE: wraps the connection's prepare so each statement's calls add up their wall
 * time, keyed by the statement's first 80 characters (the writer prepares each once).
 */
function timeStatements(db: ReturnType<typeof openDbFile>) {
  const spent = new Map<string, number>();
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    const statement = prepare(sql);
    const key = sql.replace(/\s+/g, " ").trim().slice(0, 80);
    for (const method of ["run", "get", "all", "values"] as const) {
      const call = (statement[method] as (...a: unknown[]) => unknown).bind(statement);
      (statement as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        const started = performance.now();
        try {
          return call(...args);
        } finally {
          spent.set(key, (spent.get(key) ?? 0) + performance.now() - started);
        }
      };
    }
    return statement;
  }) as typeof db.prepare;
  return spent;
}

async function run(size: number) {
  const dir = mkdtempSync(join(tmpdir(), "threadlink-writer-bench-"));
  try {
    const path = join(dir, "threadlink.db");
    const firstLink = seed(path);
    const db = openDbFile(path);
    writerConnection(db);
    const statements = PROFILE ? timeStatements(db) : null;
    const writer = new ClickWriter(db, { ipStorage: "truncated", geoipDb: null });
    writer.geo.load();
    if (WARM > 0) {
      const fresh = write(writer, db, firstLink, WARM_SIZE, WARM);
      const notices = (db.query("SELECT COUNT(*) AS n FROM notifications").get() as { n: number }).n;
      console.log(
        `  fresh links, first ${WARM.toLocaleString("en-US")} clicks (${WARM_SIZE} a transaction, ${notices.toLocaleString("en-US")} first-click notifications): ` +
          `${fresh.cpuUs.toFixed(1)} µs/click CPU on the writing thread (process ${fresh.processUs.toFixed(1)}, ${fresh.kernelUs.toFixed(1)} in the kernel)`,
      );
    }
    statements?.clear();
    const t = write(writer, db, firstLink, size, CLICKS);
    if (statements) for (const [sql, ms] of [...statements].sort((a, b) => b[1] - a[1])) console.log(`  ${((ms * 1_000) / CLICKS).toFixed(1).padStart(7)} µs/click  ${sql}`);
    const deliveries = (db.query("SELECT COUNT(*) AS n FROM webhook_deliveries").get() as { n: number }).n;
    if (WEBHOOKS) console.log(`  ${WEBHOOKS} webhook endpoints: ${deliveries.toLocaleString("en-US")} deliveries queued in all`);
    db.close();
    console.log(
      `transactions of ${String(size).padStart(5)} clicks: ${t.wallUs.toFixed(1)} µs/click wall, ` +
        `${t.cpuUs.toFixed(1)} µs/click CPU on the writing thread (process ${t.processUs.toFixed(1)}, ${t.kernelUs.toFixed(1)} in the kernel) → ${Math.round(1e6 / t.cpuUs).toLocaleString("en-US")} clicks/s on one core`,
    );
    return t;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(
  `${CLICKS.toLocaleString("en-US")} clicks over ${LINKS.toLocaleString("en-US")} links with ${WARM.toLocaleString("en-US")} clicks already stored, through ClickWriter (load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(", ")})`,
);
const costs = new Map<number, Awaited<ReturnType<typeof run>>>();
for (const size of SIZES) costs.set(size, await run(size));
const headFile = ".tmp/bench-head-only.json";
const head = process.env.BENCH_HEAD_US
  ? { requestThreadUs: Number(process.env.BENCH_HEAD_US), at: "BENCH_HEAD_US" }
  : existsSync(headFile)
    ? (JSON.parse(readFileSync(headFile, "utf8")) as { requestThreadUs: number; at: string })
    : null;
// Under load the worker writes transactions of the largest size (it merges what waits).
const writer = costs.get(Math.max(...SIZES))!;
if (head) {
  const headUs = head.requestThreadUs;
  const ratio = headUs / writer.cpuUs;
  console.log(`HEAD-only redirect on the request thread: ${headUs.toFixed(1)} µs/req → ${Math.round(1e6 / headUs).toLocaleString("en-US")} req/s per core (${process.env.BENCH_HEAD_US ? "BENCH_HEAD_US" : `${headFile}, measured ${head.at}`})`);
  console.log(
    `writer-only capacity ${Math.round(1e6 / writer.cpuUs).toLocaleString("en-US")} clicks/s per core = ${ratio.toFixed(2)}× the HEAD-only rate: ${ratio >= 1.5 ? "met" : "MISSED"} (target ≥ 1.5×; ` +
      `with the whole process's CPU ${(headUs / writer.processUs).toFixed(2)}×; load average now ${loadavg()[0]!.toFixed(1)})`,
  );
} else {
  console.log("HEAD-only rate unknown: run scripts/bench/redirect.ts first (it saves it) or set BENCH_HEAD_US");
}
